//! Responses: JSON-RPC error bodies, replies mapped to HTTP statuses, and short SSE answers.

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
use http_body_util::BodyExt as _;
use serde_json::json;
use tokio::sync::mpsc;

use super::HttpState;
use super::headers::SESSION_HEADER;
use super::message::Inspected;
use crate::kernel::{Frame, Frames, Reply, Status};
use crate::protocol::{ProtocolVersion, RequestId};
use crate::server::Server;
use crate::session::Session;
use crate::subscriptions::{Listening, Next};
use crate::telemetry::metrics::{OpenStream, StreamKind};
use crate::transport::sse;

fn rpc_error_body(code: i32, message: &str) -> String {
    rpc_error_body_id(code, message, None)
}

fn rpc_error_body_id(code: i32, message: &str, id: Option<&crate::protocol::RequestId>) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// An error response that keeps the request's JSON-RPC id when it could be read.
pub(super) fn error_for(
    status: StatusCode,
    code: i32,
    message: &str,
    head: Option<&Inspected<'_>>,
) -> Response {
    json_response(
        status,
        rpc_error_body_id(code, message, head.and_then(|h| h.id.as_ref())),
    )
}

pub(super) fn plain(status: StatusCode, code: i32, message: &str) -> Response {
    json_response(status, rpc_error_body(code, message))
}

pub(super) fn json_response(status: StatusCode, body: String) -> Response {
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

pub(super) fn empty(status: StatusCode) -> Response {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = status;
    resp
}

fn status_of(reply: &Reply) -> StatusCode {
    match reply.status {
        Status::Ok => StatusCode::OK,
        Status::BadRequest => StatusCode::BAD_REQUEST,
        Status::MethodNotFound | Status::SessionNotFound => StatusCode::NOT_FOUND,
        Status::Unauthorized(_) => StatusCode::UNAUTHORIZED,
        Status::Forbidden | Status::InsufficientScope(_) => StatusCode::FORBIDDEN,
        Status::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
    }
}

pub(super) fn reply_response(reply: Reply) -> Response {
    let status = status_of(&reply);
    let challenge = match &reply.status {
        Status::Unauthorized(c) | Status::InsufficientScope(c) => {
            HeaderValue::from_str(&c.to_string()).ok()
        }
        _ => None,
    };
    let mut resp = json_response(status, reply.body);
    if let Some(c) = challenge {
        resp.headers_mut().insert(header::WWW_AUTHENTICATE, c);
    }
    if let Status::TooManyRequests(secs) = reply.status {
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
    }
    resp
}

pub(super) fn sse_headers(resp: &mut Response) {
    let h = resp.headers_mut();
    if h.is_empty() {
        // Room for exactly these three: hyper keeps a response head's map for the connection's
        // next response, so a held stream holds it (0.3 KB; the first insert would size it for 6).
        *h = http::HeaderMap::with_capacity(3);
    }
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
}

/// A name for a new POST stream of a session, unique across nodes (the event store keys a
/// stream's events by it).
pub(super) fn new_stream() -> String {
    format!("p{}", crate::kernel::random_id::<9>())
}

/// Stores an event: its id, or `None` (logged) when the store failed — the event is still sent,
/// without an id, so a stored response is never lost for want of resumability.
pub(super) async fn store_event<S: Server>(
    st: &HttpState<S>,
    session: &str,
    stream: &str,
    data: &str,
) -> Option<String> {
    match st.cfg.event_store.append(session, stream, data).await {
        Ok(id) => Some(id),
        Err(e) => {
            crate::telemetry::metrics::store_error("events");
            tracing::warn!(error = %e, session, "an SSE event could not be stored; it is sent without an id");
            None
        }
    }
}

/// Answers one request as a short SSE stream: priming event (2025-11-25+), then the response, each
/// stored for `Last-Event-ID` resumption.
pub(super) async fn sse_reply<S: Server>(
    st: &Arc<HttpState<S>>,
    session_id: &str,
    version: ProtocolVersion,
    reply: Reply,
) -> Response {
    let stream = new_stream();
    let mut frames = Vec::with_capacity(2);
    if version >= ProtocolVersion::V2025_11_25 {
        // Stored too: a client that saw only the priming event resumes from its id.
        if let Some(id) = store_event(st, session_id, &stream, "").await {
            frames.push(sse::priming(
                &id,
                st.cfg.sse_retry.as_millis().try_into().unwrap_or(u64::MAX),
            ));
        }
    }
    let event_id = store_event(st, session_id, &stream, &reply.body).await;
    frames.push(sse::event(event_id.as_deref(), &reply.body));
    let body = Body::from_stream(futures_util::stream::iter(
        frames.into_iter().map(Ok::<_, Infallible>),
    ));
    let mut resp = Response::new(body);
    sse_headers(&mut resp);
    if let Ok(v) = HeaderValue::from_str(session_id) {
        resp.headers_mut().insert(SESSION_HEADER, v);
    }
    resp
}

/// A POST's handling, owned, so that it can carry on inside a streamed response.
pub(super) type Handling = crate::kernel::BoxFuture<'static, Response>;

/// Turns a POST into an SSE stream once its handling sends something before its result: `first`,
/// then every later message, then the result (a JSON reply becomes the last event; an SSE reply is
/// passed through as it is), in the order they were sent.
pub(super) fn streaming(
    first: Frame,
    rx: Frames,
    handling: Handling,
    session: Option<HeaderValue>,
) -> Response {
    struct State {
        first: Option<Frame>,
        rx: Frames,
        handling: Option<Handling>,
        _open: OpenStream,
    }
    let state = State {
        first: Some(first),
        rx,
        handling: Some(handling),
        _open: OpenStream::new(StreamKind::Post),
    };
    // A stream without event ids cannot be resumed, so a request to close it early
    // (`Frame::Close`) is ignored: it becomes an empty frame.
    let frame = |frame: &Frame| match frame {
        Frame::Close => Bytes::new(),
        Frame::KeepAlive => sse::keep_alive(),
        Frame::Message(message) => sse::event(None, message),
    };
    let stream = futures_util::stream::unfold(state, move |mut st| async move {
        if let Some(first) = st.first.take() {
            return Some((frame(&first), st));
        }
        let handling = st.handling.as_mut()?;
        tokio::select! {
            biased;
            Some(message) = st.rx.next() => Some((frame(&message), st)),
            resp = handling => {
                st.handling = None;
                let mut frames = Vec::new();
                while let Ok(message) = st.rx.try_recv() {
                    frames.extend_from_slice(&frame(&message));
                }
                let is_sse = resp
                    .headers()
                    .get(header::CONTENT_TYPE)
                    .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
                let body = resp.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                if is_sse {
                    frames.extend_from_slice(&body);
                } else if !body.is_empty() {
                    frames.extend_from_slice(&sse::event(None, &String::from_utf8_lossy(&body)));
                }
                Some((Bytes::from(frames), st))
            }
        }
    });
    let mut resp = Response::new(Body::from_stream(stream.map(Ok::<_, Infallible>)));
    sse_headers(&mut resp);
    if let Some(id) = session {
        resp.headers_mut().insert(SESSION_HEADER, id);
    }
    resp
}

/// The SSE answer of a 2026-07-28 `subscriptions/listen`: the acknowledgement, the
/// notifications and keep-alives as they come, then (at shutdown) the final result. Its state is
/// the listen alone; a client that closes the stream drops it, and with it the registration.
pub(super) fn listen_response<S: Server>(
    st: Arc<HttpState<S>>,
    id: RequestId,
    listening: Listening,
    session: Arc<Session>,
) -> Response {
    let body = ListenBody {
        open: Some((listening, st, id, session)),
        ending: None,
        _open: OpenStream::new(StreamKind::Listen),
    };
    let mut resp = Response::new(Body::from_stream(body));
    sse_headers(&mut resp);
    resp
}

/// A listen while it streams: the listen, and what its end needs.
type OpenListen<S> = (Listening, Arc<HttpState<S>>, RequestId, Arc<Session>);

/// A listen's SSE answer, polled in place: the listen while it is open, the future of its final
/// result only once it ends. (A `stream::unfold` over `Listening::next` would keep the future of
/// a whole turn beside the listen, about 1 KB more per held stream.)
struct ListenBody<S: Server> {
    open: Option<OpenListen<S>>,
    ending: Option<Pin<Box<dyn Future<Output = Bytes> + Send>>>,
    /// Counts the stream open (nothing without the `metrics` feature).
    _open: OpenStream,
}

impl<S: Server> futures_util::Stream for ListenBody<S> {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(ending) = &mut this.ending {
            let last = std::task::ready!(ending.as_mut().poll(cx));
            this.ending = None;
            return Poll::Ready(Some(Ok(last)));
        }
        let Some((listening, ..)) = &mut this.open else {
            return Poll::Ready(None);
        };
        let frame = match std::task::ready!(listening.poll_next(cx)) {
            Next::Message(message) => sse::event(None, &message),
            Next::KeepAlive => sse::keep_alive(),
            Next::End => {
                let Some((listening, st, id, session)) = this.open.take() else {
                    return Poll::Ready(None);
                };
                this.ending = Some(Box::pin(async move {
                    let reply = st.dispatcher.end_listen(&id, listening, &session).await;
                    let last = sse::event(None, &reply.body);
                    // At shutdown the client learns when to listen again (on another node).
                    match st.retry_hint() {
                        Some(hint) => Bytes::from([&hint[..], &last[..]].concat()),
                        None => last,
                    }
                }));
                return Pin::new(this).poll_next(cx);
            }
        };
        Poll::Ready(Some(Ok(frame)))
    }
}

/// A legacy session's POST stream that a client can resume (2025-11-25 and later): a priming
/// event, then every message and the result as events with ids, each stored in the event store.
/// The handling runs in a task of its own, so neither a dropped stream nor one the handler ends
/// (`Ctx::close_stream`) stops it: what follows is stored, and `GET` with `Last-Event-ID`
/// delivers it.
pub(super) fn resumable<S: Server>(
    st: &Arc<HttpState<S>>,
    session: &str,
    first: Frame,
    mut rx: Frames,
    mut handling: Handling,
) -> Response {
    let (tx, body) = mpsc::unbounded_channel::<Bytes>();
    let mut out = Events {
        st: Arc::clone(st),
        stream: new_stream(),
        session: session.to_owned(),
        tx: Some(tx),
    };
    tokio::spawn(async move {
        out.prime().await;
        out.message(first).await;
        loop {
            tokio::select! {
                biased;
                Some(message) = rx.next() => out.message(message).await,
                resp = &mut handling => {
                    while let Ok(message) = rx.try_recv() {
                        out.message(message).await;
                    }
                    out.result(resp).await;
                    break;
                }
            }
        }
    });
    let open = (body, OpenStream::new(StreamKind::Post));
    let body = futures_util::stream::unfold(open, |(mut rx, open)| async move {
        rx.recv()
            .await
            .map(|frame| (Ok::<_, Infallible>(frame), (rx, open)))
    });
    let mut resp = Response::new(Body::from_stream(body));
    sse_headers(&mut resp);
    if let Ok(v) = HeaderValue::from_str(session) {
        resp.headers_mut().insert(SESSION_HEADER, v);
    }
    resp
}

/// The events of one resumable POST stream: stored, and sent while the client listens.
struct Events<S: Server> {
    st: Arc<HttpState<S>>,
    stream: String,
    session: String,
    tx: Option<mpsc::UnboundedSender<Bytes>>,
}

impl<S: Server> Events<S> {
    fn send(&mut self, frame: Bytes) {
        if self.tx.as_ref().is_some_and(|tx| tx.send(frame).is_err()) {
            self.tx = None;
        }
    }

    async fn store(&self, data: &str) -> Option<String> {
        store_event(&self.st, &self.session, &self.stream, data).await
    }

    async fn prime(&mut self) {
        // Without a stored priming event the stream cannot be resumed: it goes on without one.
        let Some(id) = self.store("").await else {
            return;
        };
        let retry = self
            .st
            .cfg
            .sse_retry
            .as_millis()
            .try_into()
            .unwrap_or(u64::MAX);
        self.send(sse::priming(&id, retry));
    }

    async fn message(&mut self, frame: Frame) {
        let message = match frame {
            Frame::Close => {
                // The client reconnects with `Last-Event-ID` for the rest.
                self.tx = None;
                return;
            }
            Frame::KeepAlive => {
                self.send(sse::keep_alive());
                return;
            }
            Frame::Message(message) => message,
        };
        let id = self.store(&message).await;
        self.send(sse::event(id.as_deref(), &message));
    }

    async fn result(&mut self, resp: Response) {
        let is_sse = resp
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let body = resp
            .into_body()
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        if is_sse {
            // Already framed, with ids, and stored (the SSE response mode).
            self.send(body);
        } else if !body.is_empty() {
            self.message(Frame::Message(String::from_utf8_lossy(&body).into_owned()))
                .await;
        }
    }
}
