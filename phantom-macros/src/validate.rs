//! Checks that need the whole model: names, duplicates, URI parameters ↔ arguments, collisions,
//! callback signatures.

use std::collections::HashMap;

use quote::ToTokens;
use syn::FnArg;

use crate::ctxt::{Ctxt, closest};
use crate::model::{CALLBACKS, Item, Router};

/// What is wrong with a tool name, if anything (MCP: 1 to 128 characters of `A-Z a-z 0-9 _ . -`).
fn tool_name_error(name: &str) -> Option<String> {
    const HELP: &str = "help: tool names are 1 to 128 characters of `A-Z a-z 0-9 _ . -`; set one with `#[tool(name = \"…\")]`";
    let len = name.chars().count();
    if len == 0 {
        return Some(format!("tool name cannot be empty\n       {HELP}"));
    }
    if len > 128 {
        return Some(format!(
            "tool name is {len} characters long; the limit is 128\n       {HELP}"
        ));
    }
    let bad = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "_.-".contains(*c)))?;
    let shown = if bad == ' ' {
        "a space".to_owned()
    } else {
        format!("`{bad}`")
    };
    Some(format!(
        "tool name `{name}` contains {shown}, which is not allowed\n       {HELP}"
    ))
}

pub(crate) fn router(cx: &Ctxt, router: &Router) {
    for tool in &router.tools {
        if let Some(msg) = tool_name_error(&tool.item.name) {
            cx.error_at(tool.item.name_span, msg);
        }
    }
    unique_names(
        cx,
        "tool",
        router.tools.iter().map(|t| &t.item),
        "tool names must be unique; rename one with `#[tool(name = \"…\")]`",
    );
    for prompt in &router.prompts {
        if prompt.item.name.is_empty() {
            cx.error_at(
                prompt.item.name_span,
                "prompt name cannot be empty\n       help: remove `name = \"\"` to use the method name, or write a name",
            );
        }
    }
    unique_names(
        cx,
        "prompt",
        router.prompts.iter().map(|p| &p.item),
        "prompt names must be unique; rename one with `#[prompt(name = \"…\")]`",
    );
    unique_names(
        cx,
        "resource",
        router.resources.iter().map(|r| &r.item),
        "resource names must be unique, as allow-lists refer to resources by name; rename one with `#[resource(\"…\", name = \"…\")]`",
    );
    resources(cx, router);
    callbacks(cx, router);
    headers_and_requirements(cx, router);
}

/// Reports every item whose name an earlier item of the same kind already has.
fn unique_names<'a>(cx: &Ctxt, kind: &str, items: impl Iterator<Item = &'a Item>, help: &str) {
    let mut seen: HashMap<&str, &syn::Ident> = HashMap::new();
    for item in items {
        if let Some(first) = seen.insert(&item.name, &item.handler.ident) {
            cx.error_at(
                item.name_span,
                format!(
                    "duplicate {kind} name `{}`: already used by method `{first}`\n       help: {help}",
                    item.name
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
fn headers_and_requirements(cx: &Ctxt, router: &Router) {
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

fn resources(cx: &Ctxt, router: &Router) {
    let parsed: Vec<_> = router
        .resources
        .iter()
        .filter_map(|r| r.template.as_ref().map(|t| (r, t)))
        .collect();
    for (i, (res, template)) in parsed.iter().enumerate() {
        for (other, other_t) in &parsed[..i] {
            if template == other_t {
                cx.error_at(
                    res.lit.span(),
                    format!(
                        "duplicate resource template `{}`: `{}` already serves it\n       help: remove one of the two handlers",
                        res.lit.value(),
                        other.item.handler.ident
                    ),
                );
            } else if template.collides_with(other_t) {
                cx.error_at(
                    res.lit.span(),
                    format!(
                        "resource template `{}` collides with `{}` of `{}`: both match the same URIs\n       help: make one segment a literal, or merge the two handlers",
                        res.lit.value(),
                        other.lit.value(),
                        other.item.handler.ident
                    ),
                );
            }
        }
        let params: Vec<&str> = template.params().collect();
        let args: Vec<String> = res
            .item
            .handler
            .params
            .iter()
            .map(|p| p.ident.to_string())
            .collect();
        for param in &params {
            if args.iter().any(|a| a == param) {
                continue;
            }
            let unmatched = args
                .iter()
                .filter(|a| !params.contains(&a.as_str()))
                .map(String::as_str);
            let help = match closest(param, unmatched) {
                Some(arg) => format!(
                    "rename the argument `{arg}` to `{param}`, or the parameter to `<{arg}>`"
                ),
                None => format!(
                    "add an argument `{param}: T` where `T: phantom::FromUriParam`, or remove `<{param}>`"
                ),
            };
            cx.error_at(
                res.lit.span(),
                format!("URI parameter `<{param}>` has no matching argument in `{}`\n       help: {help}", res.item.handler.ident),
            );
        }
        for p in &res.item.handler.params {
            let Some(attr) = &p.complete_attr else {
                continue;
            };
            if !params.contains(&p.ident.to_string().as_str()) {
                cx.error_spanned_by(
                    attr,
                    format!(
                        "`#[complete]` on `{}`, which is not a URI parameter of `{}`\n       help: remove `#[complete(...)]`; only `<param>` segments are completed",
                        p.ident,
                        res.lit.value()
                    ),
                );
            }
        }
    }
}

fn callbacks(cx: &Ctxt, router: &Router) {
    for cb in &router.callbacks {
        let &(_, arity, shape) = CALLBACKS
            .iter()
            .find(|(n, _, _)| *n == cb.name)
            .expect("known callback");
        let sig = &cb.item.sig;
        let name = cb.name;
        let receiver_ok = matches!(sig.inputs.first(), Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() && r.colon_token.is_none());
        let count = sig
            .inputs
            .iter()
            .filter(|a| matches!(a, FnArg::Typed(_)))
            .count();
        if sig.asyncness.is_none() {
            cx.error_spanned_by(
                sig.fn_token,
                format!("callback `{name}` must be an `async fn`\n       help: write `{shape}`"),
            );
        } else if !sig.generics.params.is_empty() {
            cx.error_spanned_by(
                &sig.generics,
                format!("callback `{name}` cannot be generic\n       help: write `{shape}`"),
            );
        } else if !receiver_ok {
            let found = match sig.inputs.first() {
                Some(FnArg::Receiver(r)) => r.to_token_stream(),
                _ => sig.ident.to_token_stream(),
            };
            cx.error_spanned_by(
                found,
                format!("callback `{name}` takes `&self`\n       help: write `{shape}`"),
            );
        } else if count != arity {
            let plural = if arity == 1 { "" } else { "s" };
            cx.error_at(
                sig.ident.span(),
                format!(
                    "callback `{name}` takes {arity} parameter{plural} after `&self`, found {count}\n       help: write `{shape}`"
                ),
            );
        }
    }
}
