//! On error: the user's code (markers stripped) plus a stub `Server` impl, so one mistake gives
//! one error instead of fifty.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemImpl;

use crate::model::Router;
use crate::paths::Paths;

pub(crate) fn expand(router: Option<&Router>, item: &ItemImpl, errors: &syn::Error) -> TokenStream {
    let errors = errors.to_compile_error();
    let mut item = item.clone();
    let Some(router) = router else {
        return quote!(#item #errors);
    };
    // Keep callbacks as inherent methods so their bodies still type-check.
    for cb in &router.callbacks {
        item.items.push(syn::ImplItem::Fn(cb.item.clone()));
    }
    if !item.generics.params.is_empty() || item.trait_.is_some() {
        return quote!(#item #errors);
    }
    let paths = Paths::new(router.attrs.krate.as_ref());
    let server = paths.p("Server");
    let router_ty = paths.p("Router");
    let self_ty = &router.self_ty;
    quote! {
        #item
        #errors
        #[allow(non_local_definitions)]
        const _: () = {
            impl #server for #self_ty {
                fn __router() -> &'static #router_ty<Self> {
                    ::core::unreachable!("phantom: this router failed to compile")
                }
            }
        };
    }
}
