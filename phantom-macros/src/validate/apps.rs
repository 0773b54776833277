//! Checks of MCP Apps declarations: a tool's `ui` names a `ui://` resource of the router, its
//! `visibility` says who may call it, a `ui://` resource is served as an app view, and its CSP
//! lists origins.

use syn::{Expr, ExprLit, Lit, LitStr};

use crate::ctxt::Ctxt;
use crate::model::{APP_MIME_TYPE as MIME_TYPE, APP_PERMISSIONS as PERMISSIONS, Resource, Router};

pub(super) fn apps(cx: &Ctxt, router: &Router) {
    for tool in &router.tools {
        if let Some(ui) = &tool.ui {
            view_of(cx, ui, &router.resources);
        }
        match (&tool.visibility, &tool.ui) {
            (Some(list), None) => cx.error_spanned_by(
                list,
                "`visibility` belongs to tools with a view\n       help: add `ui = \"ui://…\"` naming the view, or remove `visibility`",
            ),
            (Some(list), Some(_)) => visibility(cx, list),
            (None, _) => {}
        }
    }
    for res in &router.resources {
        if res.is_app() {
            app_resource(cx, res);
        } else if let Some(span) = res.app.first {
            cx.error_at(
                span,
                "`csp`, `permissions`, `domain` and `prefers_border` belong to `ui://` resources (MCP Apps views)\n       help: serve the view at a `ui://` URI, e.g. `#[resource(\"ui://myapp/card\")]`",
            );
        }
    }
}

/// `ui = "ui://…"` must name a `ui://` resource of this router without parameters.
fn view_of(cx: &Ctxt, ui: &LitStr, resources: &[Resource]) {
    let uri = ui.value();
    if !uri.starts_with("ui://") {
        cx.error_at(
            ui.span(),
            format!(
                "`ui = \"{uri}\"` must name a `ui://` resource\n       help: write `ui = \"ui://myapp/card\"` and serve the view with `#[resource(\"ui://myapp/card\")]`"
            ),
        );
        return;
    }
    let found = resources.iter().find(|r| r.lit.value() == uri);
    match found {
        Some(r) if r.template.as_ref().is_some_and(|t| t.params().next().is_some()) => cx.error_at(
            ui.span(),
            format!(
                "`ui = \"{uri}\"` names a resource template with parameters; a view has one URI\n       help: serve the view at a URI without `<…>` segments and pass the data in the tool's result"
            ),
        ),
        Some(_) => {}
        None => cx.error_at(
            ui.span(),
            format!(
                "`ui = \"{uri}\"` names no resource of this router\n       help: add a method with `#[resource(\"{uri}\")]` that returns the view's HTML"
            ),
        ),
    }
}

/// `visibility = ["model", "app"]`: one or both, once each.
fn visibility(cx: &Ctxt, list: &syn::ExprArray) {
    const HELP: &str = "help: write `visibility = [\"model\", \"app\"]`, `[\"model\"]` or `[\"app\"]` (a tool only its view calls)";
    if list.elems.is_empty() {
        cx.error_spanned_by(list, format!("`visibility` cannot be empty\n       {HELP}"));
    }
    let mut seen = Vec::new();
    for elem in &list.elems {
        let Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) = elem
        else {
            cx.error_spanned_by(
                elem,
                format!("expected a string literal in `visibility`\n       {HELP}"),
            );
            continue;
        };
        let v = s.value();
        if v != "model" && v != "app" {
            cx.error_at(s.span(), format!("unknown visibility `{v}`\n       {HELP}"));
        } else if seen.contains(&v) {
            cx.error_at(
                s.span(),
                format!("`{v}` is listed twice in `visibility`\n       {HELP}"),
            );
        } else {
            seen.push(v);
        }
    }
}

/// A `ui://` resource: served as `text/html;profile=mcp-app`, with origins in its CSP, known
/// permissions and an origin as its `domain`.
fn app_resource(cx: &Ctxt, res: &Resource) {
    if let Some(mime) = &res.mime_type
        && mime.value() != MIME_TYPE
    {
        cx.error_at(
            mime.span(),
            format!(
                "a `ui://` resource is an MCP Apps view, served as `{MIME_TYPE}`, not `{}`\n       help: remove `mime_type` (phantom sets it), or serve other content at another scheme",
                mime.value()
            ),
        );
    }
    let app = &res.app;
    for (key, origins) in [
        ("connect", &app.connect),
        ("resources", &app.resources),
        ("frames", &app.frames),
        ("base_uri", &app.base_uri),
    ] {
        for origin in origins {
            if let Some(why) = origin_error(&origin.value()) {
                cx.error_at(
                    origin.span(),
                    format!(
                        "`{}` in `csp({key} = …)` is not an origin: {why}\n       help: write a scheme and a host, e.g. `\"https://api.example.com\"`, `\"https://*.example.com\"` or `\"http://localhost:8080\"`",
                        origin.value()
                    ),
                );
            }
        }
    }
    if let Some(domain) = &app.domain
        && let Some(why) = origin_error(&domain.value())
    {
        cx.error_at(
            domain.span(),
            format!(
                "`domain = \"{}\"` is not an origin: {why}\n       help: write `domain = \"https://myapp.example.com\"`",
                domain.value()
            ),
        );
    }
    for p in &app.permissions {
        if !PERMISSIONS.iter().any(|(name, _)| *name == p.value()) {
            let names: Vec<String> = PERMISSIONS.iter().map(|(n, _)| format!("`{n}`")).collect();
            cx.error_at(
                p.span(),
                format!(
                    "unknown permission `{}`\n       help: a view may ask for {}",
                    p.value(),
                    names.join(", ")
                ),
            );
        }
    }
}

/// Why `text` is not an origin a CSP can list (`scheme://host[:port]`, the host possibly
/// `*.`-prefixed), or `None` when it is one.
pub(crate) fn origin_error(text: &str) -> Option<&'static str> {
    let Some((scheme, rest)) = text.split_once("://") else {
        return Some("it has no scheme");
    };
    if !matches!(scheme, "https" | "http" | "wss" | "ws") {
        return Some("its scheme is not https, http, wss or ws");
    }
    if rest.contains(['/', '?', '#']) {
        return Some("an origin has no path, query or fragment");
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (rest, None),
    };
    if let Some(port) = port
        && (port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) || port.len() > 5)
    {
        return Some("its port is not a number");
    }
    let host = host.strip_prefix("*.").unwrap_or(host);
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if host.is_empty() || !host.split('.').all(label_ok) {
        return Some("its host is not a lowercase domain name or address");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::origin_error;

    #[test]
    fn origins() {
        for ok in [
            "https://api.example.com",
            "https://*.example.com",
            "http://localhost:8080",
            "http://127.0.0.1:9",
            "wss://live.example.com",
        ] {
            assert_eq!(origin_error(ok), None, "{ok}");
        }
        for bad in [
            "api.example.com",
            "ftp://example.com",
            "https://example.com/",
            "https://example.com/path",
            "https://Example.com",
            "https://",
            "https://example.com:",
            "https://ex ample.com",
            "https://*.",
        ] {
            assert!(origin_error(bad).is_some(), "{bad}");
        }
    }
}
