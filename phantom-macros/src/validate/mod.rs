//! Checks that need the whole model: names, duplicates, URI parameters ↔ arguments, collisions,
//! callback signatures.

use std::collections::HashMap;

use crate::ctxt::Ctxt;
use crate::model::{Item, Router};

mod apps;
mod arguments;
mod callbacks;
mod resources;

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
    resources::resources(cx, router);
    apps::apps(cx, router);
    callbacks::callbacks(cx, router);
    arguments::borrowed(cx, router);
    arguments::completion_paths(cx, router);
    arguments::headers_and_requirements(cx, router);
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
