//! Checks of handler arguments: borrowed arguments, `#[complete(with = …)]` paths,
//! `#[arg(header = …)]` names and `#[tool(requires = […])]` capability paths.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::visit_mut::VisitMut;
use syn::{FnArg, Type, parse_quote};

use crate::ctxt::{Ctxt, code};
use crate::model::{Param, Router};

/// Context parameters handlers take by reference, by last path segment. This list only decides
/// whether a borrowed argument gets the "take an owned type" error; whether a type may be a
/// parameter at all is for the `CallParam` bound to say.
const CONTEXT_TYPES: &[&str] = &["Session", "Request", "AuthInfo"];

/// Tool and prompt arguments are deserialized from the request into owned values; a borrowed one
/// (`query: &str`) fails with "`Deserialize` is not general enough", twice, inside generated code.
/// Reported once instead, at the reference, with the owned type to write.
pub(super) fn borrowed(cx: &Ctxt, router: &Router) {
    let tools = router.tools.iter().map(|t| &t.item.handler);
    let prompts = router.prompts.iter().map(|p| &p.item.handler);
    for p in tools.chain(prompts).flat_map(|h| &h.params) {
        let mut owned = p.ty.clone();
        let mut own = OwnBorrows { first: None };
        own.visit_type_mut(&mut owned);
        let Some(reference) = own.first else {
            continue;
        };
        let ident = &p.ident;
        cx.error_spanned_by(
            reference,
            format!(
                "borrowed argument `{ident}: {}` cannot be deserialized from the request\n       help: take an owned type: `{ident}: {}`",
                code(&p.ty),
                code(&owned),
            ),
        );
    }
}

/// Replaces every reference in a type, other than to a context type, with the owned type
/// (`&str` → `String`, `&[T]` → `Vec<T>`, `&T` → `T`), remembering the first one replaced.
struct OwnBorrows {
    first: Option<TokenStream>,
}

impl VisitMut for OwnBorrows {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Reference(r) = ty
            && !is_context(&r.elem)
        {
            self.first.get_or_insert_with(|| r.to_token_stream());
            *ty = owned(&r.elem);
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

fn is_context(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| CONTEXT_TYPES.iter().any(|c| s.ident == c)))
}

/// What to take instead of a borrow of `ty`.
fn owned(ty: &Type) -> Type {
    match ty {
        Type::Path(p) if p.path.is_ident("str") => parse_quote!(String),
        Type::Path(p) if p.path.is_ident("Path") => parse_quote!(PathBuf),
        Type::Slice(s) => {
            let elem = &s.elem;
            parse_quote!(Vec<#elem>)
        }
        Type::TraitObject(_) => parse_quote!(Box<#ty>),
        other => other.clone(),
    }
}

/// What a completion function is, for `help:` lines.
const COMPLETION_FN: &str =
    "async fn ids(&self, value: &str, cx: &CompleteContext<'_>) -> Vec<String>";

/// `#[complete(with = …)]` paths that name a method of the impl block: a bare `with = "ids"` is
/// looked up outside the impl, where rustc finds no `ids` and does not suggest `Self::ids`; and
/// `with = "Self::ids"` must have the signature of a completion function, which is checked here,
/// at the `with` value, before rustc reports an argument count inside the generated call.
/// Functions outside the impl are checked by the `CompletionFn` bound of the generated code.
pub(super) fn completion_paths(cx: &Ctxt, router: &Router) {
    let prompts = router.prompts.iter().map(|p| &p.item.handler);
    let resources = router.resources.iter().map(|r| &r.item.handler);
    for p in prompts.chain(resources).flat_map(|h| &h.params) {
        let Param {
            complete: Some(path),
            ..
        } = p
        else {
            continue;
        };
        if path.qself.is_some() {
            continue;
        }
        if let Some(ident) = path.path.get_ident() {
            if router.methods.iter().any(|m| m.ident == *ident) {
                cx.error_spanned_by(
                    path,
                    format!(
                        "`with = \"{ident}\"` does not name the method `{ident}`: a bare name is looked up outside the impl\n       help: write `with = \"Self::{ident}\"`"
                    ),
                );
            }
            continue;
        }
        let segments = &path.path.segments;
        if path.path.leading_colon.is_some() || segments.len() != 2 || segments[0].ident != "Self" {
            continue;
        }
        let name = &segments[1].ident;
        if let Some(sig) = router.methods.iter().find(|m| m.ident == *name)
            && let Some(why) = completion_signature_error(sig)
        {
            cx.error_spanned_by(
                path,
                format!(
                    "`Self::{name}` is not a completion function: {why}\n       help: write `{}`; it may return any `impl IntoCompletion` (`Vec<String>`, `Completion`, or a `Result` of one)",
                    COMPLETION_FN.replace("ids", &name.to_string()),
                ),
            );
        }
    }
}

/// What keeps a method of the impl block from being a completion function, if anything: it must
/// take `&self`, the partial value and the context (two references), and return a future.
/// Types inside the references are left to the compiler.
fn completion_signature_error(sig: &syn::Signature) -> Option<String> {
    let Some(FnArg::Receiver(found)) = sig.inputs.first() else {
        return Some("it takes no `&self`".to_owned());
    };
    if found.reference.is_none() || found.mutability.is_some() || found.colon_token.is_some() {
        return Some(format!("it takes `{}`, not `&self`", code(found)));
    }
    let params: Vec<&syn::PatType> = sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(pt) => Some(pt),
            FnArg::Receiver(_) => None,
        })
        .collect();
    if params.len() != 2 {
        let plural = if params.len() == 1 { "" } else { "s" };
        return Some(format!(
            "it takes {} parameter{plural} after `&self`; a completion function takes 2, the partial value and the context",
            params.len()
        ));
    }
    for (pt, what, ty) in [
        (params[0], "the partial value", "&str"),
        (params[1], "the context", "&CompleteContext<'_>"),
    ] {
        if !matches!(&*pt.ty, Type::Reference(r) if r.mutability.is_none()) {
            return Some(format!(
                "it takes {what} as `{}`, not as `{ty}`",
                code(&pt.ty)
            ));
        }
    }
    let returns_future = match &sig.output {
        syn::ReturnType::Default => false,
        syn::ReturnType::Type(_, ty) => code(ty).contains("Future"),
    };
    if sig.asyncness.is_none() && !returns_future {
        return Some("it is not an `async fn`".to_owned());
    }
    None
}

fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+.^_`|~-".contains(c))
}

/// `#[arg(header = "…")]` names (valid HTTP tokens, unique per tool, tools only) and
/// `#[tool(requires = [...])]` capability paths.
pub(super) fn headers_and_requirements(cx: &Ctxt, router: &Router) {
    for tool in &router.tools {
        let mut seen: Vec<String> = Vec::new();
        for p in &tool.item.handler.params {
            let Some(header) = &p.header else { continue };
            let name = header.value();
            if !is_token(&name) {
                cx.error_at(
                    header.span(),
                    format!(
                        "`{name}` is not a valid HTTP header name\n       help: use letters, digits and `-`, e.g. `header = \"Region\"` (sent as `Mcp-Param-Region`)"
                    ),
                );
            } else if seen.iter().any(|s| s.eq_ignore_ascii_case(&name)) {
                cx.error_at(
                    header.span(),
                    format!(
                        "header `{name}` is used twice in `{}` (header names are case-insensitive)\n       help: give each argument its own header name",
                        tool.item.name
                    ),
                );
            }
            seen.push(name);
        }
        for req in &tool.requires {
            let value = req.value();
            let ok = !value.is_empty()
                && value.split('.').all(|seg| {
                    !seg.is_empty() && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            if !ok {
                cx.error_at(
                    req.span(),
                    format!(
                        "`{value}` is not a client capability name\n       help: name a capability such as `\"sampling\"`, `\"roots\"` or `\"elicitation.url\"`"
                    ),
                );
            }
        }
    }
    let items = (router.tools.iter().map(|t| &t.item))
        .chain(router.prompts.iter().map(|p| &p.item))
        .chain(router.resources.iter().map(|r| &r.item))
        .chain(router.skills.iter().map(|s| &s.item));
    for item in items {
        scopes(cx, item);
    }
    for prompt in &router.prompts {
        for p in &prompt.item.handler.params {
            if let Some(header) = &p.header {
                cx.error_at(
                    header.span(),
                    "`header` applies to tool arguments only (`Mcp-Param-*` headers mirror `tools/call` arguments)\n       help: remove `header = …`",
                );
            }
        }
    }
}

/// `scopes = [...]` of a tool, prompt, resource or skill: each an RFC 6749 scope token
/// (printable ASCII, no space, `"` or `\`), none twice.
fn scopes(cx: &Ctxt, item: &crate::model::Item) {
    let mut seen: Vec<String> = Vec::new();
    for scope in &item.scopes {
        let value = scope.value();
        let ok = !value.is_empty()
            && value
                .chars()
                .all(|c| c.is_ascii_graphic() && c != '"' && c != '\\');
        if !ok {
            cx.error_at(
                scope.span(),
                format!(
                    "`{value}` is not an OAuth scope (RFC 6749: printable ASCII without spaces, `\"` or `\\`)\n       help: write one scope per string, e.g. `scopes = [\"notes:read\", \"notes:write\"]`"
                ),
            );
        } else if seen.contains(&value) {
            cx.error_at(
                scope.span(),
                format!(
                    "scope `{value}` is listed twice in `{}`\n       help: list each scope once",
                    item.name
                ),
            );
        }
        seen.push(value);
    }
}
