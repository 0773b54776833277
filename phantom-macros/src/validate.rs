//! Checks that need the whole model: names, duplicates, URI parameters ↔ arguments, collisions,
//! callback signatures.

use std::collections::HashMap;

use syn::FnArg;

use crate::ctxt::{Ctxt, closest};
use crate::model::{CALLBACKS, Router};

fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

pub(crate) fn router(cx: &Ctxt, router: &Router) {
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for tool in &router.tools {
        if !valid_tool_name(&tool.name) {
            cx.error_at(
                tool.name_span,
                format!(
                    "invalid tool name `{}`: tool names are 1 to 128 characters of `A-Z a-z 0-9 _ . -`\n       help: pick another name with `#[tool(name = \"…\")]`",
                    tool.name
                ),
            );
        }
        if seen.insert(&tool.name, ()).is_some() {
            cx.error_at(
                tool.name_span,
                format!("duplicate tool name `{}`\n       help: tool names must be unique; rename one with `#[tool(name = \"…\")]`", tool.name),
            );
        }
    }
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for prompt in &router.prompts {
        if prompt.name.is_empty() {
            cx.error_at(prompt.name_span, "prompt names cannot be empty");
        }
        if seen.insert(&prompt.name, ()).is_some() {
            cx.error_at(
                prompt.name_span,
                format!("duplicate prompt name `{}`\n       help: rename one with `#[prompt(name = \"…\")]`", prompt.name),
            );
        }
    }
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for res in &router.resources {
        if seen.insert(&res.name, ()).is_some() {
            cx.error_at(
                res.name_span,
                format!(
                    "duplicate resource name `{}`; allow-lists refer to resources by name\n       help: rename one with `#[resource(\"…\", name = \"…\")]`",
                    res.name
                ),
            );
        }
    }
    resources(cx, router);
    callbacks(cx, router);
}

fn resources(cx: &Ctxt, router: &Router) {
    let parsed: Vec<_> = router.resources.iter().filter_map(|r| r.template.as_ref().map(|t| (r, t))).collect();
    for (i, (res, template)) in parsed.iter().enumerate() {
        for (other, other_t) in &parsed[..i] {
            if template == other_t {
                cx.error_at(
                    res.lit.span(),
                    format!(
                        "duplicate resource template `{}`: `{}` already serves it\n       help: remove one of the two handlers",
                        res.lit.value(),
                        other.handler.ident
                    ),
                );
            } else if template.collides_with(other_t) {
                cx.error_at(
                    res.lit.span(),
                    format!(
                        "resource template `{}` collides with `{}` of `{}`: both match the same URIs\n       help: make one segment a literal, or merge the two handlers",
                        res.lit.value(),
                        other.lit.value(),
                        other.handler.ident
                    ),
                );
            }
        }
        let params: Vec<&str> = template.params().collect();
        let args: Vec<String> = res.handler.params.iter().map(|p| p.ident.to_string()).collect();
        for param in &params {
            if args.iter().any(|a| a == param) {
                continue;
            }
            let unmatched = args.iter().filter(|a| !params.contains(&a.as_str())).map(String::as_str);
            let help = match closest(param, unmatched) {
                Some(arg) => format!("rename the argument `{arg}` to `{param}`, or the parameter to `<{arg}>`"),
                None => format!("add an argument `{param}: T` where `T: phantom::FromUriParam`, or remove `<{param}>`"),
            };
            cx.error_at(
                res.lit.span(),
                format!("URI parameter `<{param}>` has no matching argument in `{}`\n       help: {help}", res.handler.ident),
            );
        }
        for p in &res.handler.params {
            if p.complete.is_some() && !params.contains(&p.ident.to_string().as_str()) {
                cx.error_spanned_by(
                    &p.ident,
                    format!("`#[complete]` on `{}`, which is not a URI parameter of `{}`", p.ident, res.lit.value()),
                );
            }
        }
    }
}

fn callbacks(cx: &Ctxt, router: &Router) {
    for cb in &router.callbacks {
        let &(_, arity, shape) = CALLBACKS.iter().find(|(n, _, _)| *n == cb.name).expect("known callback");
        let sig = &cb.item.sig;
        let receiver_ok = matches!(sig.inputs.first(), Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none());
        let count = sig.inputs.iter().filter(|a| matches!(a, FnArg::Typed(_))).count();
        if sig.asyncness.is_none() || !receiver_ok || count != arity || !sig.generics.params.is_empty() {
            cx.error_at(
                sig.ident.span(),
                format!("callback `{}` has the wrong signature\n       help: write `{shape}`", cb.name),
            );
        }
    }
}
