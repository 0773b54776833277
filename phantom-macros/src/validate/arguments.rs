//! Checks of handler arguments: `#[arg(header = …)]` names and `#[tool(requires = […])]`
//! capability paths.

use crate::ctxt::Ctxt;
use crate::model::Router;

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
