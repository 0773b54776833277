//! Streamable HTTP for both protocol eras, as an axum service.
//!
//! ```no_run
//! use phantom::prelude::*;
//!
//! #[derive(Clone)]
//! struct Hello;
//!
//! #[mcp_router(name = "hello", version = "1.0.0")]
//! impl Hello {
//!     /// Greets.
//!     #[tool]
//!     async fn greet(&self, name: String) -> String {
//!         format!("hello {name}")
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     // Alone: http://127.0.0.1:4000/mcp
//!     // phantom::serve(Hello, "127.0.0.1:4000").await
//!     // Or inside your own axum app, behind your own middleware:
//!     let app = axum::Router::new()
//!         .nest_service("/mcp", phantom::http::service(Hello, phantom::http::HttpConfig::default()));
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:4000").await?;
//!     axum::serve(listener, app).await
//! }
//! ```

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::response::Response;
use base64::Engine as _;
use bytes::Bytes;
use futures_util::StreamExt as _;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, StatusCode};
use http_body_util::BodyExt as _;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};

use super::sessions::{Sessions, new_session_id};
use super::sse;
use crate::config::Config;
use crate::dispatch::{Dispatcher, ParamsHead, Reply, Status};
use crate::protocol::Incoming;
use crate::protocol::{ProtocolVersion, codes};
use crate::request::{Request, Transport};
use crate::server::{Connect, Server};
use crate::session::Session;
use crate::store::{EventStore, MemoryEventStore, StoredEvent};

const SESSION_HEADER: header::HeaderName = header::HeaderName::from_static("mcp-session-id");
const VERSION_HEADER: header::HeaderName = header::HeaderName::from_static("mcp-protocol-version");
const METHOD_HEADER: header::HeaderName = header::HeaderName::from_static("mcp-method");
const NAME_HEADER: header::HeaderName = header::HeaderName::from_static("mcp-name");
const LAST_EVENT_ID: header::HeaderName = header::HeaderName::from_static("last-event-id");
const LOOPBACK: [&str; 4] = ["localhost", "127.0.0.1", "[::1]", "::1"];

/// How POST requests are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ResponseMode {
    /// `application/json` when the handler sent nothing before its result, SSE otherwise.
    #[default]
    Auto,
    /// Always an SSE stream (priming event, then the response), resumable with `Last-Event-ID`.
    Sse,
}

/// Settings of the HTTP transport. The defaults are safe for a server bound to loopback.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpConfig {
    /// Hosts (`Host` header, without port) that may reach the server; `None` allows any. Default:
    /// loopback names only, against DNS rebinding.
    pub allowed_hosts: Option<Vec<String>>,
    /// Extra allowed `Origin`s (e.g. `https://app.example.com`); loopback origins are allowed when the
    /// hosts are restricted to loopback, and same-host origins otherwise.
    pub allowed_origins: Vec<String>,
    /// Largest request body, counted on the bytes actually read (default 4 MiB).
    pub body_limit: usize,
    /// Most legacy sessions kept at once (default 100 000).
    pub max_sessions: usize,
    /// A legacy session idle this long is evicted (default 30 minutes).
    pub session_idle_ttl: Duration,
    /// Interval of SSE keep-alive comments (default 15 s).
    pub sse_keep_alive: Duration,
    /// `retry` advertised in SSE priming events (default 1 s).
    pub sse_retry: Duration,
    /// How POST requests are answered.
    pub response_mode: ResponseMode,
    /// Transport-independent settings.
    pub config: Config,
    /// Where SSE events are kept for resumption.
    pub event_store: Arc<dyn EventStore>,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("body_limit", &self.body_limit)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle_ttl", &self.session_idle_ttl)
            .field("response_mode", &self.response_mode)
            .finish_non_exhaustive()
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            allowed_hosts: Some(LOOPBACK.iter().map(|h| (*h).to_owned()).collect()),
            allowed_origins: Vec::new(),
            body_limit: 4 * 1024 * 1024,
            max_sessions: 100_000,
            session_idle_ttl: Duration::from_secs(30 * 60),
            sse_keep_alive: Duration::from_secs(15),
            sse_retry: Duration::from_secs(1),
            response_mode: ResponseMode::Auto,
            config: Config::default(),
            event_store: Arc::new(MemoryEventStore::new()),
        }
    }
}

impl HttpConfig {
    /// The defaults for a server bound to `addr`: loopback hosts only when `addr` is loopback, any
    /// host otherwise.
    pub fn for_addr(addr: SocketAddr) -> Self {
        let mut cfg = Self::default();
        if !addr.ip().is_loopback() {
            cfg.allowed_hosts = None;
        }
        cfg
    }

    /// Allows these hosts (in addition to nothing else).
    #[must_use]
    pub fn allowed_hosts<I: IntoIterator<Item = S>, S: Into<String>>(mut self, hosts: I) -> Self {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Allows any `Host` header (put the server behind a proxy that checks it).
    #[must_use]
    pub fn allow_any_host(mut self) -> Self {
        self.allowed_hosts = None;
        self
    }

    /// Adds allowed origins.
    #[must_use]
    pub fn allowed_origins<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        origins: I,
    ) -> Self {
        self.allowed_origins
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Sets the body limit in bytes.
    #[must_use]
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Sets the session cap and idle TTL.
    #[must_use]
    pub fn sessions(mut self, max: usize, idle_ttl: Duration) -> Self {
        self.max_sessions = max;
        self.session_idle_ttl = idle_ttl;
        self
    }

    /// Sets the SSE keep-alive interval.
    #[must_use]
    pub fn sse_keep_alive(mut self, every: Duration) -> Self {
        self.sse_keep_alive = every;
        self
    }

    /// Sets the response mode.
    #[must_use]
    pub fn response_mode(mut self, mode: ResponseMode) -> Self {
        self.response_mode = mode;
        self
    }

    /// Sets the transport-independent config.
    #[must_use]
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Sets the event store.
    #[must_use]
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = store;
        self
    }

    fn host_allowed(&self, host: &str) -> bool {
        match &self.allowed_hosts {
            None => true,
            Some(list) => list.iter().any(|h| h.eq_ignore_ascii_case(host)),
        }
    }

    fn origin_allowed(&self, origin: &str, request_host: Option<&str>) -> bool {
        if self
            .allowed_origins
            .iter()
            .any(|o| o.eq_ignore_ascii_case(origin))
        {
            return true;
        }
        let Some(host) = origin_host(origin) else {
            return false;
        };
        match &self.allowed_hosts {
            Some(_) => self.host_allowed(host),
            None => request_host.is_some_and(|h| h.eq_ignore_ascii_case(host)),
        }
    }
}

/// `example.com` of `https://example.com:8443`.
fn origin_host(origin: &str) -> Option<&str> {
    let rest = origin.split_once("://")?.1;
    Some(host_part(rest.split('/').next().unwrap_or(rest)))
}

/// The host of a `Host` header value, without the port (`[::1]` keeps its brackets).
fn host_part(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority
            .split_once(']')
            .map_or(authority, |(h, _)| &authority[..=h.len()]);
    }
    authority.rsplit_once(':').map_or(authority, |(h, _)| h)
}

struct HttpState<S: Server> {
    dispatcher: Dispatcher<S>,
    sessions: Sessions,
    cfg: HttpConfig,
    streams: AtomicU64,
}

/// The MCP endpoint as an axum [`Router`](axum::Router) (a tower `Service`): nest it at any path
/// with `nest_service("/mcp", …)` and keep your own middleware around it. It answers every path it
/// is given, with CORS preflight handled.
pub fn service<S: Server>(server: S, config: HttpConfig) -> axum::Router {
    let state = Arc::new(HttpState {
        dispatcher: Dispatcher::with_config(server, config.config.clone()),
        sessions: Sessions::new(config.max_sessions, config.session_idle_ttl),
        streams: AtomicU64::new(0),
        cfg: config,
    });
    let cors_state = Arc::clone(&state);
    let cors = CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(
            move |origin: &HeaderValue, parts: &http::request::Parts| {
                let host = parts
                    .headers
                    .get(header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .map(host_part);
                origin
                    .to_str()
                    .is_ok_and(|o| cors_state.cfg.origin_allowed(o, host))
            },
        ))
        .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([SESSION_HEADER, VERSION_HEADER, header::WWW_AUTHENTICATE])
        .max_age(Duration::from_secs(600));
    let plain = axum::Router::new().fallback(handle::<S>).with_state(state);
    let cors = tower::Layer::layer(&cors, plain.clone());
    axum::Router::new().fallback_service(OriginAware { plain, cors })
}

/// Sends browser requests (those with an `Origin`, and preflights) through the CORS layer and the
/// rest straight to the endpoint, so non-browser clients do not pay for `Vary` headers.
#[derive(Clone)]
struct OriginAware {
    plain: axum::Router,
    cors: tower_http::cors::Cors<axum::Router>,
}

impl tower::Service<axum::extract::Request> for OriginAware {
    type Response = Response;
    type Error = Infallible;
    type Future = futures_util::future::Either<
        <axum::Router as tower::Service<axum::extract::Request>>::Future,
        <tower_http::cors::Cors<axum::Router> as tower::Service<axum::extract::Request>>::Future,
    >;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        match tower::Service::<axum::extract::Request>::poll_ready(&mut self.plain, cx) {
            std::task::Poll::Ready(Ok(())) => {
                tower::Service::<axum::extract::Request>::poll_ready(&mut self.cors, cx)
            }
            other => other,
        }
    }

    fn call(&mut self, req: axum::extract::Request) -> Self::Future {
        if req.headers().contains_key(header::ORIGIN) || req.method() == Method::OPTIONS {
            futures_util::future::Either::Right(self.cors.call(req))
        } else {
            futures_util::future::Either::Left(self.plain.call(req))
        }
    }
}

/// The RFC 9728 metadata routes: `GET /.well-known/oauth-protected-resource` and
/// `GET /.well-known/oauth-protected-resource/<path>` (for an endpoint at `/<path>`), readable from
/// any origin. Merge them into your app next to the MCP service:
///
/// ```
/// use phantom::ProtectedResource;
///
/// let metadata = ProtectedResource::new("https://mcp.example.com/mcp", "https://auth.example.com")
///     .scopes(["studies:read"]);
/// let app: axum::Router = phantom::http::protected_resource(&metadata);
/// ```
pub fn protected_resource(metadata: &crate::auth::ProtectedResource) -> axum::Router {
    let body = Arc::new(serde_json::to_string(metadata).unwrap_or_else(|_| "{}".into()));
    let handler = move || {
        let body = Arc::clone(&body);
        async move {
            let mut resp = json_response(StatusCode::OK, String::clone(&body));
            resp.headers_mut().insert(
                header::ACCESS_CONTROL_ALLOW_ORIGIN,
                HeaderValue::from_static("*"),
            );
            resp
        }
    };
    axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource",
            axum::routing::get(handler.clone()),
        )
        .route(
            "/.well-known/oauth-protected-resource/{*path}",
            axum::routing::get(handler),
        )
}

/// Serves `server` at `http://<addr>/mcp` until Ctrl-C, with `TCP_NODELAY` on every socket and the
/// safe defaults of [`HttpConfig::for_addr`].
pub async fn serve<S: Server>(
    server: S,
    addr: impl tokio::net::ToSocketAddrs,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let cfg = HttpConfig::for_addr(listener.local_addr()?);
    serve_listener(listener, server, cfg, shutdown_signal()).await
}

/// Serves on a bound listener at `/mcp` until `shutdown` completes (tests bind `127.0.0.1:0`).
pub async fn serve_listener<S, F>(
    listener: tokio::net::TcpListener,
    server: S,
    config: HttpConfig,
    shutdown: F,
) -> std::io::Result<()>
where
    S: Server,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    use axum::serve::ListenerExt as _;
    let local = listener.local_addr()?;
    let app = axum::Router::new().nest_service("/mcp", service(server, config));
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!(error = %e, "could not set TCP_NODELAY");
        }
    });
    tracing::info!(%local, "serving MCP at http://{local}/mcp");
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}

async fn shutdown_signal() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

fn rpc_error_body(code: i32, message: &str) -> String {
    rpc_error_body_id(code, message, None)
}

fn rpc_error_body_id(code: i32, message: &str, id: Option<&Value>) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// An error response that keeps the request's JSON-RPC id when it could be read.
fn error_for(status: StatusCode, code: i32, message: &str, head: Option<&Inspected>) -> Response {
    json_response(
        status,
        rpc_error_body_id(code, message, head.and_then(|h| h.id.as_ref())),
    )
}

fn plain(status: StatusCode, code: i32, message: &str) -> Response {
    json_response(status, rpc_error_body(code, message))
}

fn json_response(status: StatusCode, body: String) -> Response {
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

fn empty(status: StatusCode) -> Response {
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = status;
    resp
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| {
            v.split(',')
                .map(|p| p.split(';').next().unwrap_or("").trim())
                .any(|p| {
                    p == mime
                        || p == "*/*"
                        || (p.ends_with("/*") && mime.starts_with(&p[..p.len() - 1]))
                })
        })
}

async fn handle<S: Server>(
    State(st): State<Arc<HttpState<S>>>,
    req: axum::extract::Request,
) -> Response {
    let (parts, body) = req.into_parts();
    let host = header_str(&parts.headers, header::HOST).map(host_part);
    if let Some(h) = host {
        if !st.cfg.host_allowed(h) {
            return plain(
                StatusCode::FORBIDDEN,
                codes::INVALID_REQUEST,
                "Forbidden: invalid Host header",
            );
        }
    } else if st.cfg.allowed_hosts.is_some() && parts.version < http::Version::HTTP_2 {
        return plain(
            StatusCode::FORBIDDEN,
            codes::INVALID_REQUEST,
            "Forbidden: missing Host header",
        );
    }
    if let Some(origin) = header_str(&parts.headers, header::ORIGIN)
        && !st.cfg.origin_allowed(origin, host)
    {
        return plain(
            StatusCode::FORBIDDEN,
            codes::INVALID_REQUEST,
            "Forbidden: invalid Origin header",
        );
    }
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    let request = Request {
        headers: parts.headers,
        peer,
        transport: Transport::Http,
    };
    match parts.method {
        Method::POST => post(&st, request, body).await,
        Method::GET => get(&st, request).await,
        Method::DELETE => delete(&st, request).await,
        Method::OPTIONS => empty(StatusCode::NO_CONTENT),
        _ => {
            let mut resp = plain(
                StatusCode::METHOD_NOT_ALLOWED,
                codes::INVALID_REQUEST,
                "Method not allowed",
            );
            resp.headers_mut().insert(
                header::ALLOW,
                HeaderValue::from_static("GET, POST, DELETE, OPTIONS"),
            );
            resp
        }
    }
}

/// What the HTTP layer needs to know about a body before dispatching it.
struct Inspected {
    /// The request id, when there is one.
    id: Option<Value>,
    is_request: bool,
    method: Option<String>,
    /// `Some` when the body claims the modern envelope: the claimed version value.
    modern: Option<Value>,
    name: Option<Value>,
    uri: Option<Value>,
}

/// A body decoded once: the message, the head of its params, and what the HTTP checks need.
struct Parsed<'a> {
    msg: Incoming<'a>,
    head: ParamsHead<'a>,
}

fn inspect(text: &str) -> Option<(Inspected, Parsed<'_>)> {
    let msg = Incoming::parse(text).ok()?;
    let (id, method, params, is_request) = match &msg {
        Incoming::Request { id, method, params } => (
            serde_json::to_value(id).ok(),
            Some(method.to_string()),
            *params,
            true,
        ),
        Incoming::Notification { method, params } => {
            (None, Some(method.to_string()), *params, false)
        }
        Incoming::Response { id } => (serde_json::to_value(id).ok(), None, None, false),
    };
    let head = ParamsHead::read(params);
    let value = |raw: Option<&RawValue>| raw.and_then(|r| serde_json::from_str(r.get()).ok());
    let inspected = Inspected {
        id,
        is_request,
        method,
        modern: value(head.claimed_version()),
        name: value(head.name),
        uri: value(head.uri),
    };
    Some((inspected, Parsed { msg, head }))
}

/// Hands a body to the dispatcher, decoded already when possible.
async fn dispatch<S: Server>(
    st: &HttpState<S>,
    text: &str,
    parsed: Option<Parsed<'_>>,
    request: &Request,
    slot: &mut Option<Session>,
) -> Option<Reply> {
    match parsed {
        Some(Parsed { msg, head }) => st.dispatcher.handle_parsed(msg, head, request, slot).await,
        None => st.dispatcher.handle(text, request, slot).await,
    }
}

/// Decodes a header value, including the `=?base64?…?=` form.
fn decode_header(value: &str) -> Option<String> {
    let value = value.trim();
    if let Some(b64) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
        return String::from_utf8(bytes).ok();
    }
    Some(value.to_owned())
}

fn header_mismatch(message: String) -> String {
    message
}

/// The standard-header checks of 2026-07-28 (SEP-2243): `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`.
/// Returns the message of the `-32020` error when a header is missing or disagrees with the body.
fn check_modern_headers(
    headers: &HeaderMap,
    head: &Inspected,
    version: &str,
) -> Result<(), String> {
    match header_str(headers, VERSION_HEADER) {
        None => {
            return Err(header_mismatch(
                "Header mismatch: missing MCP-Protocol-Version header".into(),
            ));
        }
        Some(v) if v != version => {
            return Err(header_mismatch(format!(
                "Header mismatch: MCP-Protocol-Version '{v}' != body _meta version '{version}'"
            )));
        }
        Some(_) => {}
    }
    let method = head.method.as_deref().unwrap_or_default();
    match headers
        .get(METHOD_HEADER)
        .map(|v| v.to_str().ok().and_then(decode_header))
    {
        None if head.is_request => {
            return Err(header_mismatch(
                "Header mismatch: missing Mcp-Method header".into(),
            ));
        }
        None => {}
        Some(None) => {
            return Err(header_mismatch(
                "Header mismatch: invalid Mcp-Method header".into(),
            ));
        }
        Some(Some(m)) if m != method => {
            return Err(header_mismatch(format!(
                "Header mismatch: Mcp-Method '{m}' != body method '{method}'"
            )));
        }
        Some(Some(_)) => {}
    }
    let expected = match method {
        "tools/call" | "prompts/get" => head.name.as_ref(),
        "resources/read" => head.uri.as_ref(),
        _ => return Ok(()),
    };
    let Some(expected) = expected.and_then(Value::as_str) else {
        return Ok(());
    };
    match headers
        .get(NAME_HEADER)
        .map(|v| v.to_str().ok().and_then(decode_header))
    {
        None => Err(header_mismatch(
            "Header mismatch: missing Mcp-Name header".into(),
        )),
        Some(None) => Err(header_mismatch(
            "Header mismatch: invalid Mcp-Name header".into(),
        )),
        Some(Some(n)) if n != expected => Err(header_mismatch(format!(
            "Header mismatch: Mcp-Name '{n}' != body '{expected}'"
        ))),
        Some(Some(_)) => Ok(()),
    }
}

#[derive(Deserialize)]
struct CallArguments {
    #[serde(default)]
    arguments: Option<serde_json::Map<String, Value>>,
}

#[derive(Deserialize)]
struct CallBody {
    #[serde(default)]
    params: Option<CallArguments>,
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments (`x-mcp-header`).
fn check_param_headers<S: Server>(
    headers: &HeaderMap,
    tool: &str,
    text: &str,
) -> Result<(), String> {
    let mut pairs = S::__router().tool_headers(tool).peekable();
    if pairs.peek().is_none() {
        return Ok(());
    }
    let arguments = serde_json::from_str::<CallBody>(text)
        .ok()
        .and_then(|b| b.params)
        .and_then(|p| p.arguments)
        .unwrap_or_default();
    for (arg, header) in pairs {
        let value = arguments.get(arg).filter(|v| !v.is_null());
        let mut all = headers
            .get_all(format!("mcp-param-{header}").as_str())
            .iter();
        let (sent, again) = (all.next(), all.next());
        if again.is_some() {
            return Err(format!(
                "Header mismatch: Mcp-Param-{header} header appears more than once"
            ));
        }
        let (value, sent) = match (value, sent) {
            (None, None) => continue,
            // An intermediary may route on the header: it must not claim a value the body lacks.
            (None, Some(_)) => {
                return Err(format!(
                    "Header mismatch: Mcp-Param-{header} header sent but argument `{arg}` is absent"
                ));
            }
            (Some(_), None) => {
                return Err(format!(
                    "Header mismatch: missing Mcp-Param-{header} header for argument `{arg}`"
                ));
            }
            (Some(v), Some(s)) => (v, s),
        };
        let text = sent
            .to_str()
            .ok()
            .filter(|t| t.bytes().all(|b| b == b'\t' || (0x20..0x7f).contains(&b)))
            .and_then(decode_header)
            .ok_or_else(|| format!("Header mismatch: invalid Mcp-Param-{header} header value"))?;
        let agrees = match value {
            Value::String(s) => *s == text,
            Value::Bool(b) => text == if *b { "true" } else { "false" },
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => text.parse::<i64>().is_ok_and(|h| h == i),
                (None, Some(u)) => text.parse::<u64>().is_ok_and(|h| h == u),
                _ => false,
            },
            _ => false,
        };
        if !agrees {
            return Err(format!(
                "Header mismatch: Mcp-Param-{header} '{text}' != argument `{arg}` {value}"
            ));
        }
    }
    Ok(())
}

fn status_of(reply: &Reply) -> StatusCode {
    match reply.status {
        Status::Ok => StatusCode::OK,
        Status::BadRequest => StatusCode::BAD_REQUEST,
        Status::MethodNotFound | Status::SessionNotFound => StatusCode::NOT_FOUND,
        Status::Unauthorized(_) => StatusCode::UNAUTHORIZED,
        Status::Forbidden => StatusCode::FORBIDDEN,
    }
}

fn reply_response(reply: Reply) -> Response {
    let status = status_of(&reply);
    let challenge = match &reply.status {
        Status::Unauthorized(c) => HeaderValue::from_str(&c.to_string()).ok(),
        _ => None,
    };
    let mut resp = json_response(status, reply.body);
    if let Some(c) = challenge {
        resp.headers_mut().insert(header::WWW_AUTHENTICATE, c);
    }
    resp
}

fn connect_response(connect: Connect) -> Option<Response> {
    let (status, message) = match connect {
        Connect::Ok => return None,
        Connect::Unauthorized(challenge) => {
            let mut resp = plain(StatusCode::UNAUTHORIZED, -32001, "Unauthorized");
            if let Ok(v) = HeaderValue::from_str(&challenge.to_string()) {
                resp.headers_mut().insert(header::WWW_AUTHENTICATE, v);
            }
            return Some(resp);
        }
        Connect::Forbidden(m) => (StatusCode::FORBIDDEN, m),
        Connect::NotFound(m) => (StatusCode::NOT_FOUND, m),
        Connect::Error(m) => (StatusCode::BAD_REQUEST, m),
    };
    Some(plain(status, -32001, &message))
}

async fn read_body(body: Body, limit: usize) -> Result<Bytes, Response> {
    match http_body_util::Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            codes::INVALID_REQUEST,
            &format!("Payload too large: the body exceeds {limit} bytes"),
        )),
        Err(_) => Err(plain(
            StatusCode::BAD_REQUEST,
            codes::PARSE_ERROR,
            "Parse error: could not read the body",
        )),
    }
}

async fn post<S: Server>(st: &Arc<HttpState<S>>, request: Request, body: Body) -> Response {
    if !(accepts(&request.headers, "application/json")
        && accepts(&request.headers, "text/event-stream"))
    {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Not Acceptable: the client must accept both application/json and text/event-stream",
        );
    }
    let content_type = header_str(&request.headers, header::CONTENT_TYPE).unwrap_or_default();
    if !content_type
        .to_ascii_lowercase()
        .starts_with("application/json")
    {
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            codes::INVALID_REQUEST,
            "Unsupported Media Type: the body must be application/json",
        );
    }
    let bytes = match read_body(body, st.cfg.body_limit).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return plain(
            StatusCode::BAD_REQUEST,
            codes::PARSE_ERROR,
            "Parse error: the body is not UTF-8",
        );
    };
    let is_batch = text.trim_start().starts_with('[');
    let inspected = if is_batch { None } else { inspect(text) };
    let Some((head, parsed)) = inspected else {
        if is_batch {
            return post_legacy(st, request, text, None, None).await;
        }
        // Not JSON, or not a JSON-RPC object: let the dispatcher produce the exact error.
        let reply = st.dispatcher.handle(text, &request, &mut None).await;
        return reply.map_or_else(|| empty(StatusCode::BAD_REQUEST), reply_response);
    };
    if head.modern.is_some() {
        return post_modern(st, &request, text, &head, parsed).await;
    }
    post_legacy(st, request, text, Some(&head), Some(parsed)).await
}

async fn post_modern<S: Server>(
    st: &Arc<HttpState<S>>,
    request: &Request,
    text: &str,
    head: &Inspected,
    parsed: Parsed<'_>,
) -> Response {
    // Header checks come before the version gate: a header that disagrees with the body is a
    // -32020 whatever the version says; an agreeing but unsupported version is the dispatcher's -32022.
    let claimed = head
        .modern
        .as_ref()
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned));
    if let Err(message) = check_modern_headers(
        &request.headers,
        head,
        claimed.as_deref().unwrap_or_default(),
    ) {
        return error_for(
            StatusCode::BAD_REQUEST,
            codes::HEADER_MISMATCH,
            &message,
            Some(head),
        );
    }
    if head.method.as_deref() == Some("tools/call")
        && let Some(tool) = head.name.as_ref().and_then(Value::as_str)
        && let Err(message) = check_param_headers::<S>(&request.headers, tool, text)
    {
        return error_for(
            StatusCode::BAD_REQUEST,
            codes::HEADER_MISMATCH,
            &message,
            Some(head),
        );
    }
    match dispatch(st, text, Some(parsed), request, &mut None).await {
        None => empty(StatusCode::ACCEPTED),
        Some(reply) => reply_response(reply),
    }
}

async fn post_legacy<S: Server>(
    st: &Arc<HttpState<S>>,
    request: Request,
    text: &str,
    head: Option<&Inspected>,
    parsed: Option<Parsed<'_>>,
) -> Response {
    let header_version = header_str(&request.headers, VERSION_HEADER).map(str::to_owned);
    if let Some(v) = header_version.as_deref() {
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
    let is_initialize = head.is_some_and(|h| h.method.as_deref() == Some("initialize"));
    if is_initialize {
        return initialize(st, request, text, parsed).await;
    }
    let Some(id) = header_str(&request.headers, SESSION_HEADER).map(str::to_owned) else {
        return error_for(
            StatusCode::BAD_REQUEST,
            codes::INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required (send `initialize` first)",
            head,
        );
    };
    let Ok(session) = st.sessions.get(&id) else {
        forget_evicted(st).await;
        return error_for(StatusCode::NOT_FOUND, -32001, "Session not found", head);
    };
    let mut slot = Some(Session::clone(&session));
    let reply = dispatch(st, text, parsed, &request, &mut slot).await;
    let writes_back = head.is_none_or(|h| h.method.as_deref() == Some("logging/setLevel"))
        || S::__router().overrides(crate::server::Callback::Connect);
    if writes_back && let Some(s) = slot {
        st.sessions.update(Arc::new(s));
    }
    let Some(reply) = reply else {
        return empty(StatusCode::ACCEPTED);
    };
    if reply.status != Status::Ok || st.cfg.response_mode == ResponseMode::Auto {
        let mut resp = reply_response(reply);
        if let Ok(v) = HeaderValue::from_str(&id) {
            resp.headers_mut().insert(SESSION_HEADER, v);
        }
        return resp;
    }
    sse_reply(st, &id, session.protocol_version, reply).await
}

async fn initialize<S: Server>(
    st: &Arc<HttpState<S>>,
    request: Request,
    text: &str,
    parsed: Option<Parsed<'_>>,
) -> Response {
    let mut slot = None;
    let reply = dispatch(st, text, parsed, &request, &mut slot).await;
    let Some(reply) = reply else {
        return empty(StatusCode::ACCEPTED);
    };
    let Some(mut session) = slot else {
        return reply_response(reply);
    };
    let id = new_session_id();
    session.id = Some(Arc::clone(&id));
    let version = session.protocol_version;
    let inserted = st.sessions.insert(session);
    forget_evicted(st).await;
    if !inserted {
        return plain(
            StatusCode::SERVICE_UNAVAILABLE,
            codes::INTERNAL_ERROR,
            "Too many sessions; retry later",
        );
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

fn sse_headers(resp: &mut Response) {
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
}

/// Answers one request as a short SSE stream: priming event (2025-11-25+), then the response, each
/// stored for `Last-Event-ID` resumption.
async fn sse_reply<S: Server>(
    st: &Arc<HttpState<S>>,
    session_id: &str,
    version: ProtocolVersion,
    reply: Reply,
) -> Response {
    let stream = format!("p{}", st.streams.fetch_add(1, Ordering::Relaxed));
    let mut frames = Vec::with_capacity(2);
    if version >= ProtocolVersion::V2025_11_25 {
        let id = format!("{stream}.0");
        frames.push(sse::priming(
            &id,
            st.cfg.sse_retry.as_millis().try_into().unwrap_or(u64::MAX),
        ));
        // Stored too: a client that saw only the priming event resumes from its id.
        st.cfg
            .event_store
            .append(
                session_id,
                &stream,
                StoredEvent {
                    id,
                    data: String::new(),
                },
            )
            .await;
    }
    let seq = st.sessions.next_event(session_id).unwrap_or(1);
    let event_id = format!("{stream}.{seq}");
    st.cfg
        .event_store
        .append(
            session_id,
            &stream,
            StoredEvent {
                id: event_id.clone(),
                data: reply.body.clone(),
            },
        )
        .await;
    frames.push(sse::event(Some(&event_id), &reply.body));
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

/// Drops the stored events of sessions the table evicted for idleness.
async fn forget_evicted<S: Server>(st: &Arc<HttpState<S>>) {
    for id in st.sessions.take_evicted() {
        st.cfg.event_store.forget(&id).await;
    }
}

/// Runs `connect` for a GET or DELETE on a legacy session.
async fn connect_session<S: Server>(
    st: &Arc<HttpState<S>>,
    session: &Session,
    request: &Request,
) -> Option<Response> {
    if !S::__router().overrides(crate::server::Callback::Connect) {
        return None;
    }
    let mut session = session.clone();
    connect_response(st.dispatcher.server().connect(&mut session, request).await)
}

fn method_not_allowed() -> Response {
    let mut resp = plain(
        StatusCode::METHOD_NOT_ALLOWED,
        codes::INVALID_REQUEST,
        "Method not allowed: without an Mcp-Session-Id only POST is served",
    );
    resp.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    resp
}

struct StreamGuard<S: Server> {
    st: Arc<HttpState<S>>,
    session: String,
    generation: u64,
}

impl<S: Server> Drop for StreamGuard<S> {
    fn drop(&mut self) {
        self.st
            .sessions
            .close_stream(&self.session, self.generation);
    }
}

async fn get<S: Server>(st: &Arc<HttpState<S>>, request: Request) -> Response {
    let Some(id) = header_str(&request.headers, SESSION_HEADER).map(str::to_owned) else {
        return method_not_allowed();
    };
    if !accepts(&request.headers, "text/event-stream") {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            codes::INVALID_REQUEST,
            "Not Acceptable: GET needs Accept: text/event-stream",
        );
    }
    let Ok(session) = st.sessions.get(&id) else {
        forget_evicted(st).await;
        return plain(StatusCode::NOT_FOUND, -32001, "Session not found");
    };
    if let Some(resp) = connect_session(st, &session, &request).await {
        return resp;
    }
    let mut replayed = Vec::new();
    if let Some(last) = header_str(&request.headers, LAST_EVENT_ID) {
        match st.cfg.event_store.replay(&id, last).await {
            Some((stream, events)) if stream != "g" => {
                // A POST stream: replay what followed and end.
                let frames: Vec<_> = events
                    .iter()
                    .map(|e| Ok::<_, Infallible>(sse::event(Some(&e.id), &e.data)))
                    .collect();
                let mut resp = Response::new(Body::from_stream(futures_util::stream::iter(frames)));
                sse_headers(&mut resp);
                return resp;
            }
            Some((_, events)) => replayed = events,
            None => {}
        }
    }
    let (tx, rx) = mpsc::channel::<Bytes>(64);
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
    };
    let mut first = Vec::new();
    if session.protocol_version >= ProtocolVersion::V2025_11_25 {
        let seq = st.sessions.next_event(&id).unwrap_or(0);
        first.push(sse::priming(
            &format!("g.{seq}"),
            st.cfg.sse_retry.as_millis().try_into().unwrap_or(u64::MAX),
        ));
    }
    first.extend(replayed.iter().map(|e| sse::event(Some(&e.id), &e.data)));
    let keep_alive = st.cfg.sse_keep_alive;
    let live = futures_util::stream::unfold(
        (
            rx,
            guard,
            tokio::time::interval_at(tokio::time::Instant::now() + keep_alive, keep_alive),
        ),
        |(mut rx, guard, mut tick)| async move {
            let frame = tokio::select! {
                msg = rx.recv() => msg?,
                _ = tick.tick() => sse::keep_alive(),
            };
            Some((frame, (rx, guard, tick)))
        },
    );
    let stream = futures_util::stream::iter(first)
        .chain(live)
        .map(Ok::<_, Infallible>);
    let mut resp = Response::new(Body::from_stream(stream));
    sse_headers(&mut resp);
    resp
}

async fn delete<S: Server>(st: &Arc<HttpState<S>>, request: Request) -> Response {
    let Some(id) = header_str(&request.headers, SESSION_HEADER).map(str::to_owned) else {
        return method_not_allowed();
    };
    let Ok(session) = st.sessions.get(&id) else {
        forget_evicted(st).await;
        return plain(StatusCode::NOT_FOUND, -32001, "Session not found");
    };
    if let Some(resp) = connect_session(st, &session, &request).await {
        return resp;
    }
    st.sessions.remove(&id);
    st.cfg.event_store.forget(&id).await;
    let server = st.dispatcher.server();
    if let Err(e) = server.terminate(&session).await {
        tracing::warn!(error = %e, "terminate callback failed");
    }
    server.disconnect(&session).await;
    empty(StatusCode::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_origin_parsing() {
        assert_eq!(host_part("localhost:4000"), "localhost");
        assert_eq!(host_part("[::1]:4000"), "[::1]");
        assert_eq!(host_part("example.com"), "example.com");
        assert_eq!(origin_host("http://127.0.0.1:9"), Some("127.0.0.1"));
        let cfg = HttpConfig::default();
        assert!(cfg.origin_allowed("http://localhost:3000", Some("localhost")));
        assert!(!cfg.origin_allowed("http://evil.example.com", Some("localhost")));
        let open = HttpConfig::default().allow_any_host();
        assert!(open.origin_allowed("https://mcp.example.com", Some("mcp.example.com")));
        assert!(!open.origin_allowed("https://evil.example.com", Some("mcp.example.com")));
    }

    #[test]
    fn base64_headers() {
        assert_eq!(decode_header("=?base64?w6k=?=").as_deref(), Some("é"));
        assert_eq!(decode_header("  plain ").as_deref(), Some("plain"));
        assert_eq!(decode_header("=?base64?***?="), None);
    }
}
