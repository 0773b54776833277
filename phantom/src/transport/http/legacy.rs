//! A legacy session over HTTP: opened by `initialize` (its id chosen here, the session kept on
//! this node and, with a session store, shared), found again by its `Mcp-Session-Id`, its
//! requests counted in flight, and stored again when a request changed it. `post.rs` hands each
//! message to the dispatcher between [`begin`] and [`keep`].

use std::sync::Arc;

use axum::response::Response;
use http::StatusCode;
use http::header::HeaderValue;

use super::HttpState;
use super::config::ResponseMode;
use super::headers::{SESSION_HEADER, trimmed_value};
use super::message::{Inspected, Message};
use super::post::dispatch;
use super::response::{empty, reply_response, sse_reply};
use super::session::{find_session, forget_evicted};
use crate::kernel::{Outbound, Reply, Status};
use crate::protocol::ProtocolVersion;
use crate::server::Server;
use crate::session::{Request, Session, SessionSlot};
use crate::transport::sessions::{Refused, new_session_id};

/// A request of a legacy session counted in flight until it is dropped.
pub(super) struct InFlight<'a, S: Server> {
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

/// The session `id` and its request counted in flight (until the guard drops), or the answer
/// that refuses the request: `404` for a session that is gone, `429` when it has too many
/// requests in flight.
pub(super) async fn begin<'a, S: Server>(
    st: &'a Arc<HttpState<S>>,
    id: &'a str,
    seen: Option<&Inspected<'_>>,
) -> Result<(Arc<Session>, InFlight<'a, S>), Response> {
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
        None => {
            let session = find_session(st, id, seen).await?;
            (session, InFlight::begin(st, id))
        }
    };
    let Some(in_flight) = in_flight else {
        let max = st.cfg.max_requests_per_session;
        return Err(super::busy(
            StatusCode::TOO_MANY_REQUESTS,
            &format!(
                "Too many requests in flight on this session (HttpConfig::max_requests_per_session is {max}); retry later"
            ),
        ));
    };
    Ok((session, in_flight))
}

/// Keeps what a request changed of its session (`was`, as it was found): on this node, and in
/// the session store when its log level changed.
pub(super) async fn keep<S: Server>(
    st: &Arc<HttpState<S>>,
    was: &Session,
    slot: SessionSlot,
    seen: Option<&Inspected<'_>>,
) -> Result<(), Response> {
    if !slot.changed() {
        return Ok(());
    }
    let Some(s) = slot.into_session() else {
        return Ok(());
    };
    let level_changed = s.log_level != was.log_level;
    let s = Arc::new(s);
    st.sessions.update(Arc::clone(&s));
    if level_changed
        && let Some(store) = &st.cfg.session_store
        && let Err(e) = super::shared::persist(st, store.as_ref(), &s).await
    {
        return Err(super::shared::store_failed(&e, "sessions", seen));
    }
    Ok(())
}

/// The answer to a message on the session `id` (its `Mcp-Session-Id` as `sent`): `202` without
/// a reply; the reply as JSON (with the session's id) when it is an error or the endpoint
/// answers JSON; else as an SSE event.
pub(super) async fn answer_on_session<S: Server>(
    st: &Arc<HttpState<S>>,
    (sent, id): (&HeaderValue, &str),
    version: ProtocolVersion,
    reply: Option<Reply>,
) -> Response {
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

/// `initialize`: the session it opens gets an id, is kept on this node and, with a session
/// store, stored; its id goes back in `Mcp-Session-Id`.
pub(super) async fn initialize<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    message: Message<'_>,
    out: &Outbound,
) -> Response {
    let id = new_session_id();
    let mut slot = SessionSlot::opening(Arc::clone(&id));
    let reply = dispatch(st, message, request, &mut slot, out).await;
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
        return super::shared::store_failed(&e, "sessions", None);
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
