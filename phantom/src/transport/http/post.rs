//! POST: one JSON-RPC message (or a legacy batch) per request, answered as JSON or SSE.

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;
use http::StatusCode;
use http::header::HeaderValue;
use std::borrow::Cow;

use serde_json::value::RawValue;

use super::HttpState;
use super::arms::{Arms, Boxed, ModernArm};
use super::body::{RequestBody, read_body};
use super::config::ResponseMode;
use super::headers::{
    PostHeaders, SESSION_HEADER, check_modern_headers, check_param_headers, trimmed_value,
    value_str,
};
use super::response::{
    Handling, empty, error_for, listen_response, plain, reply_response, resumable, sse_reply,
    streaming,
};
use super::session::{find_session, forget_evicted};
use crate::dispatch::{ParamsHead, read_message_within};
use crate::kernel::{Outbound, Reply, Status, boxed};
use crate::protocol::raw_str;
use crate::protocol::{Incoming, Method, Params, ProtocolVersion, RequestId, Target, codes};
use crate::server::Server;
use crate::session::SessionSlot;
use crate::session::{Request, Session};
use crate::transport::sessions::{Refused, new_session_id};

/// What the HTTP layer needs to know about a body before dispatching it, borrowed from the body.
pub(super) struct Inspected<'a> {
    /// The request id, when there is one.
    pub(super) id: Option<RequestId>,
    pub(super) is_request: bool,
    /// The method as sent (the `Mcp-Method` header must repeat it exactly).
    pub(super) method: Option<Cow<'a, str>>,
    /// The method, when phantom knows it.
    pub(super) known: Option<Method>,
    /// `Some` when the body claims the modern envelope: the claimed version value, as sent.
    pub(super) modern: Option<&'a RawValue>,
}

/// A body decoded once: the message, the head of its params, and what the HTTP checks need.
pub(super) struct Parsed<'a> {
    pub(super) msg: Incoming<'a>,
    pub(super) head: ParamsHead<'a>,
}

/// The body read and what the HTTP checks need of it; `None` when it is not an ordinary message
/// or nests deeper than `limit` (the dispatcher answers those).
pub(super) fn inspect(text: &str, limit: usize) -> Option<(Inspected<'_>, Parsed<'_>)> {
    let (msg, head) = read_message_within(text, limit)?.ok()?;
    let (id, method, is_request) = match &msg {
        Incoming::Request { id, method, .. } => (Some(id.clone()), Some(method.clone()), true),
        Incoming::Notification { method, .. } => (None, Some(method.clone()), false),
        Incoming::Response { id, .. } => (Some(id.clone()), None, false),
    };
    let inspected = Inspected {
        id,
        is_request,
        known: method.as_deref().and_then(Method::parse),
        method,
        modern: head.claimed_version(),
    };
    Some((inspected, Parsed { msg, head }))
}

/// A request of a legacy session counted in flight until it is dropped.
struct InFlight<'a, S: Server> {
    st: &'a HttpState<S>,
    id: &'a str,
}

impl<'a, S: Server> InFlight<'a, S> {
    fn begin(st: &'a HttpState<S>, id: &'a str) -> Option<Self> {
        st.sessions
            .begin_request(id, st.cfg.max_requests_per_session)
            .then_some(Self { st, id })
    }
}

impl<S: Server> Drop for InFlight<'_, S> {
    fn drop(&mut self) {
        self.st.sessions.end_request(self.id);
    }
}

/// Hands a body to the dispatcher, decoded already when possible.
async fn dispatch<S: Server>(
    st: &HttpState<S>,
    text: &str,
    parsed: Option<Parsed<'_>>,
    request: &Request,
    slot: &mut SessionSlot,
    out: &Outbound,
) -> Option<Reply> {
    match parsed {
        Some(Parsed { msg, head }) => {
            st.dispatcher
                .handle_parsed(msg, head, request, slot, out)
                .await
        }
        None => Box::pin(st.dispatcher.handle(text, request, slot, out)).await,
    }
}

pub(super) async fn post<S: Server, A: Arms, B: RequestBody>(
    st: Arc<HttpState<S>>,
    request: Request,
    body: B,
) -> Response {
    let st = &st;
    let headers = PostHeaders::of(&request.headers);
    // Read first, so that a refusal below reaches a client that writes its whole body.
    let bytes = match read_body(body, &headers, &st.cfg).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    if !headers.accepts_all(&request.headers, &["application/json", "text/event-stream"]) {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Not Acceptable: the client must accept both application/json and text/event-stream",
        );
    }
    let content_type = value_str(headers.content_type).unwrap_or_default();
    let json = "application/json";
    if !content_type
        .get(..json.len())
        .is_some_and(|p| p.eq_ignore_ascii_case(json))
    {
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            codes::INVALID_REQUEST,
            "Unsupported Media Type: the body must be application/json",
        );
    }
    // A legacy session's requests may always send first (its stored level, requests to the
    // client), and so may any request when `connect` (which may set a level) is overridden; other
    // requests are looked at once decoded (`handle_body`).
    if st.dispatcher.connects() || (!st.cfg.stateless && headers.session.is_some()) {
        let session = trimmed_value(headers.session.filter(|_| !st.cfg.stateless));
        return early(st, request, session, bytes).await;
    }
    match A::handle_body(st, &request, &headers, &bytes, &Outbound::none()).await {
        Ok(resp) => resp,
        Err(Early) => {
            let session = trimmed_value(headers.session.filter(|_| !st.cfg.stateless));
            early(st, request, session, bytes).await
        }
    }
}

/// `handle_body`'s answer when the request may send messages before its result and its outbound
/// sends nothing: it must be handled by [`early`] instead. (A value rather than a call, so that
/// `early` and `handle_body` do not await each other.)
pub(super) struct Early;

/// Handles a POST whose handling may send messages before its result: it owns what it needs, so
/// that it can go on inside an SSE stream once it sends something first. Only such requests pay
/// for the channel and the boxed handling.
///
/// `session` is the request's `Mcp-Session-Id` (trimmed), unless the endpoint is stateless.
async fn early<S: Server>(
    st: &Arc<HttpState<S>>,
    request: Request,
    session: Option<HeaderValue>,
    bytes: Bytes,
) -> Response {
    let (out, mut rx) = Outbound::frames();
    let state = Arc::clone(st);
    let mut handling: Handling = boxed(move || async move {
        let headers = PostHeaders::of(&request.headers);
        // The 2026-07-28 dispatch boxed: with it inline this block's future, held by every
        // legacy request with a session (they come this way), would be as large.
        match handle_body::<S, Boxed>(&state, &request, &headers, &bytes, &out).await {
            Ok(resp) => resp,
            Err(Early) => unreachable!("a request with an open outbound is handled in place"),
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
    match session.as_ref().and_then(|id| resumable_session(st, id)) {
        Some(id) => resumable(st, &id, first, rx, handling),
        None => streaming(first, rx, handling, session),
    }
}

/// The session whose POST stream can be resumed: a live legacy session at 2025-11-25 or later
/// (earlier versions know no priming event).
fn resumable_session<S: Server>(st: &HttpState<S>, id: &HeaderValue) -> Option<String> {
    let id = id.to_str().ok()?;
    let session = st.sessions.get(id).ok()?;
    (session.protocol_version >= ProtocolVersion::V2025_11_25).then(|| id.to_owned())
}

pub(super) async fn handle_body<S: Server, M: ModernArm>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    bytes: &Bytes,
    out: &Outbound,
) -> Result<Response, Early> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(plain(
            StatusCode::BAD_REQUEST,
            codes::PARSE_ERROR,
            "Parse error: the body is not UTF-8",
        ));
    };
    let is_batch = text.trim_start().starts_with('[');
    if is_batch {
        if let Some(refused) = st.dispatcher.too_deep(text) {
            return Ok(reply_response(refused));
        }
        if !out.is_open() {
            // A batch (2025-03-26 and earlier) may hold requests that report progress.
            return Err(Early);
        }
        return Ok(boxed(|| post_legacy(st, request, headers, text, None, None, out)).await);
    }
    let Some((head, parsed)) = inspect(text, st.dispatcher.json_depth()) else {
        // Too deep, not JSON, or not a JSON-RPC object: the dispatcher gives the exact error.
        let mut slot = SessionSlot::default();
        let reply = Box::pin(st.dispatcher.handle(text, request, &mut slot, out)).await;
        return Ok(reply.map_or_else(|| empty(StatusCode::BAD_REQUEST), reply_response));
    };
    if head.modern.is_some()
        && head.known == Some(Method::SubscriptionsListen)
        && let Incoming::Request { id, params, .. } = &parsed.msg
        && let Some(meta) = &parsed.head.meta
    {
        // Boxed here, where a listen only comes without its `Mcp-Method` header (and is refused):
        // one that names itself is handled by `arms::Listen`, whose future is small.
        return Ok(Box::pin(post_listen(st, request, headers, &head, id, *params, meta)).await);
    }
    if !out.is_open() && (parsed.head.wants_messages() || head.known.is_some_and(Method::streams)) {
        // Decoded again there: that handling must own its body.
        return Err(Early);
    }
    if head.modern.is_some() {
        return Ok(M::hold(post_modern(st, request, headers, &head, parsed, out)).await);
    }
    Ok(M::hold_legacy(post_legacy(
        st,
        request,
        headers,
        text,
        Some(&head),
        Some(parsed),
        out,
    ))
    .await)
}

/// The 2026-07-28 standard headers checked against the body: `-32020` (400) when one disagrees.
/// They are checked before the version gate: a header that disagrees with the body is a `-32020`
/// whatever the version says; an agreeing but unsupported version is the dispatcher's `-32022`.
/// `Mcp-Name` is checked against the request's target, decoded once with its params.
fn header_mismatch(
    headers: &PostHeaders<'_>,
    head: &Inspected<'_>,
    target: &Target<'_>,
) -> Option<Response> {
    let claimed = head
        .modern
        .map(|v| raw_str(v).unwrap_or(Cow::Borrowed(v.get())));
    let message = check_modern_headers(
        headers,
        head,
        target,
        claimed.as_deref().unwrap_or_default(),
    )
    .err()?;
    Some(error_for(
        StatusCode::BAD_REQUEST,
        codes::HEADER_MISMATCH,
        &message,
        Some(head),
    ))
}

async fn post_modern<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    head: &Inspected<'_>,
    parsed: Parsed<'_>,
    out: &Outbound,
) -> Response {
    if let Some(refused) = header_mismatch(headers, head, &parsed.head.target) {
        return refused;
    }
    if head.known == Some(Method::ToolsCall)
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
            Some(head),
        );
    }
    // The dispatcher is called directly: a helper in between would store `parsed` once more.
    let Parsed { msg, head } = parsed;
    let mut slot = SessionSlot::default();
    match st
        .dispatcher
        .handle_parsed(msg, head, request, &mut slot, out)
        .await
    {
        None => empty(StatusCode::ACCEPTED),
        Some(reply) => reply_response(reply),
    }
}

/// A 2026-07-28 `subscriptions/listen`: once it is open and acknowledged, the SSE answer keeps
/// only the listen (its registration and channel), not this request's state.
pub(super) async fn post_listen<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    head: &Inspected<'_>,
    id: &RequestId,
    params: Option<Params<'_>>,
    meta: &crate::dispatch::MetaProbe<'_>,
) -> Response {
    // A listen names no tool, prompt, resource or task: `Mcp-Name` is not checked.
    if let Some(refused) = header_mismatch(headers, head, Target::NONE) {
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

async fn post_legacy<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    headers: &PostHeaders<'_>,
    text: &str,
    head: Option<&Inspected<'_>>,
    parsed: Option<Parsed<'_>>,
    out: &Outbound,
) -> Response {
    if let Some(v) = value_str(headers.version) {
        match ProtocolVersion::parse(v) {
            Some(pv) if pv.is_modern() => {
                return error_for(
                    StatusCode::BAD_REQUEST,
                    codes::INVALID_PARAMS,
                    "Invalid params: missing `_meta.io.modelcontextprotocol/protocolVersion` and `_meta.io.modelcontextprotocol/clientCapabilities` for MCP-Protocol-Version 2026-07-28",
                    head,
                );
            }
            Some(_) => {}
            None => {
                return error_for(
                    StatusCode::BAD_REQUEST,
                    codes::INVALID_REQUEST,
                    &format!("Bad Request: unsupported MCP-Protocol-Version '{v}'"),
                    head,
                );
            }
        }
    }
    if st.cfg.stateless {
        // Every request stands alone: no session is looked up, opened or stored.
        let mut slot = SessionSlot::stateless();
        return match dispatch(st, text, parsed, request, &mut slot, out).await {
            None => empty(StatusCode::ACCEPTED),
            Some(reply) => reply_response(reply),
        };
    }
    if head.is_some_and(|h| h.known == Some(Method::Initialize)) {
        // Boxed: once per session, and inline it would make every request's future larger.
        return Box::pin(initialize(st, request, text, parsed, out)).await;
    }
    let (Some(sent), Some(id)) = (headers.session, value_str(headers.session)) else {
        return error_for(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required (send `initialize` first)",
            head,
        );
    };
    // Without a session store, the session and the count of its requests in flight are one
    // lookup; with one, the store has a say (`find_session`).
    let local = match &st.cfg.session_store {
        None => st
            .sessions
            .get_and_begin(id, st.cfg.max_requests_per_session)
            .ok(),
        Some(_) => None,
    };
    let (session, in_flight) = match local {
        Some((session, counted)) => (session, counted.then_some(InFlight { st, id })),
        None => match find_session(st, id, head).await {
            Ok(session) => (session, InFlight::begin(st, id)),
            Err(resp) => return resp,
        },
    };
    let Some(_in_flight) = in_flight else {
        let max = st.cfg.max_requests_per_session;
        return super::busy(
            StatusCode::TOO_MANY_REQUESTS,
            &format!(
                "Too many requests in flight on this session (HttpConfig::max_requests_per_session is {max}); retry later"
            ),
        );
    };
    let version = session.protocol_version;
    let mut slot = SessionSlot::new(Some(Session::clone(&session)));
    let reply = dispatch(st, text, parsed, request, &mut slot, out).await;
    // The request is over for `disconnect` (the session lives on).
    if let Some(session) = slot.get() {
        st.dispatcher.disconnect(session).await;
    }
    if slot.changed()
        && let Some(s) = slot.into_session()
    {
        let level_changed = s.log_level != session.log_level;
        let s = Arc::new(s);
        st.sessions.update(Arc::clone(&s));
        if level_changed
            && let Some(store) = &st.cfg.session_store
            && let Err(e) = super::shared::persist(st, store.as_ref(), &s).await
        {
            return super::shared::store_failed(&e, head);
        }
    }
    let Some(reply) = reply else {
        return empty(StatusCode::ACCEPTED);
    };
    if reply.status != Status::Ok || st.cfg.response_mode == ResponseMode::Auto {
        let mut resp = reply_response(reply);
        if let Some(v) = trimmed_value(Some(sent)) {
            resp.headers_mut().insert(SESSION_HEADER, v);
        }
        return resp;
    }
    sse_reply(st, id, version, reply).await
}

async fn initialize<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    text: &str,
    parsed: Option<Parsed<'_>>,
    out: &Outbound,
) -> Response {
    let id = new_session_id();
    let mut slot = SessionSlot::opening(Arc::clone(&id));
    let reply = dispatch(st, text, parsed, request, &mut slot, out).await;
    let Some(reply) = reply else {
        return empty(StatusCode::ACCEPTED);
    };
    let Some(session) = slot.into_session() else {
        return reply_response(reply);
    };
    let version = session.protocol_version;
    let shared = st.cfg.session_store.as_ref().map(|_| session.clone());
    let inserted = st.sessions.insert(session, request.peer.map(|p| p.ip()));
    forget_evicted(st).await;
    if let (Ok(()), Some(store), Some(session)) = (&inserted, &st.cfg.session_store, &shared)
        && let Err(e) = super::shared::create(st, store.as_ref(), session).await
    {
        st.sessions.remove(&id);
        return super::shared::store_failed(&e, None);
    }
    match inserted {
        Ok(()) => {}
        Err(Refused::Full) => {
            let max = st.cfg.max_sessions;
            return super::busy(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!("Too many sessions (HttpConfig::max_sessions is {max}); retry later"),
            );
        }
        Err(Refused::PeerFull) => {
            let max = st.cfg.max_sessions_per_peer.unwrap_or_default();
            return super::busy(
                StatusCode::TOO_MANY_REQUESTS,
                &format!(
                    "Too many sessions from this address (HttpConfig::max_sessions_per_peer is {max}); end one with DELETE or retry later"
                ),
            );
        }
    }
    let mut resp = if st.cfg.response_mode == ResponseMode::Sse {
        sse_reply(st, &id, version, reply).await
    } else {
        reply_response(reply)
    };
    if let Ok(v) = HeaderValue::from_str(&id) {
        resp.headers_mut().insert(SESSION_HEADER, v);
    }
    resp
}
