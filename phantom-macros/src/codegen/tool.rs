//! The descriptor of a `#[tool]` and its trampoline.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Lit;

use super::{TOOL, args_fn, listing, opt, ret_span, trampoline};
use crate::model::Tool;
use crate::paths::Paths;

/// The `ToolDef` of one `#[tool]`.
pub(super) fn def(t: &Tool, paths: &Paths) -> TokenStream {
    let h = &t.item.handler;
    let listing = listing(&t.item, paths);
    let tool_result = paths.p("ToolResult");
    let tool_output = paths.p("ToolOutput");
    let ready = paths.p(TOOL.ready);
    let body = trampoline(
        h,
        |e| quote!(#ready(#tool_output::Result(#tool_result::error(#e)))),
        ("ToolOutput", "new"),
        TOOL,
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
    let read_only = opt(t.read_only.then_some(true), paths);
    let destructive = opt(t.destructive, paths);
    let idempotent = opt(t.idempotent.then_some(true), paths);
    let open_world = opt(t.open_world, paths);
    let requires = &t.requires;
    let timeout = match t.timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(#ms)),
        None => quote!(::core::option::Option::None),
    };
    let task = match t.task {
        Some(o) => {
            let support = paths.p("TaskSupport");
            let ttl = opt(o.ttl_ms, paths);
            let poll = opt(o.poll_interval_ms, paths);
            let (required, prepare) = (o.required, o.prepare);
            let some = paths.p("Some");
            quote!(#some(#support { required: #required, ttl_ms: #ttl, poll_interval_ms: #poll, prepare: #prepare }))
        }
        None => paths.p("None"),
    };
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
    let ui = match &t.ui {
        Some(uri) => {
            let tool_ui = paths.p("ToolUi");
            let some = paths.p("Some");
            let visibility: Vec<&syn::Expr> = t
                .visibility
                .as_ref()
                .map(|v| v.elems.iter().collect())
                .unwrap_or_default();
            quote!(#some(#tool_ui { resource_uri: #uri, visibility: &[#(#visibility),*] }))
        }
        None => paths.p("None"),
    };
    let def = paths.p("ToolDef");
    quote! {
        #def {
            #listing
            annotations: #annotations { read_only: #read_only, destructive: #destructive, idempotent: #idempotent, open_world: #open_world },
            meta: &[#(#meta),*],
            requires: &[#(#requires),*],
            timeout_ms: #timeout,
            task: #task,
            ui: #ui,
            args: #args_fn,
            output: #output,
            call: |this, parts| { #body },
        }
    }
}
