//! POST: check the request, read its body, hand the message to the dispatcher, write the answer
//! (JSON, or SSE when the handling sends messages before its result).
//!
//! A request that may send messages before its result (a progress token or a log level, a legacy
//! session's requests, a batch, any request when `connect` is overridden) is handled inside a
//! response that can turn into an SSE stream ([`streamed`]); every other request is answered in
//! place, without the channel and the box that costs.

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::StatusCode;
use http::header::HeaderValue;

use super::HttpState;
use super::arms::post_listen;
use super::body::{Posted, RequestBody, acceptable, read_body};
use super::headers::{
    PostHeaders, check_param_headers, header_mismatch, trimmed_value, value_str, version_refused,
};
use super::legacy::{answer_on_session, begin, initialize, keep};
use super::message::{Inspected, Message, Parsed, inspect, not_utf8};
use super::response::{Handling, empty, error_for, reply_response, resumable, streaming};
use crate::kernel::{Outbound, Reply, boxed};
use crate::protocol::{Method, ProtocolVersion, codes};
use crate::server::Server;
use crate::session::{Request, Session, SessionSlot};

pub(super) async fn post<S: Server, B: RequestBody>(
    st: Arc<HttpState<S>>,
    request: Request,
    body: Posted<B>,
) -> Response {
    let headers = PostHeaders::of(&request.headers);
    let bytes = match body {
        Posted::Unread(body) => match read_body(body, &headers, &st.cfg).await {
            Ok(bytes) => match acceptable(&request, &headers) {
                Ok(()) => bytes,
                Err(refused) => return refused,
            },
            Err(refused) => return refused,
        },
        Posted::Read(bytes) => bytes,
    };
    if sends_first(&st, &headers) {
        let session = trimmed_value(headers.session).filter(|_| !st.cfg.stateless);
        return streamed(&st, request, bytes, session).await;
    }
    // The common case read here rather than through `decode`: a value less to move.
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return not_utf8();
    };
    if !text.trim_start().starts_with('[') {
        match inspect(text, st.dispatcher.json_depth()) {
            None => return unreadable(&st, text, &request).await,
            Some((seen, parsed)) if !in_stream(&seen, &parsed) => {
                return answer(&st, &request, &headers, seen, parsed).await;
            }
            // Read again there: that handling owns its body.
            Some(_) => {}
        }
    }
    let session = trimmed_value(headers.session).filter(|_| !st.cfg.stateless);
    streamed(&st, request, bytes, session).await
}

/// Whether every request of this POST may send first, whatever its body: a legacy session's
/// (its stored level, requests to the client), and any when `connect` (which may set a level)
/// is overridden.
pub(super) fn sends_first<S: Server>(st: &HttpState<S>, headers: &PostHeaders<'_>) -> bool {
    st.dispatcher.connects() || (!st.cfg.stateless && headers.session.is_some())
}

/// Whether a message is handled in a response that can stream: it asks for messages before its
/// result, or its method streams (a 2026-07-28 listen, unless it is the ordinary one `answer`
/// opens itself).
fn in_stream(seen: &Inspected<'_>, parsed: &Parsed<'_>) -> bool {
    parsed.listen(seen).is_none()
        && (parsed.head.wants_messages() || seen.known.is_some_and(Method::streams))
}

/// A POST whose handling may send messages before its result: it owns what it needs, so that it
/// can go on inside an SSE stream once it sends something first. `session` is its
/// `Mcp-Session-Id` (trimmed), unless the endpoint is stateless.
async fn streamed<S: Server>(
    st: &Arc<HttpState<S>>,
    request: Request,
    bytes: Bytes,
    session: Option<HeaderValue>,
) -> Response {
    let (out, mut rx) = Outbound::frames();
    let state = Arc::clone(st);
    let mut handling: Handling = boxed(move || async move {
        let headers = PostHeaders::of(&request.headers);
        in_streamed(&state, &request, &headers, &bytes, &out).await
    });
    let (first, handling) = tokio::select! {
        biased;
        resp = &mut handling => match rx.try_recv() {
            // Sent before the result without yielding in between: still sent first.
            Ok(first) => (first, Box::pin(std::future::ready(resp)) as Handling),
            Err(_) => return resp,
        },
        Some(first) = futures_util::StreamExt::next(&mut rx) => (first, handling),
    };
    let resumable_id = session.as_ref().and_then(|id| {
        let id = id.to_str().ok()?;
        let live = st.sessions.get(id).ok()?;
        // Earlier versions know no priming event.
        (live.protocol_version >= ProtocolVersion::V2025_11_25).then(|| id.to_owned())
    });
    match resumable_id {
        Some(id) => resumable(st, &id, first, rx, handling),
        None => streaming(first, rx, handling, session),
    }
}

/// Not JSON, not a JSON-RPC object, or too deep: the dispatcher gives the exact error.
async fn unreadable<S: Server>(st: &HttpState<S>, text: &str, request: &Request) -> Response {
    let mut slot = SessionSlot::default();
    let reply = Box::pin(
        st.dispatcher
            .handle(text, request, &mut slot, &Outbound::none()),
    )
    .await;
    reply.map_or_else(|| empty(StatusCode::BAD_REQUEST), reply_response)
}

/// One message answered in place, by its era: a 2026-07-28 dispatch inline in the POST's own
/// future, a legacy one boxed (a legacy request here has no session: rare). Futures shaped for
/// their size: `bench/NOTES.md`, round 16 and "Streams", step 3.
async fn answer<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    seen: Inspected<'_>,
    parsed: Parsed<'_>,
) -> Response {
    let out = &Outbound::none();
    if let Some((id, params, meta)) = parsed.listen(&seen) {
        // Boxed here, where a listen comes without its `Mcp-Method` header (and is refused):
        // one that names itself has a small future of its own (`arms::listen`).
        return Box::pin(post_listen(st, request, headers, &seen, id, params, meta)).await;
    }
    if seen.modern.is_some() {
        return modern(st, request, headers, &seen, parsed, out).await;
    }
    let message = Message::One(parsed);
    Box::pin(legacy(st, request, headers, Some(&seen), message, out)).await
}

/// The body of a streamed POST, read in its own (boxed, moved whole) handling: a legacy dispatch
/// inline (every request of a legacy session comes this way), a 2026-07-28 one boxed.
async fn in_streamed<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    bytes: &Bytes,
    out: &Outbound,
) -> Response {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return not_utf8();
    };
    if text.trim_start().starts_with('[') {
        if let Some(refused) = st.dispatcher.too_deep(text) {
            return reply_response(refused);
        }
        return legacy(st, request, headers, None, Message::Batch(text), out).await;
    }
    let Some((seen, parsed)) = inspect(text, st.dispatcher.json_depth()) else {
        return unreadable(st, text, request).await;
    };
    if let Some((id, params, meta)) = parsed.listen(&seen) {
        return Box::pin(post_listen(st, request, headers, &seen, id, params, meta)).await;
    }
    if seen.modern.is_some() {
        return Box::pin(modern(st, request, headers, &seen, parsed, out)).await;
    }
    let message = Message::One(parsed);
    legacy(st, request, headers, Some(&seen), message, out).await
}

async fn modern<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    seen: &Inspected<'_>,
    parsed: Parsed<'_>,
    out: &Outbound,
) -> Response {
    if let Some(refused) = header_mismatch(headers, seen, &parsed.head.target) {
        return refused;
    }
    if seen.known == Some(Method::ToolsCall)
        && let Some(tool) = parsed.head.target.name()
        && let Err(message) = check_param_headers(
            &st.dispatcher,
            &request.headers,
            tool,
            parsed.head.arguments,
        )
    {
        return error_for(
            StatusCode::BAD_REQUEST,
            codes::HEADER_MISMATCH,
            &message,
            Some(seen),
        );
    }
    // The dispatcher is called directly: a helper in between would store `parsed` once more.
    let Parsed { msg, head } = parsed;
    let mut slot = SessionSlot::default();
    let reply = st
        .dispatcher
        .handle_parsed(msg, head, request, &mut slot, out)
        .await;
    answered(reply)
}

/// A legacy message or batch: its `MCP-Protocol-Version` checked, then stateless, `initialize`
/// (which opens a session) or a message on a session.
async fn legacy<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    seen: Option<&Inspected<'_>>,
    message: Message<'_>,
    out: &Outbound,
) -> Response {
    if let Some(refused) = version_refused(headers, seen) {
        return refused;
    }
    if st.cfg.stateless {
        // Every request stands alone: no session is looked up, opened or stored.
        let mut slot = SessionSlot::stateless();
        return answered(dispatch(st, message, request, &mut slot, out).await);
    }
    if seen.is_some_and(|h| h.known == Some(Method::Initialize)) {
        // Boxed: once per session, and inline it would make every request's future larger.
        return Box::pin(initialize(st, request, message, out)).await;
    }
    let (Some(sent), Some(id)) = (headers.session, value_str(headers.session)) else {
        return error_for(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required (send `initialize` first)",
            seen,
        );
    };
    // The session layer finds the session and counts the request, then stores what it changed;
    // the message goes to the dispatcher from here, not through a layer more.
    let (session, _in_flight) = match begin(st, id, seen).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    let mut slot = SessionSlot::new(Some(Session::clone(&session)));
    let reply = dispatch(st, message, request, &mut slot, out).await;
    if slot.changed()
        && let Err(refused) = keep(st, &session, slot, seen).await
    {
        return refused;
    }
    answer_on_session(st, (sent, id), session.protocol_version, reply).await
}

/// Hands a legacy message or batch to the dispatcher.
pub(super) async fn dispatch<S: Server>(
    st: &HttpState<S>,
    message: Message<'_>,
    request: &Request,
    slot: &mut SessionSlot,
    out: &Outbound,
) -> Option<Reply> {
    match message {
        Message::One(Parsed { msg, head }) => {
            st.dispatcher
                .handle_parsed(msg, head, request, slot, out)
                .await
        }
        Message::Batch(text) => Box::pin(st.dispatcher.handle(text, request, slot, out)).await,
    }
}

/// A reply as the POST's answer: `202` when there is none (an accepted notification or response).
fn answered(reply: Option<Reply>) -> Response {
    reply.map_or_else(|| empty(StatusCode::ACCEPTED), reply_response)
}
