//! The descriptor of a `#[skill]` and its trampoline: the resource trampoline's parameter
//! handling, the output converted with `IntoSkill`.

use proc_macro2::TokenStream;
use quote::quote;

use super::resource::trampoline;
use crate::model::Resource;
use crate::paths::Paths;

/// The `SkillDef` of one `#[skill]` (nothing when its URI did not pass).
pub(super) fn def(s: &Resource, paths: &Paths) -> TokenStream {
    let Some(body) = trampoline(s, ("IntoSkill", "into_skill"), &TokenStream::new(), paths) else {
        return TokenStream::new();
    };
    let lit = &s.lit;
    let name = &s.item.name;
    let scopes = &s.item.scopes;
    let def = paths.p("SkillDef");
    quote! {
        #def {
            template: #lit,
            name: #name,
            scopes: &[#(#scopes),*],
            get: |this, parts| #body,
        }
    }
}
