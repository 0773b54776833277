//! POST: check the request, read its body, hand the message to the dispatcher, write the answer
//! (JSON, or SSE when the handling sends messages before its result).
//!
//! A request that may send messages before its result (a progress token or a log level, a legacy
//! session's requests, a batch, any request when `connect` is overridden) is handled inside a
//! response that can turn into an SSE stream ([`streamed`]); every other request is answered in
//! place, without the channel and the box that costs.

use std::borrow::Cow;
use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::StatusCode;

use super::HttpState;
use super::arms::{Boxed, Hold, Inline};
use super::body::{RequestBody, read};
use super::headers::{
    PostHeaders, check_modern_headers, check_param_headers, trimmed_value, value_str,
    version_refused,
};
use super::legacy::{initialize, on_session};
use super::message::{Decoded, Inspected, Message, Parsed, decode};
use super::response::{
    Handling, empty, error_for, listen_response, reply_response, resumable, streaming,
};
use crate::dispatch::MetaProbe;
use crate::kernel::{Outbound, Reply, boxed};
use crate::protocol::raw_str;
use crate::protocol::{Method, Params, ProtocolVersion, RequestId, Target, codes};
use crate::server::Server;
use crate::session::{Request, SessionSlot};

pub(super) async fn post<S: Server, B: RequestBody>(
    st: Arc<HttpState<S>>,
    request: Request,
    body: B,
) -> Response {
    match read(&st.cfg, &request, body).await {
        Ok(bytes) => posted(st, request, bytes).await,
        Err(refused) => refused,
    }
}

/// Whether every request of this POST may send first, whatever its body: a legacy session's
/// (its stored level, requests to the client), and any when `connect` (which may set a level)
/// is overridden.
pub(super) fn sends_first<S: Server>(st: &HttpState<S>, headers: &PostHeaders<'_>) -> bool {
    st.dispatcher.connects() || (!st.cfg.stateless && headers.session.is_some())
}

/// A POST whose body is read and checked: answered in place, or inside a response that can stream.
pub(super) async fn posted<S: Server>(
    st: Arc<HttpState<S>>,
    request: Request,
    bytes: Bytes,
) -> Response {
    let headers = PostHeaders::of(&request.headers);
    if sends_first(&st, &headers) {
        return streamed(&st, request, bytes).await;
    }
    match decode(&st, &bytes) {
        Err(refused) => refused,
        Ok(Decoded::Unreadable(text)) => unreadable(&st, text, &request).await,
        Ok(Decoded::One(seen, parsed))
            if parsed.listen(&seen).is_some()
                || !(parsed.head.wants_messages() || seen.known.is_some_and(Method::streams)) =>
        {
            answer::<S, Inline>(&st, &request, &headers, seen, parsed, &Outbound::none()).await
        }
        // Read again there: that handling owns its body.
        Ok(Decoded::One(..) | Decoded::Batch(_)) => streamed(&st, request, bytes).await,
    }
}

/// A POST whose handling may send messages before its result: it owns what it needs, so that it
/// can go on inside an SSE stream once it sends something first.
async fn streamed<S: Server>(st: &Arc<HttpState<S>>, request: Request, bytes: Bytes) -> Response {
    let (out, mut rx) = Outbound::frames();
    let state = Arc::clone(st);
    let session =
        trimmed_value(PostHeaders::of(&request.headers).session).filter(|_| !st.cfg.stateless);
    let mut handling: Handling = boxed(move || async move {
        let headers = PostHeaders::of(&request.headers);
        match decode(&state, &bytes) {
            Err(refused) => refused,
            Ok(Decoded::One(seen, parsed)) => {
                answer::<S, Boxed>(&state, &request, &headers, seen, parsed, &out).await
            }
            Ok(Decoded::Batch(text)) => {
                legacy(&state, &request, &headers, None, Message::Batch(text), &out).await
            }
            Ok(Decoded::Unreadable(text)) => unreadable(&state, text, &request).await,
        }
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

/// One message, by its era. `H` says how its dispatch is held (`arms.rs`).
async fn answer<S: Server, H: Hold>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    seen: Inspected<'_>,
    parsed: Parsed<'_>,
    out: &Outbound,
) -> Response {
    if let Some((id, params, meta)) = parsed.listen(&seen) {
        // Boxed here, where a listen comes without its `Mcp-Method` header (and is refused):
        // one that names itself has a small future of its own (`arms::listen`).
        return Box::pin(post_listen(st, request, headers, &seen, id, params, meta)).await;
    }
    if seen.modern.is_some() {
        return H::hold(modern(st, request, headers, &seen, parsed, out)).await;
    }
    let message = Message::One(parsed);
    H::hold_legacy(legacy(st, request, headers, Some(&seen), message, out)).await
}

/// The 2026-07-28 standard headers checked against the body: `-32020` (400) when one disagrees.
/// They are checked before the version gate: a header that disagrees with the body is a `-32020`
/// whatever the version says; an agreeing but unsupported version is the dispatcher's `-32022`.
/// `Mcp-Name` is checked against the request's target, decoded once with its params.
fn header_mismatch(
    headers: &PostHeaders<'_>,
    seen: &Inspected<'_>,
    target: &Target<'_>,
) -> Option<Response> {
    let claimed = seen
        .modern
        .map(|v| raw_str(v).unwrap_or(Cow::Borrowed(v.get())));
    let claimed = claimed.as_deref().unwrap_or_default();
    let message = check_modern_headers(headers, seen, target, claimed).err()?;
    Some(error_for(
        StatusCode::BAD_REQUEST,
        codes::HEADER_MISMATCH,
        &message,
        Some(seen),
    ))
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
    match (headers.session, value_str(headers.session)) {
        (Some(sent), Some(id)) => on_session(st, request, (sent, id), seen, message, out).await,
        _ => error_for(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required (send `initialize` first)",
            seen,
        ),
    }
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
