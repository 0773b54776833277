//! Generated code: the descriptor tables and one small trampoline per handler, inside
//! `const _: () = { … };`, every path through [`Paths`].

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::{ItemImpl, Lit, LitStr, Type};

use crate::model::{Handler, Param, Prompt, Resource, Router, Tool};
use crate::paths::Paths;

fn opt_str(s: Option<&LitStr>, paths: &Paths) -> TokenStream {
    let some = paths.p("Some");
    let none = paths.p("None");
    match s {
        Some(s) => quote!(#some(#s)),
        None => quote!(#none),
    }
}

fn opt_text(s: Option<&str>, paths: &Paths) -> TokenStream {
    let some = paths.p("Some");
    let none = paths.p("None");
    match s {
        Some(s) => quote!(#some(#s)),
        None => quote!(#none),
    }
}

fn opt_bool(b: Option<bool>, paths: &Paths) -> TokenStream {
    let some = paths.p("Some");
    let none = paths.p("None");
    match b {
        Some(b) => quote!(#some(#b)),
        None => quote!(#none),
    }
}

fn description<'a>(explicit: Option<&'a LitStr>, handler: &'a Handler) -> Option<String> {
    explicit.map(LitStr::value).or_else(|| handler.doc.clone())
}

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

/// The trampoline of a tool or prompt without an `async` block of its own: the arguments are read
/// first, then the handler's own future is boxed with the conversion of its output mapped over it
/// (no extra state machine per handler). The `Send` check of that future is spanned at the
/// handler's name; the conversion at the return type.
fn mapped(
    handler: &Handler,
    lets: &[TokenStream],
    args: &[TokenStream],
    (trait_, method): (&str, &str),
    paths: &Paths,
) -> TokenStream {
    let ident = &handler.ident;
    let name_span = handler.ident.span();
    let ret_span = ret_span(handler);
    let path = paths.p_at(trait_, ret_span);
    let method = syn::Ident::new(method, ret_span);
    if handler.is_async {
        let map_boxed = paths.p_at("map_boxed", name_span);
        let convert = quote_spanned!(ret_span=> |__phantom_ret| #path::#method(__phantom_ret));
        quote_spanned! {name_span=>
            #(#lets)*
            #map_boxed(Self::#ident(this, #(#args),*), #convert)
        }
    } else {
        let ready_boxed = paths.p_at("ready_boxed", name_span);
        let convert = quote_spanned! {ret_span=>
            let __phantom_ret = Self::#ident(this, #(#args),*);
            #path::#method(__phantom_ret)
        };
        quote_spanned! {name_span=>
            #(#lets)*
            #ready_boxed({ #convert })
        }
    }
}

/// The span an unsupported return type is reported at: the type, or the name of a handler that
/// returns `()` implicitly.
fn ret_span(handler: &Handler) -> Span {
    handler
        .ret
        .as_ref()
        .map_or_else(|| handler.ident.span(), syn::spanned::Spanned::span)
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

fn call_params(
    params: &[Param],
    paths: &Paths,
    on_error: impl Fn(TokenStream) -> TokenStream,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let call_param = paths.p("CallParam");
    let ok = paths.p("Ok");
    let err = paths.p("Err");
    let mut lets = Vec::new();
    let mut args = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let var = quote::format_ident!("__phantom_arg{}", i);
        let ty = &p.ty;
        let wire = p.wire_name();
        let fail = on_error(quote!(__phantom_e));
        lets.push(quote_spanned! {syn::spanned::Spanned::span(ty)=>
            let #var = match <#ty as #call_param<'_>>::from_call(&parts, #wire) {
                #ok(v) => v,
                #err(__phantom_e) => return #fail,
            };
        });
        args.push(quote!(#var));
    }
    (lets, args)
}

fn args_fn(params: &[Param], paths: &Paths) -> TokenStream {
    let describe: Vec<TokenStream> = params
        .iter()
        .map(|p| {
            let ty = &p.ty;
            let wire = p.wire_name();
            let desc = opt_str(p.description.as_ref(), paths);
            let span = syn::spanned::Spanned::span(ty);
            match &p.header {
                None => quote_spanned!(span=> b.param::<#ty>(#wire, #desc);),
                Some(header) => {
                    let check = paths.p_at("assert_header_type", span);
                    quote_spanned! {span=>
                        #check::<#ty>();
                        b.param_header::<#ty>(#wire, #desc, #header);
                    }
                }
            }
        })
        .collect();
    quote!(|b| { #(#describe)* })
}

fn completions(params: &[Param], names: impl Fn(&Param) -> String, paths: &Paths) -> TokenStream {
    let vec = paths.p("Vec");
    let entries: Vec<TokenStream> = params
        .iter()
        .filter_map(|p| {
            let path = p.complete.as_ref()?;
            let name = names(p);
            let span = syn::spanned::Spanned::span(path);
            let assert_send = paths.p_at("assert_send", span);
            let complete_fn = paths.p("complete_fn");
            let into_completion = paths.p_at("IntoCompletion", span);
            Some(quote_spanned! {span=>
                (#name, #complete_fn(|this, value, cx| #assert_send(async move {
                    #into_completion::into_completion(#path(this, value, cx).await)
                })))
            })
        })
        .collect();
    quote!(#vec::from([#(#entries),*]))
}

fn icons(icons: &[LitStr]) -> TokenStream {
    quote!(&[#(#icons),*])
}

fn tool(t: &Tool, paths: &Paths) -> TokenStream {
    let h = &t.handler;
    let name = &t.name;
    let title = opt_str(t.title.as_ref(), paths);
    let desc = opt_text(description(t.description.as_ref(), h).as_deref(), paths);
    let tool_result = paths.p("ToolResult");
    let ready = paths.p("ready_boxed");
    let (lets, args) = call_params(
        &h.params,
        paths,
        |e| quote!(#ready(#tool_result::error(#e))),
    );
    let body = mapped(
        h,
        &lets,
        &args,
        ("IntoToolResult", "into_tool_result"),
        paths,
    );
    let ret_span = ret_span(h);
    let ret = h
        .ret
        .clone()
        .unwrap_or_else(|| syn::parse_quote_spanned!(ret_span=> ()));
    let into = paths.p_at("IntoToolResult", ret_span);
    let output = quote_spanned!(ret_span=> <#ret as #into>::output_schema);
    let args_fn = args_fn(&h.params, paths);
    let annotations = paths.p("ToolAnnotations");
    let read_only = opt_bool(t.read_only.then_some(true), paths);
    let destructive = opt_bool(t.destructive, paths);
    let idempotent = opt_bool(t.idempotent.then_some(true), paths);
    let open_world = opt_bool(t.open_world, paths);
    let icons = icons(&t.icons);
    let requires = &t.requires;
    let meta_value = paths.p("MetaValue");
    let meta: Vec<TokenStream> = t
        .meta
        .iter()
        .map(|(k, v)| {
            let v = match v {
                Lit::Str(s) => quote!(#meta_value::Str(#s)),
                Lit::Int(i) => quote!(#meta_value::Int(#i)),
                Lit::Float(f) => quote!(#meta_value::Float(#f)),
                Lit::Bool(b) => quote!(#meta_value::Bool(#b)),
                _ => unreachable!("checked in parse"),
            };
            quote!((#k, #v))
        })
        .collect();
    let def = paths.p("ToolDef");
    quote! {
        #def {
            name: #name,
            title: #title,
            description: #desc,
            annotations: #annotations { read_only: #read_only, destructive: #destructive, idempotent: #idempotent, open_world: #open_world },
            icons: #icons,
            meta: &[#(#meta),*],
            requires: &[#(#requires),*],
            args: #args_fn,
            output: #output,
            call: |this, parts| { #body },
        }
    }
}

fn prompt(p: &Prompt, paths: &Paths) -> TokenStream {
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

fn resource(r: &Resource, paths: &Paths) -> TokenStream {
    let h = &r.handler;
    let Some(template) = &r.template else {
        return TokenStream::new();
    };
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
    let convert = convert(
        h,
        ("IntoContents", "into_contents"),
        &call,
        &quote!(, parts.target()),
        paths,
    );
    let body = boxed(h, &quote!(#(#lets)* #convert), paths);
    let lit = &r.lit;
    let name = &r.name;
    let title = opt_str(r.title.as_ref(), paths);
    let desc = opt_text(description(r.description.as_ref(), h).as_deref(), paths);
    let mime = opt_str(r.mime_type.as_ref(), paths);
    let size = match &r.size {
        Some(s) => {
            let some = paths.p("Some");
            quote!(#some(#s))
        }
        None => paths.p("None"),
    };
    let icons = icons(&r.icons);
    let completions = completions(&h.params, |p| p.ident.to_string(), paths);
    let def = paths.p("ResourceDef");
    quote! {
        #def {
            template: #lit,
            name: #name,
            title: #title,
            description: #desc,
            mime_type: #mime,
            size: #size,
            icons: #icons,
            read: |this, parts| #body,
            completions: #completions,
        }
    }
}

/// The full expansion: the user's impl (markers stripped, callbacks moved) plus the generated
/// `Server` impl.
pub(crate) fn expand(router: &Router, item: &ItemImpl) -> TokenStream {
    let paths = Paths::new(router.attrs.krate.as_ref());
    let self_ty: &Type = &router.self_ty;
    let a = &router.attrs;
    let name = a
        .name
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_NAME")), |n| quote!(#n));
    let version = a
        .version
        .as_ref()
        .map_or_else(|| quote!(::core::env!("CARGO_PKG_VERSION")), |v| quote!(#v));
    let title = opt_str(a.title.as_ref(), &paths);
    let instructions = opt_str(a.instructions.as_ref(), &paths);
    let website = opt_str(a.website_url.as_ref(), &paths);
    let router_icons = icons(&a.icons);
    let tools: Vec<TokenStream> = router.tools.iter().map(|t| tool(t, &paths)).collect();
    let prompts: Vec<TokenStream> = router.prompts.iter().map(|p| prompt(p, &paths)).collect();
    let resources: Vec<TokenStream> = router
        .resources
        .iter()
        .map(|r| resource(r, &paths))
        .collect();
    let callback = paths.p("Callback");
    let overrides: Vec<TokenStream> = router
        .callbacks
        .iter()
        .map(|c| {
            let variant: String = c
                .name
                .split('_')
                .map(|w| w[..1].to_ascii_uppercase() + &w[1..])
                .collect();
            let variant = syn::Ident::new(&variant, Span::call_site());
            quote!(#callback::#variant)
        })
        .collect();
    // A callback becomes a trait method: a `pub` written on it is dropped, not an error.
    let callbacks: Vec<syn::ImplItemFn> = router
        .callbacks
        .iter()
        .map(|c| syn::ImplItemFn {
            vis: syn::Visibility::Inherited,
            ..c.item.clone()
        })
        .collect();
    let marker_paths = &router.marker_paths;
    let server = paths.p("Server");
    let router_ty = paths.p("Router");
    let router_def = paths.p("RouterDef");
    let router_info = paths.p("RouterInfo");
    let once = paths.p("OnceLock");
    let vec = paths.p("Vec");
    quote! {
        #item

        #[allow(non_local_definitions, clippy::all, clippy::pedantic)]
        const _: () = {
            #(
                #[allow(unused_imports)]
                use #marker_paths as _;
            )*

            #[automatically_derived]
            impl #server for #self_ty {
                #(#callbacks)*

                fn __router() -> &'static #router_ty<Self> {
                    static ROUTER: #once<#router_ty<#self_ty>> = #once::new();
                    ROUTER.get_or_init(|| #router_ty::build(#router_def {
                        info: #router_info {
                            name: #name,
                            version: #version,
                            title: #title,
                            instructions: #instructions,
                            icons: #router_icons,
                            website_url: #website,
                        },
                        tools: #vec::from([#(#tools),*]),
                        prompts: #vec::from([#(#prompts),*]),
                        resources: #vec::from([#(#resources),*]),
                        overrides: &[#(#overrides),*],
                    }))
                }
            }
        };
    }
}
