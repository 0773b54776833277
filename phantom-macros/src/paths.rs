//! The one table of paths generated code uses: everything goes through `<crate>::__private`.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
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

    /// `<crate>::__private::<item>` with every token at `span`, so an unmet bound of that item is
    /// reported at the user's token (a return type, a function name) instead of the attribute.
    pub(crate) fn p_at(&self, item: &str, span: Span) -> TokenStream {
        respan(self.p(item), span)
    }
}

fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
