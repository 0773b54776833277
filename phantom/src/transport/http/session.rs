//! GET (the legacy session's stream) and DELETE (ending a legacy session).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures_util::StreamExt as _;
use http::StatusCode;
use http::header::{self, HeaderValue};
use tokio::sync::oneshot;

use super::headers::{LAST_EVENT_ID, SESSION_HEADER, accepts, header_str};
use super::message::Inspected;
use super::response::{empty, error_for, plain, reply_response, sse_headers};
use super::{HttpState, shared};
use crate::protocol::Era;
use crate::protocol::{ProtocolVersion, codes};
use crate::server::Server;
use crate::session::{Request, Session};
use crate::store::StoredEvent;
use crate::subscriptions::{Kind, Registration};
use crate::telemetry::metrics::{OpenStream, StreamKind};
use crate::transport::sse;

/// The stored session `id`, or the 404 that unknown, terminated and evicted ids all get (with the
/// request's JSON-RPC id when it is known).
pub(super) async fn find_session<S: Server>(
    st: &Arc<HttpState<S>>,
    id: &str,
    head: Option<&Inspected<'_>>,
) -> Result<Arc<Session>, Response> {
    let local = st.sessions.get(id).ok();
    match &st.cfg.session_store {
        None => {
            if let Some(session) = local {
                return Ok(session);
            }
        }
        Some(store) => match shared::find(st, store.as_ref(), id, local, head).await {
            shared::Found::Live(session) => return Ok(session),
            shared::Found::Gone => {}
            shared::Found::Failed(resp) => return Err(resp),
            shared::Found::Full => {
                let max = st.cfg.max_sessions;
                return Err(super::busy(
                    StatusCode::SERVICE_UNAVAILABLE,
                    &format!(
                        "Too many sessions on this node (HttpConfig::max_sessions is {max}); retry later"
                    ),
                ));
            }
        },
    }
    forget_evicted(st).await;
    Err(error_for(
        StatusCode::NOT_FOUND,
        codes::CONNECT_REJECTED,
        "Session not found",
        head,
    ))
}

/// Drops the stored events of sessions the table evicted for idleness.
pub(super) async fn forget_evicted<S: Server>(st: &Arc<HttpState<S>>) {
    for id in st.sessions.take_evicted() {
        forget_events(st, &id).await;
        forget_subscriptions(st, &id).await;
    }
}

/// Drops a session's stored events (it ended, or was evicted).
async fn forget_events<S: Server>(st: &Arc<HttpState<S>>, id: &str) {
    if let Err(e) = st.cfg.event_store.forget(id).await {
        tracing::warn!(error = %e, session = id, "could not forget the session's events");
    }
}

/// Drops a session's resource subscriptions (it ended, or was evicted).
async fn forget_subscriptions<S: Server>(st: &Arc<HttpState<S>>, id: &str) {
    if let Err(e) = st.dispatcher.config().subscriptions.forget(id).await {
        tracing::warn!(error = %e, session = id, "could not forget the session's subscriptions");
    }
}

/// Runs `connect` for a GET or DELETE on a legacy session (the principal that opened the session
/// must be the one asking).
async fn connect_session<S: Server>(
    st: &Arc<HttpState<S>>,
    session: &Session,
    request: &Request,
) -> Option<Response> {
    let mut session = session.clone();
    let refused = st
        .dispatcher
        .connect_session(&mut session, request)
        .await
        .err()?;
    Some(reply_response(st.dispatcher.error_reply(
        None,
        refused.error,
        refused.status,
        Era::Legacy,
    )))
}

fn method_not_allowed(stateless: bool) -> Response {
    let message = if stateless {
        "Method not allowed: this server runs in stateless mode (no sessions), so only POST is served"
    } else {
        "Method not allowed: without an Mcp-Session-Id only POST is served"
    };
    let mut resp = plain(
        StatusCode::METHOD_NOT_ALLOWED,
        codes::INVALID_REQUEST,
        message,
    );
    resp.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    resp
}

struct StreamGuard<S: Server> {
    st: Arc<HttpState<S>>,
    session: String,
    generation: u64,
    /// Counts the stream open (nothing without the `metrics` feature).
    _open: OpenStream,
}

impl<S: Server> Drop for StreamGuard<S> {
    fn drop(&mut self) {
        self.st
            .sessions
            .close_stream(&self.session, self.generation);
        // The stream is over for `disconnect`; a session DELETE already ended runs it there.
        let (Ok(session), Ok(runtime)) = (
            self.st.sessions.get(&self.session),
            tokio::runtime::Handle::try_current(),
        ) else {
            return;
        };
        let st = Arc::clone(&self.st);
        runtime.spawn(async move { st.dispatcher.disconnect(&session).await });
    }
}

pub(super) async fn get<S: Server>(st: &Arc<HttpState<S>>, request: Request) -> Response {
    let id = header_str(&request.headers, SESSION_HEADER).filter(|_| !st.cfg.stateless);
    let Some(id) = id.map(str::to_owned) else {
        return method_not_allowed(st.cfg.stateless);
    };
    if !accepts(&request.headers, "text/event-stream") {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Not Acceptable: GET needs Accept: text/event-stream",
        );
    }
    let session = match find_session(st, &id, None).await {
        Ok(session) => session,
        Err(resp) => return resp,
    };
    if let Some(resp) = connect_session(st, &session, &request).await {
        return resp;
    }
    let mut replayed = Vec::new();
    if let Some(last) = header_str(&request.headers, LAST_EVENT_ID) {
        match st.cfg.event_store.replay(&id, last).await {
            Ok(Some((stream, events))) if stream != GET_STREAM => {
                return resume_post_stream(st, &id, &stream, &events);
            }
            // The named event was sent already.
            Ok(Some((_, events))) => replayed = events.into_iter().skip(1).collect(),
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(error = %e, session = %id, "stored events could not be read");
                return shared::store_failed(&e, "events", None);
            }
        }
    }
    if let Some(full) = st.streams_full() {
        return full;
    }
    let (tx, rx) = oneshot::channel::<()>();
    let Some(Some(generation)) = st.sessions.open_stream(&id, tx) else {
        return plain(
            StatusCode::CONFLICT,
            codes::INVALID_REQUEST,
            "Conflict: this session already has a GET stream",
        );
    };
    let guard = StreamGuard {
        st: Arc::clone(st),
        session: id.clone(),
        generation,
        _open: OpenStream::new(StreamKind::Get),
    };
    let mut first = Vec::new();
    if session.protocol_version >= ProtocolVersion::V2025_11_25
        && let Some(primed) = super::response::store_event(st, &id, GET_STREAM, "").await
    {
        first.push(sse::priming(
            &primed,
            st.cfg.sse_retry.as_millis().try_into().unwrap_or(u64::MAX),
        ));
    }
    first.extend(replayed.iter().map(|e| sse::replayed(&e.id, &e.data)));
    // Change notifications (list changes, updates of subscribed resources) come while the stream
    // is open; a session without an open stream misses them (they are not kept).
    let (registration, changes) = st
        .dispatcher
        .listen_for_changes(Arc::clone(&session), Kind::Session);
    let resumable = session.protocol_version >= ProtocolVersion::V2025_11_25;
    let keep_alive = st.cfg.sse_keep_alive;
    let live = Live {
        row: rx,
        changes,
        _registration: registration,
        guard,
        tick: tokio::time::interval_at(tokio::time::Instant::now() + keep_alive, keep_alive),
        resumable,
        ended: false,
        session: Arc::from(id.as_str()),
        storing: None,
    };
    let stream = futures_util::stream::iter(first)
        .chain(live)
        .map(Ok::<_, Infallible>);
    let mut resp = Response::new(Body::from_stream(stream));
    sse_headers(&mut resp);
    resp
}

/// An open GET stream: what it carries and what it holds open. Polled in place (a
/// `stream::unfold` would keep the future of a whole turn beside it, about 1 KB per held
/// stream); only a change being stored in the event store has a future of its own.
struct Live<S: Server> {
    /// Resolves (with an error) once the session's row drops its sender.
    row: oneshot::Receiver<()>,
    changes: crate::subscriptions::Changes,
    _registration: Registration,
    guard: StreamGuard<S>,
    tick: tokio::time::Interval,
    resumable: bool,
    /// The stream is over (its row dropped the sender, or the changes ended): nothing is polled
    /// again.
    ended: bool,
    /// The session's id, shared by the futures that store its events.
    session: Arc<str>,
    storing: Option<Pin<Box<dyn Future<Output = Bytes> + Send>>>,
}

impl<S: Server> futures_util::Stream for Live<S> {
    type Item = Bytes;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let this = self.get_mut();
        if let Some(storing) = &mut this.storing {
            let frame = std::task::ready!(storing.as_mut().poll(cx));
            this.storing = None;
            return Poll::Ready(Some(frame));
        }
        if this.ended {
            return Poll::Ready(None);
        }
        if Pin::new(&mut this.row).poll(cx).is_ready() {
            this.ended = true;
            return Poll::Ready(this.guard.st.retry_hint());
        }
        match this.changes.poll_next_unpin(cx) {
            Poll::Ready(None) => {
                this.ended = true;
                return Poll::Ready(this.guard.st.retry_hint());
            }
            Poll::Ready(Some(message)) if !this.resumable => {
                return Poll::Ready(Some(sse::event(None, &message)));
            }
            Poll::Ready(Some(message)) => {
                // A change notification on a resumable stream: with a stored id.
                let st = Arc::clone(&this.guard.st);
                let session = Arc::clone(&this.session);
                this.storing = Some(Box::pin(async move {
                    let id =
                        super::response::store_event(&st, &session, GET_STREAM, &message).await;
                    sse::event(id.as_deref(), &message)
                }));
                return Pin::new(this).poll_next(cx);
            }
            Poll::Pending => {}
        }
        match this.tick.poll_tick(cx) {
            Poll::Ready(_) => Poll::Ready(Some(sse::keep_alive())),
            Poll::Pending => Poll::Pending,
        }
    }
}

pub(super) async fn delete<S: Server>(st: &Arc<HttpState<S>>, request: Request) -> Response {
    let id = header_str(&request.headers, SESSION_HEADER).filter(|_| !st.cfg.stateless);
    let Some(id) = id.map(str::to_owned) else {
        return method_not_allowed(st.cfg.stateless);
    };
    let session = match find_session(st, &id, None).await {
        Ok(session) => session,
        Err(resp) => return resp,
    };
    if let Some(resp) = connect_session(st, &session, &request).await {
        return resp;
    }
    if let Some(store) = &st.cfg.session_store
        && let Err(e) = shared::delete(st, store.as_ref(), &id).await
    {
        return shared::store_failed(&e, "sessions", None);
    }
    st.sessions.remove(&id);
    forget_events(st, &id).await;
    forget_subscriptions(st, &id).await;
    // The session is forgotten either way; a failing `terminate` answers 204 instead of 200.
    let terminated = st.dispatcher.server().terminate(&session).await;
    crate::telemetry::terminate(&session, terminated.is_ok());
    let status = match terminated {
        Ok(()) => StatusCode::OK,
        Err(e) => {
            tracing::warn!(error = %e, "terminate callback failed");
            StatusCode::NO_CONTENT
        }
    };
    st.dispatcher.disconnect(&session).await;
    empty(status)
}

/// The name of a session's GET stream in the event store.
const GET_STREAM: &str = "g";

/// How long a resumed POST stream waits for the rest of its request (its handler may still be
/// running, on this node or another, as after `Ctx::close_stream`).
const RESUME_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// A POST stream resumed with `Last-Event-ID` (`events` are the stored ones from that event on):
/// what followed that event, then what the node handling its request stores next
/// ([`EventStore::follow`](crate::store::EventStore::follow)), until its response has been sent
/// (or [`RESUME_WAIT`] passes without it).
fn resume_post_stream<S: Server>(
    st: &Arc<HttpState<S>>,
    session: &str,
    stream: &str,
    events: &[StoredEvent],
) -> Response {
    let done = events.iter().any(|e| is_response(&e.data));
    let from = events.last().map(|e| e.id.clone()).unwrap_or_default();
    let mut frames = Vec::new();
    for e in events.iter().skip(1) {
        frames.extend_from_slice(&sse::replayed(&e.id, &e.data));
    }
    let head = futures_util::stream::iter((!frames.is_empty()).then(|| Bytes::from(frames)));
    let deadline = tokio::time::Instant::now() + RESUME_WAIT;
    let tail = if done {
        futures_util::stream::empty().boxed()
    } else {
        let follow = st.cfg.event_store.follow(session, stream, &from);
        futures_util::stream::unfold(Some(follow), move |follow| async move {
            let mut follow = follow?;
            let next = tokio::time::timeout_at(deadline, follow.next()).await;
            match next {
                Ok(Some(Ok(e))) => {
                    let frame = sse::event(Some(&e.id), &e.data);
                    let rest = (!is_response(&e.data)).then_some(follow);
                    Some((frame, rest))
                }
                Ok(Some(Err(error))) => {
                    tracing::debug!(%error, "a resumed stream's events ended");
                    None
                }
                Ok(None) | Err(_) => None,
            }
        })
        .boxed()
    };
    let body = head.chain(tail).map(Ok::<_, Infallible>);
    let mut resp = Response::new(Body::from_stream(body));
    sse_headers(&mut resp);
    resp
}

/// Whether a stored event is a JSON-RPC response (the end of its POST stream).
fn is_response(data: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
        method: Option<serde::de::IgnoredAny>,
        result: Option<serde::de::IgnoredAny>,
        error: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Probe<'_>>(data).is_ok_and(|p| {
        p.id.is_some() && p.method.is_none() && (p.result.is_some() || p.error.is_some())
    })
}
