//! A server on `127.0.0.1:0`, a small HTTP/1.1 client on hyper's connection API (so every header,
//! including `Host`, is exactly what the test wrote), an SSE reader, and the router under test.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper_util::rt::TokioIo;
use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// How long any single network step may take before the test fails instead of hanging.
pub(crate) const STEP: Duration = Duration::from_secs(10);

pub(crate) const LEGACY: &str = "2025-11-25";
pub(crate) const MODERN: &str = "2026-07-28";

/// The `WWW-Authenticate` challenge of the `anonymous` role.
pub(crate) fn challenge() -> WwwAuthenticate {
    WwwAuthenticate::bearer()
        .resource_metadata("https://lab.example/.well-known/oauth-protected-resource")
        .scope("lab:read")
}

/// The router under test. `terminated` records the session ids `terminate` saw.
#[derive(Clone, Default)]
pub(crate) struct Lab {
    pub(crate) terminated: Arc<Mutex<Vec<String>>>,
}

#[mcp_router(name = "lab", version = "1.0.0")]
impl Lab {
    /// Echo the text back.
    #[tool]
    async fn echo(&self, text: String) -> String {
        format!("echo: {text}")
    }

    /// One note by id.
    #[resource("lab:///notes/<id>", mime_type = "text/plain")]
    async fn note(&self, id: u64) -> Option<String> {
        (id < 10).then(|| format!("note {id}"))
    }

    /// `x-role: anonymous` is unauthenticated, `x-role: banned` is forbidden.
    async fn connect(&self, _session: &mut Session, request: &Request) -> Connect {
        match request.header("x-role") {
            Some("anonymous") => Connect::Unauthorized(challenge()),
            Some("banned") => Connect::Forbidden("banned from the lab".into()),
            _ => Connect::Ok,
        }
    }

    /// Records the session.
    async fn terminate(&self, session: &Session) -> Result<(), Error> {
        let id = session.id.as_deref().unwrap_or("<none>").to_owned();
        self.terminated.lock().expect("terminate log").push(id);
        Ok(())
    }
}

/// Asks before it deletes: an elicitation on the request's stream. `connect` takes the principal
/// from the `x-user` header (none without it).
#[derive(Clone)]
pub(crate) struct Confirmer;

#[mcp_router(name = "confirmer", version = "1.0.0")]
impl Confirmer {
    /// Deletes nothing, after asking.
    #[tool]
    async fn delete(&self, ctx: Ctx) -> String {
        let form = Form::new().required("ok", Field::boolean());
        let answer: Elicitation<Value> = ctx.elicit("confirm", "Delete it?", form).await;
        format!("delete {}", answer.action())
    }

    /// The principal is the `x-user` header (none without it).
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        session.principal = request
            .headers
            .get("x-user")
            .and_then(|v| v.to_str().ok())
            .map(Into::into);
        Connect::Ok
    }
}

/// Sets its flag when dropped: a handler holding one shows it was stopped (the scale tests').
#[allow(dead_code)]
pub(crate) struct Dropped(pub(crate) Arc<std::sync::atomic::AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A running server; shut down (gracefully) on drop.
pub(crate) struct TestServer {
    pub(crate) addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
}

impl TestServer {
    pub(crate) async fn start(config: HttpConfig) -> Self {
        Self::start_with(Lab::default(), config).await
    }

    pub(crate) async fn start_with<S: Server>(server: S, http: HttpConfig) -> Self {
        Self::start_dispatcher(phantom::dispatch::Dispatcher::new(server), http).await
    }

    /// Serves `server` with its own `Config` (middleware, stores, a backend).
    #[allow(dead_code)]
    pub(crate) async fn start_configured<S: Server>(
        server: S,
        config: phantom::Config,
        http: HttpConfig,
    ) -> Self {
        let dispatcher = phantom::dispatch::Dispatcher::with_config(server, config);
        Self::start_dispatcher(dispatcher, http).await
    }

    /// Serves a dispatcher the test keeps a clone of (for its registry).
    pub(crate) async fn start_dispatcher<S: Server>(
        dispatcher: phantom::dispatch::Dispatcher<S>,
        config: HttpConfig,
    ) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let shutdown = async move {
                let _ = rx.await;
            };
            phantom::http::serve_dispatcher(listener, dispatcher, config, shutdown)
                .await
                .expect("the server runs");
        });
        Self {
            addr,
            shutdown: Some(tx),
        }
    }

    /// A server this test did not start (a child process's), at `addr`.
    #[allow(dead_code)] // `tests/scale/` shares this file
    pub(crate) fn at(addr: SocketAddr) -> Self {
        Self {
            addr,
            shutdown: None,
        }
    }

    /// Begins the server's shutdown, as its signal would; the server stays reachable for as
    /// long as it still accepts.
    #[allow(dead_code)] // `tests/scale/` shares this file
    pub(crate) fn shut_down(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// The GET stream of a legacy session, past its priming event.
    pub(crate) async fn get_stream(&self, session: &str) -> Sse {
        let mut stream = self
            .request(Method::GET)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .send()
            .await
            .sse();
        let priming = stream.next().await.expect("a priming event");
        assert!(priming.is_priming(), "{priming:?}");
        stream
    }

    /// A request to `/mcp` with `Host: 127.0.0.1:<port>` and nothing else.
    pub(crate) fn request(&self, method: Method) -> Call {
        Call {
            addr: self.addr,
            method,
            path: "/mcp",
            headers: vec![("host".into(), self.addr.to_string())],
            body: None,
        }
    }

    /// A POST of `body` with the `Accept` and `Content-Type` a conforming client sends.
    pub(crate) fn post(&self, body: &Value) -> Call {
        self.request(Method::POST)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string())
    }

    /// A legacy POST in a session.
    pub(crate) fn post_in(&self, session: &str, body: &Value) -> Call {
        self.post(body).header("mcp-session-id", session)
    }

    /// A modern POST: `body` gets the `_meta` envelope; the three standard headers are set from it.
    pub(crate) fn post_modern(&self, method: &str, params: Value) -> Call {
        let name = match method {
            "tools/call" | "prompts/get" => params["name"].as_str().map(str::to_owned),
            "resources/read" => params["uri"].as_str().map(str::to_owned),
            "tasks/get" | "tasks/update" | "tasks/cancel" => {
                params["taskId"].as_str().map(str::to_owned)
            }
            _ => None,
        };
        let call = self
            .post(&modern_request(1, method, params))
            .header("mcp-protocol-version", MODERN)
            .header("mcp-method", method);
        match name {
            Some(n) => call.header("mcp-name", &n),
            None => call,
        }
    }

    /// Legacy `initialize` at `version`, then `notifications/initialized`; the session id.
    pub(crate) async fn initialize(&self, version: &str) -> String {
        self.initialize_as(version, None).await
    }

    /// [`initialize`](Self::initialize) with `Authorization: <authorization>` on both requests.
    #[allow(dead_code)] // `tests/client/` uses it
    pub(crate) async fn initialize_with(&self, version: &str, authorization: &str) -> String {
        self.initialize_as(version, Some(authorization)).await
    }

    async fn initialize_as(&self, version: &str, authorization: Option<&str>) -> String {
        let with = |call: Call| match authorization {
            Some(a) => call.header("authorization", a),
            None => call,
        };
        let reply = with(self.post(&initialize_request(version))).send().await;
        assert_eq!(reply.status, StatusCode::OK, "initialize");
        let session = reply
            .session_id()
            .expect("initialize assigns Mcp-Session-Id");
        let _ = reply.text().await;
        let ack = with(self.post_in(&session, &notification("notifications/initialized")))
            .send()
            .await;
        assert_eq!(
            ack.status,
            StatusCode::ACCEPTED,
            "notifications/initialized"
        );
        session
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

type ReqBody = BoxBody<Bytes, Infallible>;

/// One HTTP request, sent on its own connection.
pub(crate) struct Call {
    addr: SocketAddr,
    method: Method,
    path: &'static str,
    headers: Vec<(String, String)>,
    body: Option<ReqBody>,
}

impl Call {
    /// Sends to `path` instead of `/mcp`.
    pub(crate) fn path(mut self, path: &'static str) -> Self {
        self.path = path;
        self
    }

    /// Adds a header (a second value of the same name is added, not replaced).
    pub(crate) fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Replaces every value of a header (`None` removes it).
    pub(crate) fn set_header(mut self, name: &str, value: Option<&str>) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if let Some(v) = value {
            self.headers.push((name.to_owned(), v.to_owned()));
        }
        self
    }

    /// A body with `Content-Length`.
    pub(crate) fn body(mut self, text: impl Into<Bytes>) -> Self {
        self.body = Some(Full::new(text.into()).boxed());
        self
    }

    /// A body sent as `Transfer-Encoding: chunked` (no `Content-Length`), one chunk per item.
    pub(crate) fn chunked_body(mut self, chunks: Vec<Bytes>) -> Self {
        let frames = futures_util::stream::iter(
            chunks
                .into_iter()
                .map(|c| Ok::<_, Infallible>(Frame::data(c))),
        );
        self.body = Some(StreamBody::new(frames).boxed());
        self
    }

    pub(crate) async fn send(self) -> Reply {
        tokio::time::timeout(STEP, self.send_inner())
            .await
            .expect("the server answers in time")
    }

    async fn send_inner(self) -> Reply {
        let tcp = tokio::net::TcpStream::connect(self.addr)
            .await
            .expect("connect");
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .expect("handshake");
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let mut builder = http::Request::builder().method(self.method).uri(self.path);
        for (name, value) in &self.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let body = self.body.unwrap_or_else(|| Full::new(Bytes::new()).boxed());
        let request = builder.body(body).expect("a valid request");
        let response = sender.send_request(request).await.expect("a response");
        let (parts, body) = response.into_parts();
        Reply {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }
}

/// A response whose body has not been read yet.
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    body: Incoming,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("an ASCII header value"))
    }

    pub(crate) fn content_type(&self) -> Option<&str> {
        self.header("content-type")
    }

    pub(crate) fn session_id(&self) -> Option<String> {
        self.header("mcp-session-id").map(str::to_owned)
    }

    pub(crate) async fn bytes(self) -> Bytes {
        tokio::time::timeout(STEP, self.body.collect())
            .await
            .expect("the body ends in time")
            .expect("the body reads")
            .to_bytes()
    }

    pub(crate) async fn text(self) -> String {
        String::from_utf8(self.bytes().await.to_vec()).expect("a UTF-8 body")
    }

    /// The body as JSON; asserts the content type.
    pub(crate) async fn json(self) -> Value {
        assert_eq!(
            self.content_type(),
            Some("application/json"),
            "status {}",
            self.status
        );
        let text = self.text().await;
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }

    /// Asserts `status` and a JSON-RPC error `code`; returns the error object.
    pub(crate) async fn expect_error(self, status: StatusCode, code: i64) -> Value {
        assert_eq!(self.status, status);
        let body = self.json().await;
        assert_eq!(body["jsonrpc"], "2.0", "{body}");
        assert_eq!(body["error"]["code"], code, "{body}");
        body["error"].clone()
    }

    /// The body as an SSE stream; asserts the content type.
    pub(crate) fn sse(self) -> Sse {
        assert_eq!(self.status, StatusCode::OK);
        assert_eq!(self.content_type(), Some("text/event-stream"));
        Sse {
            body: self.body,
            buffer: String::new(),
        }
    }
}

/// One SSE block: an event (`id`, `retry`, `data`) or a comment-only block.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    pub(crate) id: Option<String>,
    pub(crate) retry: Option<u64>,
    pub(crate) data: Option<String>,
    pub(crate) comments: Vec<String>,
}

impl Event {
    /// The data as JSON.
    pub(crate) fn json(&self) -> Value {
        let data = self.data.as_deref().expect("an event with data");
        serde_json::from_str(data).unwrap_or_else(|e| panic!("not JSON ({e}): {data}"))
    }

    /// A priming event: an id, `retry`, and empty data.
    pub(crate) fn is_priming(&self) -> bool {
        self.id.is_some() && self.retry.is_some() && self.data.as_deref() == Some("")
    }
}

/// An incremental SSE reader.
pub(crate) struct Sse {
    body: Incoming,
    buffer: String,
}

impl Sse {
    /// Reads a body of the client's own making (an HTTP/2 stream's, say).
    pub(crate) fn of(body: Incoming) -> Self {
        Self {
            body,
            buffer: String::new(),
        }
    }

    /// The next block, `None` at the end of the stream.
    pub(crate) async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(at) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..at + 2).collect();
                return Some(parse_block(&block));
            }
            let frame = tokio::time::timeout(STEP, self.body.frame())
                .await
                .expect("an SSE frame in time");
            match frame {
                None => {
                    assert!(
                        self.buffer.trim().is_empty(),
                        "unterminated event: {:?}",
                        self.buffer
                    );
                    return None;
                }
                Some(frame) => {
                    if let Ok(data) = frame.expect("the stream reads").into_data() {
                        self.buffer
                            .push_str(std::str::from_utf8(&data).expect("UTF-8 SSE"));
                    }
                }
            }
        }
    }

    /// The next JSON-RPC message, skipping keep-alive comments; within 10 s.
    #[allow(dead_code)] // `tests/scale/` uses it
    pub(crate) async fn next_message(&mut self) -> Value {
        loop {
            let event = tokio::time::timeout(Duration::from_secs(10), self.next())
                .await
                .expect("a message within 10 s")
                .expect("the stream stays open");
            if event.data.as_deref().is_some_and(|d| !d.is_empty()) {
                return event.json();
            }
        }
    }

    /// Every remaining block until the stream ends.
    pub(crate) async fn rest(mut self) -> Vec<Event> {
        let mut out = Vec::new();
        while let Some(e) = self.next().await {
            out.push(e);
        }
        out
    }
}

fn parse_block(block: &str) -> Event {
    let mut event = Event::default();
    for line in block.lines().filter(|l| !l.is_empty()) {
        if let Some(comment) = line.strip_prefix(':') {
            event.comments.push(comment.trim().to_owned());
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => event.id = Some(value.to_owned()),
            "retry" => event.retry = Some(value.parse().expect("a numeric retry")),
            "data" => {
                event.data = Some(match event.data.take() {
                    Some(d) => format!("{d}\n{value}"),
                    None => value.to_owned(),
                });
            }
            other => panic!("unexpected SSE field `{other}` in {block:?}"),
        }
    }
    event
}

pub(crate) fn initialize_request(version: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "http-tests", "version": "1.0.0"},
        },
    })
}

pub(crate) fn request(id: u64, method: &str, params: Value) -> Value {
    let mut body = json!({"jsonrpc": "2.0", "id": id, "method": method});
    body["params"] = params;
    body
}

pub(crate) fn notification(method: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": method})
}

pub(crate) fn echo_call(id: u64, text: &str) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": text}}),
    )
}

/// A complete 2026-07-28 `_meta`.
pub(crate) fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

pub(crate) fn modern_request(id: u64, method: &str, mut params: Value) -> Value {
    if params.get("_meta").is_none() {
        params["_meta"] = modern_meta();
    }
    request(id, method, params)
}

/// The text of the first content item of a `tools/call` result.
pub(crate) fn first_text(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {result}"))
}

/// Every other character of `text` written as a `\uXXXX` escape, and every `/` as `\/`.
pub(crate) fn escaped(text: &str) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| match c {
            '/' => "\\/".to_owned(),
            c if i % 2 == 0 => format!("\\u{:04x}", u32::from(c)),
            c => c.to_string(),
        })
        .collect()
}

/// `body` as text, with each of `words` (JSON strings in it) written escaped when `escape`.
pub(crate) fn spelled(body: &Value, words: &[&str], escape: bool) -> String {
    let mut text = body.to_string();
    if escape {
        for word in words {
            text = text.replace(&format!("\"{word}\""), &format!("\"{}\"", escaped(word)));
        }
    }
    text
}
