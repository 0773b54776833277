//! Attribute macros of phantom. Do not depend on this crate directly: depend on `phantom-mcp` and
//! use `phantom::mcp_router` and friends; their documentation lives there.

mod codegen;
mod ctxt;
mod debug;
mod embed;
mod fallback;
mod model;
mod parse;
mod paths;
#[cfg(test)]
mod snapshots;
mod validate;

use proc_macro::TokenStream;

/// See `phantom::mcp_router`.
#[proc_macro_attribute]
pub fn mcp_router(args: TokenStream, input: TokenStream) -> TokenStream {
    let input = input.into();
    let output = expand_router(args.into(), &input);
    if debug::enabled() {
        debug::print(&input, &output);
    }
    output.into()
}

fn expand_router(
    args: proc_macro2::TokenStream,
    input: &proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let mut item: syn::ItemImpl = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let err = syn::Error::new(
                proc_macro2::Span::call_site(),
                "`#[mcp_router]` goes on an `impl` block\n       help: write `#[mcp_router(name = \"…\", version = \"…\")] impl MyServer { … }`",
            )
            .to_compile_error();
            return quote::quote!(#input #err);
        }
    };
    let cx = ctxt::Ctxt::new();
    let attrs = parse::router_attrs(&cx, args);
    let router = parse::router(&cx, attrs, &mut item);
    validate::router(&cx, &router);
    match cx.check() {
        Ok(()) => codegen::expand(&router, &item),
        Err(errors) => fallback::expand(Some(&router), &item, &errors),
    }
}

fn outside(marker: &str, input: TokenStream) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    let msg = format!(
        "`#[{marker}]` must be inside an `#[mcp_router]` impl block\n       help: move this method into the `impl` block marked `#[mcp_router(...)]`"
    );
    let err = syn::Error::new(proc_macro2::Span::call_site(), msg).to_compile_error();
    quote::quote!(#input #err).into()
}

/// See `phantom::tool`.
#[proc_macro_attribute]
pub fn tool(_args: TokenStream, input: TokenStream) -> TokenStream {
    outside("tool", input)
}

/// See `phantom::prompt`.
#[proc_macro_attribute]
pub fn prompt(_args: TokenStream, input: TokenStream) -> TokenStream {
    outside("prompt", input)
}

/// See `phantom::resource`.
#[proc_macro_attribute]
pub fn resource(_args: TokenStream, input: TokenStream) -> TokenStream {
    outside("resource", input)
}

/// See `phantom::embed_skill!`: `embed_skill!(<phantom's path>, "dir")`.
#[proc_macro]
pub fn embed_skill(input: TokenStream) -> TokenStream {
    embed::expand(input.into()).into()
}

/// See `phantom::task_handler`.
#[proc_macro_attribute]
pub fn task_handler(_args: TokenStream, input: TokenStream) -> TokenStream {
    outside("task_handler", input)
}

/// See `phantom::skill`.
#[proc_macro_attribute]
pub fn skill(_args: TokenStream, input: TokenStream) -> TokenStream {
    outside("skill", input)
}
