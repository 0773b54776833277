//! The descriptor of a `#[prompt]` and its trampoline.

use proc_macro2::TokenStream;
use quote::quote;

use super::{args_fn, call_params, completions, description, icons, mapped, opt_str, opt_text};
use crate::model::{Param, Prompt};
use crate::paths::Paths;

/// The `PromptDef` of one `#[prompt]`.
pub(super) fn def(p: &Prompt, paths: &Paths) -> TokenStream {
    let h = &p.handler;
    let name = &p.name;
    let title = opt_str(p.title.as_ref(), paths);
    let desc = opt_text(description(p.description.as_ref(), h).as_deref(), paths);
    let error = paths.p("Error");
    let err = paths.p("Err");
    let ready = paths.p("ready_boxed");
    let (lets, args) = call_params(
        &h.params,
        paths,
        |e| quote!(#ready(#err(#error::invalid_params(#e)))),
    );
    let body = mapped(
        h,
        &lets,
        &args,
        ("IntoPromptReply", "into_prompt_reply"),
        paths,
    );
    let args_fn = args_fn(&h.params, paths);
    let completions = completions(&h.params, Param::wire_name, paths);
    let icons = icons(&p.icons);
    let def = paths.p("PromptDef");
    quote! {
        #def {
            name: #name,
            title: #title,
            description: #desc,
            icons: #icons,
            args: #args_fn,
            get: |this, parts| { #body },
            completions: #completions,
        }
    }
}
