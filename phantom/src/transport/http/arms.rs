//! How a POST's future holds its handling: the shapes kept for the request futures' size and the
//! instructions of a request (`bench/NOTES.md`, round 16 and "Streams", step 3).
//!
//! A future is as large as its largest inline arm, and the future of every request in flight is
//! held until it answers. A 2026-07-28 request's dispatch inline in the POST's own future costs
//! nothing more, while thousands of listens opening at once would each hold a future that large
//! until acknowledged: a POST whose `Mcp-Method` says it opens a listen therefore gets a small
//! future of its own ([`listen`]), which boxes what it runs.

use std::future::Future;
use std::sync::Arc;

use axum::response::Response;

use super::HttpState;
use super::body::RequestBody;
use super::body::read;
use super::headers::PostHeaders;
use super::message::inspect;
use super::post::{post_listen, posted, sends_first};
use crate::server::Server;
use crate::session::Request;

/// A POST that says it opens a listen: the listen's handling boxed, or for a body that is not
/// that listen, the general handling boxed.
pub(super) async fn listen<S: Server, B: RequestBody>(
    st: Arc<HttpState<S>>,
    request: Request,
    body: B,
) -> Response {
    let bytes = match read(&st.cfg, &request, body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let headers = PostHeaders::of(&request.headers);
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
    Box::pin(posted(st, request, bytes)).await
}

/// How a message's dispatch is held. In a POST's own future ([`Inline`]), a 2026-07-28 dispatch
/// inline and a legacy one boxed (a legacy request there has no session: rare). In a streamed
/// POST's handling, which is boxed already and moved whole ([`Boxed`]), the 2026-07-28 dispatch
/// boxed and the legacy one inline (every legacy request of a session comes that way).
pub(super) trait Hold {
    fn hold<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send;
    fn hold_legacy<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send;
}

/// A 2026-07-28 dispatch inline, a legacy one boxed.
pub(super) struct Inline;

impl Hold for Inline {
    fn hold<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send {
        dispatch
    }

    fn hold_legacy<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send {
        Box::pin(dispatch)
    }
}

/// A 2026-07-28 dispatch boxed, a legacy one inline.
pub(super) struct Boxed;

impl Hold for Boxed {
    fn hold<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send {
        Box::pin(dispatch)
    }

    fn hold_legacy<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send {
        dispatch
    }
}

/// Whether a request's `Mcp-Method` header names `subscriptions/listen`.
pub(super) fn asks_to_listen(method: Option<&http::HeaderValue>) -> bool {
    method.is_some_and(|v| v.as_bytes() == b"subscriptions/listen")
}
