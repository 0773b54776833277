//! A POST that says it opens a listen, and the listen's handling. Shaped for the request
//! futures' size (`bench/NOTES.md`, "Streams", step 3): a future is as large as its largest
//! inline arm, and the future of every request in flight is held until it answers. A 2026-07-28
//! request's dispatch inline in the POST's own future costs nothing more, while thousands of
//! listens opening at once would each hold a future that large until acknowledged: a POST whose
//! `Mcp-Method` says it opens a listen therefore gets a small future of its own ([`listen`]),
//! which boxes what it runs.

use std::sync::Arc;

use axum::response::Response;

use super::HttpState;
use super::body::RequestBody;
use super::body::{Posted, acceptable, read_body};
use super::headers::{PostHeaders, header_mismatch};
use super::message::{Inspected, inspect};
use super::post::{post, sends_first};
use super::response::{listen_response, reply_response};
use crate::dispatch::MetaProbe;
use crate::protocol::{Params, RequestId, Target};
use crate::server::Server;
use crate::session::Request;

/// A POST that says it opens a listen: the listen's handling boxed, or for a body that is not
/// that listen, the general handling boxed.
pub(super) async fn listen<S: Server, B: RequestBody>(
    st: Arc<HttpState<S>>,
    request: Request,
    body: B,
) -> Response {
    let headers = PostHeaders::of(&request.headers);
    let bytes = match read_body(body, &headers, &st.cfg).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    if let Err(refused) = acceptable(&request, &headers) {
        return refused;
    }
    if !sends_first(&st, &headers)
        && let Ok(text) = std::str::from_utf8(&bytes)
        && !text.trim_start().starts_with('[')
        && let Some((seen, parsed)) = inspect(text, st.dispatcher.json_depth())
        && let Some((id, params, meta)) = parsed.listen(&seen)
    {
        // Boxed as well: what a listen holds while it opens is then this small future and the
        // listen's own handling, whose state is freed when it is acknowledged.
        return Box::pin(post_listen(
            &st, &request, &headers, &seen, id, params, meta,
        ))
        .await;
    }
    Box::pin(post::<S, B>(st, request, Posted::Read(bytes))).await
}

/// A 2026-07-28 `subscriptions/listen`: once it is open and acknowledged, the SSE answer keeps
/// only the listen (its registration and channel), not this request's state.
pub(super) async fn post_listen<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    seen: &Inspected<'_>,
    id: &RequestId,
    params: Option<Params<'_>>,
    meta: &MetaProbe<'_>,
) -> Response {
    // A listen names no tool, prompt, resource or task: `Mcp-Name` is not checked.
    if let Some(refused) = header_mismatch(headers, seen, Target::NONE) {
        return refused;
    }
    if let Some(full) = st.streams_full() {
        return full;
    }
    match st.dispatcher.start_listen(id, params, meta, request).await {
        Ok((listening, session)) => listen_response(Arc::clone(st), id.clone(), listening, session),
        Err(reply) => reply_response(reply),
    }
}

/// Whether a request's `Mcp-Method` header names `subscriptions/listen`.
pub(super) fn asks_to_listen(method: Option<&http::HeaderValue>) -> bool {
    method.is_some_and(|v| v.as_bytes() == b"subscriptions/listen")
}
