//! The preview host (`HttpConfig::with_preview(true)`): one page, served at `GET <endpoint>/preview`,
//! that plays the host's part of MCP Apps in a browser. It lists the tools that have a view,
//! calls one over the endpoint (2026-07-28, declaring the UI extension), reads the tool's
//! `ui://` resource and renders it in an `allow-scripts`-only sandboxed frame whose document
//! carries the CSP built from the resource's `_meta.ui.csp`. Its bridge answers the view's
//! `ui/initialize`, sends `ui/notifications/tool-input` and `…/tool-result` once the view is
//! initialized, forwards the view's `tools/call` and `resources/read` to the endpoint, and
//! follows `ui/notifications/size-changed`.

use axum::response::Response;
use http::{HeaderValue, StatusCode, header};

/// The page (its script is phantom's own, in `preview.html`).
const PAGE: &str = include_str!("preview.html");

/// The preview page.
pub(crate) fn page() -> Response {
    let mut resp = Response::new(axum::body::Body::from(PAGE));
    *resp.status_mut() = StatusCode::OK;
    let headers = resp.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}
