//! Which handling a POST's future holds inline. A future is as large as its largest inline arm,
//! and the future of every request in flight is held until it answers: a 2026-07-28 request's
//! dispatch inline costs nothing more, while thousands of listens opening at once would each hold
//! a future that large until acknowledged. A POST whose `Mcp-Method` says it opens a listen
//! therefore gets a small future of its own, which boxes what it runs.

use std::future::Future;
use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::HeaderValue;

use super::HttpState;
use super::headers::PostHeaders;
use super::post::{Early, Parsed, handle_body, inspect, post_listen};
use crate::kernel::Outbound;
use crate::protocol::{Incoming, Method};
use crate::server::Server;
use crate::session::Request;

/// The handling of a POST's decoded body, chosen by type so that each choice is a future of its
/// own size.
pub(super) trait Arms {
    fn handle_body<'a, S: Server>(
        st: &'a Arc<HttpState<S>>,
        request: &'a Request,
        headers: &'a PostHeaders<'a>,
        bytes: &'a Bytes,
        out: &'a Outbound,
    ) -> impl Future<Output = Result<Response, Early>> + Send + 'a;
}

/// Every request: each era's dispatch inline.
pub(super) struct General;

impl Arms for General {
    fn handle_body<'a, S: Server>(
        st: &'a Arc<HttpState<S>>,
        request: &'a Request,
        headers: &'a PostHeaders<'a>,
        bytes: &'a Bytes,
        out: &'a Outbound,
    ) -> impl Future<Output = Result<Response, Early>> + Send + 'a {
        handle_body::<S, Inline>(st, request, headers, bytes, out)
    }
}

/// A POST that says it opens a listen: a small future that boxes the listen's handling (or,
/// for a body that is not that listen, the general handling).
pub(super) struct Listen;

impl Arms for Listen {
    fn handle_body<'a, S: Server>(
        st: &'a Arc<HttpState<S>>,
        request: &'a Request,
        headers: &'a PostHeaders<'a>,
        bytes: &'a Bytes,
        out: &'a Outbound,
    ) -> impl Future<Output = Result<Response, Early>> + Send + 'a {
        listen_body(st, request, headers, bytes, out)
    }
}

async fn listen_body<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    bytes: &Bytes,
    out: &Outbound,
) -> Result<Response, Early> {
    if let Ok(text) = std::str::from_utf8(bytes)
        && !text.trim_start().starts_with('[')
        && let Some((head, parsed)) = inspect(text, st.dispatcher.json_depth())
        && head.modern.is_some()
        && head.known == Some(Method::SubscriptionsListen)
        && let Parsed {
            msg: Incoming::Request { id, params, .. },
            head: params_head,
        } = &parsed
        && let Some(meta) = &params_head.meta
    {
        // Boxed as well: what a listen holds while it opens is then this small future and the
        // listen's own handling, whose state is freed when it is acknowledged.
        return Ok(Box::pin(post_listen(st, request, headers, &head, id, *params, meta)).await);
    }
    Box::pin(handle_body::<S, Inline>(st, request, headers, bytes, out)).await
}

/// How `handle_body` holds a request's dispatch. In a POST's own future (`Inline`), a 2026-07-28
/// dispatch inline and a legacy one boxed (a legacy request there has no session: rare). In
/// `early`'s handling, which is boxed already and moved whole (`Boxed`), the 2026-07-28 dispatch
/// boxed and the legacy one inline (every legacy request of a session comes that way).
pub(super) trait ModernArm {
    fn hold<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send;
    fn hold_legacy<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send;
}

/// A 2026-07-28 dispatch inline, a legacy one boxed.
pub(super) struct Inline;

impl ModernArm for Inline {
    fn hold<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send {
        dispatch
    }

    fn hold_legacy<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send {
        Box::pin(dispatch)
    }
}

/// A 2026-07-28 dispatch boxed, a legacy one inline.
pub(super) struct Boxed;

impl ModernArm for Boxed {
    fn hold<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send {
        Box::pin(dispatch)
    }

    fn hold_legacy<F: Future + Send>(dispatch: F) -> impl Future<Output = F::Output> + Send {
        dispatch
    }
}

/// Whether a request's `Mcp-Method` header names `subscriptions/listen`.
pub(super) fn asks_to_listen(method: Option<&HeaderValue>) -> bool {
    method.is_some_and(|v| v.as_bytes() == b"subscriptions/listen")
}
