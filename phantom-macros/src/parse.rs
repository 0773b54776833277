//! Attribute grammars, marker stripping and doc text: tokens → [`model`](crate::model).

use phantom_uri::Template;
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{
    Attribute, ExprPath, FnArg, ImplItem, ImplItemFn, ItemImpl, Lit, LitStr, Pat, ReturnType,
};

use crate::ctxt::{Ctxt, closest, near_miss};
use crate::model::{
    CALLBACKS, Callback, Handler, Param, Prompt, Resource, Router, RouterAttrs, Tool,
};

/// The marker attributes `#[mcp_router]` understands on methods.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Tool,
    Prompt,
    Resource,
}

impl Marker {
    fn name(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::Resource => "resource",
        }
    }
}

/// Recognises `#[tool]`, `#[phantom::tool]` (or `#[<crate>::tool]`): the full path, not just its
/// last segment, so another crate's `#[x::tool]` is left alone.
fn marker_of(attr: &Attribute, krate: &syn::Path) -> Option<Marker> {
    let path = attr.path();
    let last = path.segments.last()?.ident.to_string();
    let marker = match last.as_str() {
        "tool" => Marker::Tool,
        "prompt" => Marker::Prompt,
        "resource" => Marker::Resource,
        _ => return None,
    };
    let n = path.segments.len();
    let prefix_ok = n == 1 || {
        let prefix: Vec<String> = path
            .segments
            .iter()
            .take(n - 1)
            .map(|s| s.ident.to_string())
            .collect();
        let krate: Vec<String> = krate.segments.iter().map(|s| s.ident.to_string()).collect();
        prefix == krate || prefix == ["phantom"]
    };
    prefix_ok.then_some(marker)
}

fn unknown_key(cx: &Ctxt, meta: &ParseNestedMeta<'_>, attr: &str, keys: &[&str]) {
    let found = meta
        .path
        .get_ident()
        .map_or_else(|| "?".to_owned(), ToString::to_string);
    let hint = match closest(&found, keys.iter().copied()) {
        Some(k) => format!("did you mean `{k}`?"),
        None => format!(
            "expected one of {}",
            keys.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    cx.error_spanned_by(
        &meta.path,
        format!("unknown `#[{attr}]` key `{found}`\n       help: {hint}"),
    );
    // Skip the value so parsing carries on.
    if meta.input.peek(syn::Token![=]) {
        let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(|m| {
            let _ = m.value().and_then(|v| v.parse::<syn::Expr>());
            Ok(())
        });
    }
}

fn lit_str(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

fn icons(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    let arr: syn::ExprArray = meta.value()?.parse()?;
    arr.elems
        .iter()
        .map(|e| match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => Ok(s.clone()),
            other => Err(syn::Error::new_spanned(
                other,
                "icons are string literals: `icons = [\"https://…/icon.png\"]`",
            )),
        })
        .collect()
}

/// Parses `#[mcp_router(...)]`.
pub(crate) fn router_attrs(cx: &Ctxt, args: TokenStream) -> RouterAttrs {
    const KEYS: &[&str] = &[
        "name",
        "version",
        "title",
        "instructions",
        "icons",
        "website_url",
        "crate",
    ];
    let mut attrs = RouterAttrs::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("name") {
            attrs.name = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("version") {
            attrs.version = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("title") {
            attrs.title = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("instructions") {
            attrs.instructions = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("website_url") {
            attrs.website_url = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("icons") {
            attrs.icons = icons(&meta)?;
        } else if meta.path.is_ident("crate") {
            attrs.krate = Some(lit_str(&meta)?.parse()?);
        } else {
            unknown_key(cx, &meta, "mcp_router", KEYS);
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(e);
    }
    attrs
}

fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|l| l.strip_prefix(' ').unwrap_or(&l).trim_end().to_owned())
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// Reads the parameters of a handler and strips `#[arg]` / `#[complete]` from them.
fn handler(cx: &Ctxt, marker: Marker, f: &mut ImplItemFn) -> Handler {
    let sig = &mut f.sig;
    let what = marker.name();
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            format!("`#[{what}]` handlers cannot be generic\n       help: use concrete types; phantom builds one schema per handler"),
        );
    }
    let mut params = Vec::new();
    let mut receiver_ok = false;
    for (i, input) in sig.inputs.iter_mut().enumerate() {
        match input {
            FnArg::Receiver(r) => {
                if r.reference.is_some() && r.mutability.is_none() && r.colon_token.is_none() {
                    receiver_ok = true;
                } else {
                    let found = r.to_token_stream().to_string().replace("& ", "&");
                    cx.error_spanned_by(
                        &*r,
                        format!("`#[{what}]` handlers take `&self`, found `{found}`\n       help: write `&self`; the server is shared by concurrent requests (use interior mutability for state)"),
                    );
                    receiver_ok = true;
                }
            }
            FnArg::Typed(pt) => {
                if i == 0 {
                    cx.error_spanned_by(
                        &*pt,
                        format!("`#[{what}]` handlers take `&self` first\n       help: add `&self` as the first parameter"),
                    );
                    receiver_ok = true;
                }
                let ident = match &*pt.pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
                    other => {
                        cx.error_spanned_by(
                            other,
                            "handler parameters must be plain names\n       help: bind the parameter to a name such as `query`, and destructure it in the body",
                        );
                        syn::Ident::new("__phantom_invalid", other.span())
                    }
                };
                let mut param = Param {
                    ident,
                    ty: (*pt.ty).clone(),
                    description: None,
                    rename: None,
                    complete: None,
                    header: None,
                    complete_attr: None,
                };
                pt.attrs.retain(|attr| {
                    if attr.path().is_ident("arg") {
                        if marker == Marker::Resource {
                            cx.error_spanned_by(
                                attr,
                                "`#[arg]` does not apply to resource parameters; their names come from the URI template\n       help: remove `#[arg(...)]`; describe the resource in its doc comment or with `description = \"…\"`",
                            );
                        } else {
                            param_arg(cx, attr, &mut param);
                        }
                        false
                    } else if attr.path().is_ident("complete") {
                        if marker == Marker::Tool {
                            cx.error_spanned_by(
                                attr,
                                "`#[complete]` applies to prompt arguments and resource parameters, not tool arguments\n       help: remove `#[complete(...)]`; MCP has no completion of tool arguments",
                            );
                        } else {
                            param_complete(cx, attr, &mut param);
                        }
                        false
                    } else {
                        true
                    }
                });
                params.push(param);
            }
        }
    }
    if !receiver_ok {
        cx.error_at(
            sig.ident.span(),
            format!("`#[{what}]` handler `{}` has no `&self`\n       help: add `&self` as the first parameter", sig.ident),
        );
    }
    let ret = match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    Handler {
        ident: sig.ident.clone(),
        is_async: sig.asyncness.is_some(),
        params,
        ret,
        doc: doc_text(&f.attrs),
    }
}

fn param_arg(cx: &Ctxt, attr: &Attribute, param: &mut Param) {
    let res = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("description") {
            param.description = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("rename") {
            param.rename = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("header") {
            param.header = Some(lit_str(&meta)?);
        } else {
            unknown_key(cx, &meta, "arg", &["description", "rename", "header"]);
        }
        Ok(())
    });
    if let Err(e) = res {
        cx.syn_error(e);
    }
}

fn param_complete(cx: &Ctxt, attr: &Attribute, param: &mut Param) {
    const HELP: &str = "write `#[complete(with = \"Self::ids\")]` where `async fn ids(&self, value: &str, cx: &CompleteContext<'_>) -> Vec<String>`";
    param.complete_attr = Some(attr.to_token_stream());
    if !matches!(attr.meta, syn::Meta::List(_)) {
        cx.error_spanned_by(
            attr,
            format!("`#[complete]` needs a completion function\n       help: {HELP}"),
        );
        return;
    }
    let mut reported = false;
    let res = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("with") {
            let lit = lit_str(&meta)?;
            param.complete = Some(lit.parse::<ExprPath>().map_err(|_| {
                syn::Error::new(
                    lit.span(),
                    format!(
                        "`with` must name a function, found `{}`\n       help: {HELP}",
                        lit.value()
                    ),
                )
            })?);
        } else {
            unknown_key(cx, &meta, "complete", &["with"]);
            reported = true;
        }
        Ok(())
    });
    if let Err(e) = res {
        cx.syn_error(e);
        reported = true;
    }
    if param.complete.is_none() && !reported {
        cx.error_spanned_by(
            attr,
            format!("`#[complete]` needs a completion function\n       help: {HELP}"),
        );
    }
}

fn check_name_lit(meta: &ParseNestedMeta<'_>) -> syn::Result<(String, Span)> {
    let lit = lit_str(meta)?;
    Ok((lit.value(), lit.span()))
}

fn tool(cx: &Ctxt, attr: &Attribute, f: &mut ImplItemFn) -> Tool {
    const KEYS: &[&str] = &[
        "name",
        "title",
        "description",
        "read_only",
        "destructive",
        "idempotent",
        "open_world",
        "icons",
        "meta",
        "requires",
    ];
    let handler = handler(cx, Marker::Tool, f);
    let mut t = Tool {
        name: handler.ident.to_string(),
        name_span: handler.ident.span(),
        handler,
        title: None,
        description: None,
        read_only: false,
        destructive: None,
        idempotent: false,
        open_world: None,
        icons: Vec::new(),
        meta: Vec::new(),
        requires: Vec::new(),
    };
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return t;
    }
    let flag = |meta: &ParseNestedMeta<'_>| -> syn::Result<bool> {
        if meta.input.peek(syn::Token![=]) {
            Ok(meta.value()?.parse::<syn::LitBool>()?.value)
        } else {
            Ok(true)
        }
    };
    let res = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("name") {
            (t.name, t.name_span) = check_name_lit(&meta)?;
        } else if meta.path.is_ident("title") {
            t.title = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("description") {
            t.description = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("read_only") {
            t.read_only = flag(&meta)?;
        } else if meta.path.is_ident("destructive") {
            t.destructive = Some(flag(&meta)?);
        } else if meta.path.is_ident("idempotent") {
            t.idempotent = flag(&meta)?;
        } else if meta.path.is_ident("open_world") {
            t.open_world = Some(flag(&meta)?);
        } else if meta.path.is_ident("icons") {
            t.icons = icons(&meta)?;
        } else if meta.path.is_ident("requires") {
            t.requires = icons(&meta).map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected a list of capability names for `requires`\n       help: write `requires = [\"sampling\", \"elicitation.url\"]`",
                )
            })?;
        } else if meta.path.is_ident("meta") {
            meta.parse_nested_meta(|entry| {
                let key = entry.path.get_ident().map(ToString::to_string).ok_or_else(|| {
                    entry.error("`meta` keys are identifiers or string literals: `meta(owner = \"team\")`")
                })?;
                let lit: Lit = entry.value()?.parse()?;
                match lit {
                    Lit::Str(_) | Lit::Int(_) | Lit::Float(_) | Lit::Bool(_) => {}
                    ref other => {
                        return Err(syn::Error::new_spanned(other, "`meta` values are string, integer, float or bool literals"));
                    }
                }
                t.meta.push((LitStr::new(&key, entry.path.span()), lit));
                Ok(())
            })?;
        } else {
            unknown_key(cx, &meta, "tool", KEYS);
        }
        Ok(())
    });
    if let Err(e) = res {
        cx.syn_error(e);
    }
    t
}

fn prompt(cx: &Ctxt, attr: &Attribute, f: &mut ImplItemFn) -> Prompt {
    let handler = handler(cx, Marker::Prompt, f);
    let mut p = Prompt {
        name: handler.ident.to_string(),
        name_span: handler.ident.span(),
        handler,
        title: None,
        description: None,
        icons: Vec::new(),
    };
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return p;
    }
    let res = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("name") {
            (p.name, p.name_span) = check_name_lit(&meta)?;
        } else if meta.path.is_ident("title") {
            p.title = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("description") {
            p.description = Some(lit_str(&meta)?);
        } else if meta.path.is_ident("icons") {
            p.icons = icons(&meta)?;
        } else {
            unknown_key(
                cx,
                &meta,
                "prompt",
                &["name", "title", "description", "icons"],
            );
        }
        Ok(())
    });
    if let Err(e) = res {
        cx.syn_error(e);
    }
    p
}

fn resource(cx: &Ctxt, attr: &Attribute, f: &mut ImplItemFn) -> Option<Resource> {
    const KEYS: &[&str] = &["name", "title", "description", "mime_type", "size", "icons"];
    let handler = handler(cx, Marker::Resource, f);
    let syn::Meta::List(list) = &attr.meta else {
        cx.error_spanned_by(
            attr,
            "`#[resource]` needs a URI template\n       help: write `#[resource(\"myapp:///items/<id>\")]`",
        );
        return None;
    };
    let mut lit: Option<LitStr> = None;
    let mut r = Resource {
        lit: LitStr::new("", Span::call_site()),
        template: None,
        name: handler.ident.to_string(),
        name_span: handler.ident.span(),
        handler,
        title: None,
        description: None,
        mime_type: None,
        size: None,
        icons: Vec::new(),
    };
    let parser = |input: syn::parse::ParseStream<'_>| -> syn::Result<()> {
        if input.peek(LitStr) {
            lit = Some(input.parse()?);
            if input.is_empty() {
                return Ok(());
            }
            input.parse::<syn::Token![,]>()?;
        }
        let rest: TokenStream = input.parse()?;
        let keys = syn::meta::parser(|meta| {
            if meta.path.is_ident("name") {
                (r.name, r.name_span) = check_name_lit(&meta)?;
            } else if meta.path.is_ident("title") {
                r.title = Some(lit_str(&meta)?);
            } else if meta.path.is_ident("description") {
                r.description = Some(lit_str(&meta)?);
            } else if meta.path.is_ident("mime_type") {
                r.mime_type = Some(lit_str(&meta)?);
            } else if meta.path.is_ident("size") {
                r.size = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("icons") {
                r.icons = icons(&meta)?;
            } else {
                unknown_key(cx, &meta, "resource", KEYS);
            }
            Ok(())
        });
        syn::parse::Parser::parse2(keys, rest)
    };
    if let Err(e) = syn::parse::Parser::parse2(parser, list.tokens.clone()) {
        cx.syn_error(e);
    }
    let Some(lit) = lit else {
        cx.error_spanned_by(
            attr,
            "`#[resource]` needs a URI template as its first argument\n       help: write `#[resource(\"myapp:///items/<id>\")]`",
        );
        return None;
    };
    match Template::parse(&lit.value()) {
        Ok(t) => r.template = Some(t),
        Err(e) => cx.error_at(
            lit.span(),
            format!("{}\n       help: {}", e.message(), e.help()),
        ),
    }
    r.lit = lit;
    Some(r)
}

/// Reads the impl block: collects handlers and callbacks, strips markers, leaves the rest.
pub(crate) fn router(cx: &Ctxt, attrs: RouterAttrs, item: &mut ItemImpl) -> Router {
    let krate = attrs
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(phantom));
    if let Some((_, path, _)) = &item.trait_ {
        cx.error_spanned_by(
            path,
            "`#[mcp_router]` goes on an inherent impl block, not a trait impl\n       help: write `#[mcp_router] impl MyServer { … }`",
        );
    }
    if !item.generics.params.is_empty() {
        cx.error_spanned_by(
            &item.generics,
            "`#[mcp_router]` does not support generic impl blocks\n       help: implement the router for a concrete type; keep generic state in a field (e.g. `Arc<dyn Store>`)",
        );
    }
    let mut router = Router {
        attrs,
        self_ty: (*item.self_ty).clone(),
        tools: Vec::new(),
        prompts: Vec::new(),
        resources: Vec::new(),
        callbacks: Vec::new(),
        marker_paths: Vec::new(),
    };
    let mut kept = Vec::with_capacity(item.items.len());
    for impl_item in std::mem::take(&mut item.items) {
        let ImplItem::Fn(mut f) = impl_item else {
            kept.push(impl_item);
            continue;
        };
        let mut markers = Vec::new();
        f.attrs.retain(|a| match marker_of(a, &krate) {
            Some(m) => {
                markers.push((m, a.clone()));
                false
            }
            None => true,
        });
        for (_, attr) in &markers {
            let path = attr.path();
            if !router.marker_paths.iter().any(|p| p == path) {
                router.marker_paths.push(path.clone());
            }
        }
        if markers.len() > 1 {
            cx.error_spanned_by(
                &markers[1].1,
                format!(
                    "`{}` already has `#[{}]`; a method is one tool, prompt or resource\n       help: remove one of the attributes",
                    f.sig.ident,
                    markers[0].0.name()
                ),
            );
        }
        let name = f.sig.ident.to_string();
        match markers.first() {
            Some((Marker::Tool, attr)) => {
                let t = tool(cx, attr, &mut f);
                router.tools.push(t);
            }
            Some((Marker::Prompt, attr)) => {
                let p = prompt(cx, attr, &mut f);
                router.prompts.push(p);
            }
            Some((Marker::Resource, attr)) => {
                if let Some(r) = resource(cx, attr, &mut f) {
                    router.resources.push(r);
                }
            }
            None => {
                if let Some(&(cb, _, _)) = CALLBACKS.iter().find(|(n, _, _)| *n == name) {
                    router.callbacks.push(Callback { name: cb, item: f });
                    continue;
                }
                if let Some(near) = near_miss(&name, CALLBACKS.iter().map(|(n, _, _)| *n))
                    && f.sig.receiver().is_some()
                {
                    cx.error_at(
                        f.sig.ident.span(),
                        format!(
                            "`{name}` is not a router callback; did you mean `{near}`?\n       help: rename it to `{near}` to override the callback, or move this helper to another `impl` block"
                        ),
                    );
                }
            }
        }
        kept.push(ImplItem::Fn(f));
    }
    item.items = kept;
    router
}
