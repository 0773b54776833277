//! The descriptor of a `#[prompt]` and its trampoline.

use proc_macro2::TokenStream;
use quote::quote;

use super::{BOXED, args_fn, completions, listing, trampoline};
use crate::model::{Param, Prompt};
use crate::paths::Paths;

/// The `PromptDef` of one `#[prompt]`.
pub(super) fn def(p: &Prompt, paths: &Paths) -> TokenStream {
    let h = &p.item.handler;
    let listing = listing(&p.item, paths);
    let error = paths.p("Error");
    let err = paths.p("Err");
    let ready = paths.p("ready_boxed");
    let body = trampoline(
        h,
        |e| quote!(#ready(#err(#error::invalid_params(#e)))),
        ("IntoPromptReply", "into_prompt_reply"),
        BOXED,
        paths,
    );
    let args_fn = args_fn(&h.params, paths);
    let completions = completions(&h.params, Param::wire_name, paths);
    let def = paths.p("PromptDef");
    quote! {
        #def {
            #listing
            args: #args_fn,
            get: |this, parts| { #body },
            completions: #completions,
        }
    }
}
