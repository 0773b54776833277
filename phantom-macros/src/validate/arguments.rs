//! Checks of handler arguments: borrowed arguments, `#[complete(with = …)]` paths,
//! `#[arg(header = …)]` names and `#[tool(requires = […])]` capability paths.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::visit_mut::VisitMut;
use syn::{Type, parse_quote};

use crate::ctxt::{Ctxt, code};
use crate::model::{Param, Router};

/// Context parameters handlers take by reference, by last path segment. This list only decides
/// whether a borrowed argument gets the "take an owned type" error; whether a type may be a
/// parameter at all is for the `CallParam` bound to say.
const CONTEXT_TYPES: &[&str] = &["Session", "Request"];

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

/// `#[complete(with = "ids")]` where `ids` is a method of the impl: a bare name is looked up
/// outside the impl, where rustc finds no `ids` and does not suggest `Self::ids`.
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
        let Some(ident) = path.path.get_ident() else {
            continue;
        };
        if path.qself.is_none() && router.methods.contains(ident) {
            cx.error_spanned_by(
                path,
                format!(
                    "`with = \"{ident}\"` does not name the method `{ident}`: a bare name is looked up outside the impl\n       help: write `with = \"Self::{ident}\"`"
                ),
            );
        }
    }
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
        scopes(cx, tool);
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

/// `#[tool(scopes = [...])]`: each an RFC 6749 scope token (printable ASCII, no space, `"` or
/// `\`), none twice.
fn scopes(cx: &Ctxt, tool: &crate::model::Tool) {
    let mut seen: Vec<String> = Vec::new();
    for scope in &tool.scopes {
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
                    tool.item.name
                ),
            );
        }
        seen.push(value);
    }
}
