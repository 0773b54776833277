//! Generated code: the descriptor tables and one small trampoline per handler, inside
//! `const _: () = { … };`, every path through [`Paths`].

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::{ItemImpl, Type};

use crate::model::{Handler, Item, Param, Router};
use crate::paths::Paths;

mod prompt;
mod resource;
mod skill;
mod tool;

/// `Some(value)` or `None`, through the private paths.
fn opt<T: ToTokens>(value: Option<T>, paths: &Paths) -> TokenStream {
    match value {
        Some(value) => {
            let some = paths.p("Some");
            quote!(#some(#value))
        }
        None => paths.p("None"),
    }
}

/// The fields every descriptor has: `name`, `title`, `description` (explicit, else the doc
/// comment), `icons` and `scopes`.
fn listing(item: &Item, paths: &Paths) -> TokenStream {
    let name = &item.name;
    let title = opt(item.title.as_ref(), paths);
    let description = opt(item.description(), paths);
    let icons = &item.icons;
    let scopes = &item.scopes;
    quote! {
        name: #name,
        title: #title,
        description: #description,
        icons: &[#(#icons),*],
        scopes: &[#(#scopes),*],
    }
}

/// The private helpers a trampoline hands the handler's result to: `mapped` boxes an `async`
/// handler's future with the conversion of its output mapped over it, `ready` takes a value
/// ready at once (a plain `fn` handler's, or an argument error).
#[derive(Clone, Copy)]
struct Wrap {
    mapped: &'static str,
    ready: &'static str,
}

/// A prompt's: a boxed future in every case.
const BOXED: Wrap = Wrap {
    mapped: "map_boxed",
    ready: "ready_boxed",
};

/// A tool's: a value ready at once is not boxed (`ToolFuture`).
const TOOL: Wrap = Wrap {
    mapped: "tool_mapped",
    ready: "tool_ready",
};

/// The trampoline of a tool or prompt: reads each argument (`on_error` turns a failure into the
/// early return), then calls the handler and converts its output with `conversion`.
fn trampoline(
    handler: &Handler,
    on_error: impl Fn(TokenStream) -> TokenStream,
    conversion: (&str, &str),
    wrap: Wrap,
    paths: &Paths,
) -> TokenStream {
    let (lets, args) = call_params(&handler.params, paths, on_error);
    mapped(handler, &lets, &args, conversion, wrap, paths)
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
    wrap: Wrap,
    paths: &Paths,
) -> TokenStream {
    let ident = &handler.ident;
    let name_span = handler.ident.span();
    let ret_span = ret_span(handler);
    let path = paths.p_at(trait_, ret_span);
    let method = syn::Ident::new(method, ret_span);
    if handler.is_async {
        let mapped = paths.p_at(wrap.mapped, name_span);
        let convert = quote_spanned!(ret_span=> |__phantom_ret| #path::#method(__phantom_ret));
        quote_spanned! {name_span=>
            #(#lets)*
            #mapped(Self::#ident(this, #(#args),*), #convert)
        }
    } else {
        let ready = paths.p_at(wrap.ready, name_span);
        let convert = quote_spanned! {ret_span=>
            let __phantom_ret = Self::#ident(this, #(#args),*);
            #path::#method(__phantom_ret)
        };
        quote_spanned! {name_span=>
            #(#lets)*
            #ready({ #convert })
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

fn call_params(
    params: &[Param],
    paths: &Paths,
    on_error: impl Fn(TokenStream) -> TokenStream,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let call_param = paths.p("ReadParam");
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
            let desc = opt(p.description.as_ref(), paths);
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
            let call = paths.p_at("call_completion", span);
            Some(quote_spanned! {span=>
                (#name, #complete_fn(|this, value, cx| #assert_send(async move {
                    #into_completion::into_completion(#call(#path, this, value, cx).await)
                })))
            })
        })
        .collect();
    quote!(#vec::from([#(#entries),*]))
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
    let title = opt(a.title.as_ref(), &paths);
    let instructions = opt(a.instructions.as_ref(), &paths);
    let website = opt(a.website_url.as_ref(), &paths);
    let tool_timeout = match a.tool_timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(#ms)),
        None => quote!(::core::option::Option::None),
    };
    let router_icons = &a.icons;
    let tools: Vec<TokenStream> = router.tools.iter().map(|t| tool::def(t, &paths)).collect();
    let prompts: Vec<TokenStream> = router
        .prompts
        .iter()
        .map(|p| prompt::def(p, &paths))
        .collect();
    let resources: Vec<TokenStream> = router
        .resources
        .iter()
        .map(|r| resource::def(r, &paths))
        .collect();
    let skills: Vec<TokenStream> = router
        .skills
        .iter()
        .map(|s| skill::def(s, &paths))
        .collect();
    let callback = paths.p("Callback");
    let overrides: Vec<TokenStream> = router
        .callbacks
        .iter()
        .map(|c| {
            let flag = syn::Ident::new(c.spec.flag, Span::call_site());
            quote!(#callback::#flag)
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
                            icons: &[#(#router_icons),*],
                            website_url: #website,
                            tool_timeout_ms: #tool_timeout,
                        },
                        tools: #vec::from([#(#tools),*]),
                        prompts: #vec::from([#(#prompts),*]),
                        resources: #vec::from([#(#resources),*]),
                        skills: #vec::from([#(#skills),*]),
                        overrides: &[#(#overrides),*],
                    }))
                }
            }
        };
    }
}
