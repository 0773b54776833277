//! The descriptor of a `#[resource]` and its trampoline: URI parameters parsed with
//! `FromUriParam`, context parameters read from the request, the output converted with
//! `IntoContents`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{completions, listing, opt, ret_span};
use crate::model::{Handler, Resource};
use crate::paths::Paths;

/// `Self::f(this, a, b)` or `Self::f(this, a, b).await`.
fn invoke(handler: &Handler, args: &[TokenStream]) -> TokenStream {
    let ident = &handler.ident;
    let call = quote!(Self::#ident(this, #(#args),*));
    if handler.is_async {
        quote!(#call.await)
    } else {
        call
    }
}

/// `assert_send(async move { body })`, spanned at the handler's name: a handler whose future is
/// not `Send` is reported there, with rustc's note pointing at the value held across `.await`.
fn boxed(handler: &Handler, body: &TokenStream, paths: &Paths) -> TokenStream {
    let span = handler.ident.span();
    let assert_send = paths.p_at("assert_send", span);
    quote_spanned!(span=> #assert_send(async move { #body }))
}

/// `<crate>::__private::<Trait>::<method>(value, extra…)`, spanned at the handler's return type
/// (the value is bound first so the unmet bound is reported there too, once).
fn convert(
    handler: &Handler,
    (trait_, method): (&str, &str),
    value: &TokenStream,
    extra: &TokenStream,
    paths: &Paths,
) -> TokenStream {
    let span = ret_span(handler);
    let path = paths.p_at(trait_, span);
    let method = syn::Ident::new(method, span);
    quote_spanned! {span=>
        let __phantom_ret = #value;
        #path::#method(__phantom_ret #extra)
    }
}

/// The `ResourceDef` of one `#[resource]` (nothing when its template did not parse).
pub(super) fn def(r: &Resource, paths: &Paths) -> TokenStream {
    let Some(body) = trampoline(
        r,
        ("IntoContents", "into_contents"),
        &quote!(, parts.target()),
        paths,
    ) else {
        return TokenStream::new();
    };
    let h = &r.item.handler;
    let lit = &r.lit;
    let listing = listing(&r.item, paths);
    let (mime, ui) = if r.is_app() {
        let mime = syn::LitStr::new(crate::model::APP_MIME_TYPE, r.lit.span());
        (opt(Some(&mime), paths), app_ui(r, paths))
    } else {
        (opt(r.mime_type.as_ref(), paths), paths.p("None"))
    };
    let size = opt(r.size.as_ref(), paths);
    let completions = completions(&h.params, |p| p.ident.to_string(), paths);
    let def = paths.p("ResourceDef");
    quote! {
        #def {
            template: #lit,
            #listing
            mime_type: #mime,
            size: #size,
            ui: #ui,
            read: |this, parts| #body,
            completions: #completions,
        }
    }
}

/// `Some(ResourceUi { … })` of a `ui://` resource: its CSP origins, permissions (wire names),
/// domain and border preference.
fn app_ui(r: &Resource, paths: &Paths) -> TokenStream {
    let a = &r.app;
    let (connect, resources, frames, base_uri) = (&a.connect, &a.resources, &a.frames, &a.base_uri);
    let permissions: Vec<&str> = a
        .permissions
        .iter()
        .filter_map(|p| {
            crate::model::APP_PERMISSIONS
                .iter()
                .find(|(name, _)| *name == p.value())
                .map(|(_, wire)| *wire)
        })
        .collect();
    let domain = opt(a.domain.as_ref(), paths);
    let border = opt(a.prefers_border, paths);
    let ui = paths.p("ResourceUi");
    let some = paths.p("Some");
    quote! {
        #some(#ui {
            connect_domains: &[#(#connect),*],
            resource_domains: &[#(#resources),*],
            frame_domains: &[#(#frames),*],
            base_uri_domains: &[#(#base_uri),*],
            permissions: &[#(#permissions),*],
            domain: #domain,
            prefers_border: #border,
        })
    }
}

/// The boxed body of a resource or skill trampoline: each parameter read from the URI
/// (`FromUriParam`) or from the request (`FromContext`), the method called, its value converted
/// with `conversion` (`None` when the template did not parse).
pub(super) fn trampoline(
    r: &Resource,
    conversion: (&str, &str),
    extra: &TokenStream,
    paths: &Paths,
) -> Option<TokenStream> {
    let h = &r.item.handler;
    let template = r.template.as_ref()?;
    let params: Vec<String> = template.params().map(str::to_owned).collect();
    let from_uri = paths.p("FromUriParam");
    let context = paths.p("FromContext");
    let ok = paths.p("Ok");
    let err = paths.p("Err");
    let mut lets = Vec::new();
    let mut args = Vec::new();
    for (i, p) in h.params.iter().enumerate() {
        let var = quote::format_ident!("__phantom_arg{}", i);
        let ty = &p.ty;
        let name = p.ident.to_string();
        let span = syn::spanned::Spanned::span(ty);
        lets.push(match params.iter().position(|n| *n == name) {
            Some(index) => quote_spanned! {span=>
                let #var = match <#ty as #from_uri>::from_uri_param(parts.param(#index)) {
                    #ok(v) => v,
                    #err(__phantom_e) => return #err(parts.bad_param(#name, &__phantom_e)),
                };
            },
            None => quote_spanned! {span=>
                let #var = match <#ty as #context<'_>>::from_context(&parts.cx) {
                    #ok(v) => v,
                    #err(__phantom_e) => return #err(parts.bad_context(&__phantom_e)),
                };
            },
        });
        args.push(quote!(#var));
    }
    let call = invoke(h, &args);
    let convert = convert(h, conversion, &call, extra, paths);
    Some(boxed(h, &quote!(#(#lets)* #convert), paths))
}
