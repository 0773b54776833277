//! The one table of paths generated code uses: everything goes through `<crate>::__private`.

use proc_macro2::TokenStream;
use quote::quote;

pub(crate) struct Paths {
    private: TokenStream,
}

impl Paths {
    pub(crate) fn new(krate: Option<&syn::Path>) -> Self {
        let private = match krate {
            Some(path) => quote!(#path::__private),
            None => quote!(::phantom::__private),
        };
        Self { private }
    }

    /// `<crate>::__private::<item>`
    pub(crate) fn p(&self, item: &str) -> TokenStream {
        let private = &self.private;
        let ident = syn::Ident::new(item, proc_macro2::Span::call_site());
        quote!(#private::#ident)
    }
}
