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

mod arms;
mod body;
mod coalesce;
mod config;
mod headers;
mod legacy;
mod message;
mod post;
mod probes;
#[cfg(feature = "prometheus")]
mod prometheus;
mod response;
mod route;
mod serve;
mod session;
mod shared;
mod watch;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::response::Response;
use http::header::{self, HeaderValue};
use http::{Method, StatusCode};
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};

use config::host_part;
pub use config::{HttpConfig, ResponseMode};
#[cfg(feature = "fuzzing")]
pub(crate) use headers::decode_header as decode_header_for_fuzzing;
use headers::{SESSION_HEADER, VERSION_HEADER};
pub use probes::probes;
#[cfg(feature = "prometheus")]
pub use prometheus::{install_prometheus, render_metrics};
use response::{empty, json_response, plain};
pub use serve::{serve, serve_dispatcher, serve_listener};

use super::sessions::Sessions;
use crate::dispatch::Dispatcher;
use crate::protocol::codes;
use crate::server::Server;

pub(super) struct HttpState<S: Server> {
    dispatcher: Dispatcher<S>,
    sessions: Sessions,
    cfg: HttpConfig,
    /// Whether the shared session store failed last time (its outage is logged once).
    store_down: std::sync::atomic::AtomicBool,
    /// The liveness and readiness probes (held here, shared, rather than by each connection).
    probes: probes::Probes,
}

impl<S: Server> HttpState<S> {
    /// The last frame of a stream this endpoint ends: a `retry:` hint while the node shuts
    /// down (the client reconnects, through the balancer, to another node), nothing otherwise.
    pub(super) fn retry_hint(&self) -> Option<bytes::Bytes> {
        self.dispatcher
            .draining()
            .then(|| crate::transport::sse::retry(millis(self.cfg.sse_retry)))
    }

    /// The `503` for a stream past [`HttpConfig::max_streams`], if this endpoint has that many.
    pub(super) fn streams_full(&self) -> Option<Response> {
        let max = self.cfg.max_streams;
        (self.dispatcher.open_listeners() >= max).then(|| {
            busy(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!("Too many open streams (HttpConfig::max_streams is {max}); retry later"),
            )
        })
    }
}

/// The MCP endpoint as an axum [`Router`](axum::Router) (a tower `Service`): nest it at any path
/// with `nest_service("/mcp", …)` and keep your own middleware around it. It answers every path it
/// is given, with CORS preflight handled. `server` is served with the default
/// [`Config`](crate::Config); for another, or a backend, make a [`Dispatcher`] with it and use
/// [`service_dispatcher`].
pub fn service<S: Server>(server: S, http: HttpConfig) -> axum::Router {
    service_dispatcher(Dispatcher::new(server), http)
}

/// [`service`] for a dispatcher: made with a [`Config`](crate::Config)
/// ([`Dispatcher::with_config`]), with routers merged or mounted into it, or a clone kept for its
/// [`registry`](Dispatcher::registry). The dispatcher's `Config` applies, its backend's session
/// and event stores included.
pub fn service_dispatcher<S: Server>(dispatcher: Dispatcher<S>, http: HttpConfig) -> axum::Router {
    axum::Router::new().fallback_service(endpoint_for(dispatcher, http))
}

/// The endpoint of a dispatcher: CORS for browser requests, [`handle`] for the rest. The HTTP
/// seams (sessions, events) are the dispatcher's `Config`'s, like every other seam.
pub(super) fn endpoint_for<S: Server>(
    dispatcher: Dispatcher<S>,
    http: HttpConfig,
) -> OriginAware<S> {
    let config = http.serving(dispatcher.config());
    let probes = probes::Probes::of(&dispatcher, &config);
    let state = Arc::new(HttpState {
        probes,
        dispatcher,
        sessions: Sessions::new(
            config.max_sessions,
            config.session_idle_ttl,
            config.max_sessions_per_peer,
        ),
        store_down: std::sync::atomic::AtomicBool::new(false),
        cfg: config,
    });
    if !state.cfg.stateless {
        sweep_sessions(&state);
    }
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
    let plain = Endpoint { st: state };
    let cors = Arc::new(tower::Layer::layer(&cors, plain.clone()));
    OriginAware { plain, cors }
}

/// Evicts idle sessions in the background, so that the table empties without new traffic: every
/// half TTL (at least 1 s, at most a minute), for as long as the endpoint exists.
fn sweep_sessions<S: Server>(state: &Arc<HttpState<S>>) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        // Outside a runtime the table is still swept on use (on lookups and inserts).
        return;
    };
    let every = state.sessions.sweep_every();
    let weak = Arc::downgrade(state);
    runtime.spawn(async move {
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        loop {
            tick.tick().await;
            let Some(st) = weak.upgrade() else { return };
            st.sessions.sweep();
            session::forget_evicted(&st).await;
        }
    });
}

/// `d` in whole milliseconds, as SSE's `retry:` takes it.
fn millis(d: Duration) -> u64 {
    d.as_millis().try_into().unwrap_or(u64::MAX)
}

/// A refusal that asks the client to come back: `status`, `Retry-After: 1` and a JSON-RPC error.
pub(super) fn busy(status: StatusCode, message: &str) -> Response {
    let mut resp = plain(status, codes::INTERNAL_ERROR, message);
    resp.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    resp
}

/// [`route::route`] as a tower service: no router, no extractor.
pub(super) struct Endpoint<S: Server> {
    st: Arc<HttpState<S>>,
}

impl<S: Server> Clone for Endpoint<S> {
    fn clone(&self) -> Self {
        Self {
            st: Arc::clone(&self.st),
        }
    }
}

type BoxResponse = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Response, Infallible>> + Send + 'static>,
>;

impl<S: Server> tower::Service<axum::extract::Request> for Endpoint<S> {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxResponse;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: axum::extract::Request) -> Self::Future {
        let st = Arc::clone(&self.st);
        // The peer, if any, from axum's `ConnectInfo`.
        match route::route(st, None, req, false) {
            Ok(handling) => handling,
            Err(_) => unreachable!("`route` hands nothing back unless asked"),
        }
    }
}

/// Serves the endpoint at `/mcp` and below (like `nest_service("/mcp", …)`), 404 elsewhere,
/// without a router.
pub(super) struct AtMcp<S: Server> {
    pub(super) mcp: OriginAware<S>,
    /// The serialized protected-resource metadata, when configured.
    pub(super) metadata: Option<Arc<str>>,
    /// The authorization server's routes, when configured.
    #[cfg(feature = "authz")]
    pub(super) authorization_server: Option<axum::Router>,
}

impl<S: Server> Clone for AtMcp<S> {
    fn clone(&self) -> Self {
        Self {
            mcp: self.mcp.clone(),
            metadata: self.metadata.clone(),
            #[cfg(feature = "authz")]
            authorization_server: self.authorization_server.clone(),
        }
    }
}

impl<S: Server> AtMcp<S> {
    /// Answers a request on a connection phantom accepted from `peer`, without the tower layers:
    /// the body stays hyper's own (not boxed into axum's), the service is not cloned per request,
    /// and `Host` and `Origin` are found in one pass. Browser requests go through the CORS layer
    /// as with [`service`]. The probes are looked for only outside `/mcp`, so MCP requests pay
    /// nothing for them.
    pub(super) fn answer(
        &self,
        peer: SocketAddr,
        req: http::Request<hyper::body::Incoming>,
    ) -> impl std::future::Future<Output = Result<Response, Infallible>> + Send + use<S> {
        use futures_util::future::Either;
        let path = req.uri().path();
        if path == "/mcp" || path.starts_with("/mcp/") {
            let st = Arc::clone(&self.mcp.plain.st);
            return match route::route(st, Some(peer), req, true) {
                Ok(handling) => Either::Left(handling),
                Err(browser) => Either::Right(Either::Left(tower::Service::call(
                    &mut tower_http::cors::Cors::clone(&self.mcp.cors),
                    browser.map(axum::body::Body::new),
                ))),
            };
        }
        if req.method() == Method::GET
            && let Some(probe) = self.mcp.plain.st.probes.probe(path)
        {
            let st = Arc::clone(&self.mcp.plain.st);
            let answering: BoxResponse = Box::pin(async move { Ok(st.probes.answer(probe).await) });
            return Either::Left(answering);
        }
        let resource_metadata = req.method() == Method::GET
            && matches!(
                path,
                "/.well-known/oauth-protected-resource"
                    | "/.well-known/oauth-protected-resource/mcp"
            );
        #[cfg(feature = "authz")]
        if let Some(router) = &self.authorization_server
            && !(resource_metadata && self.metadata.is_some())
        {
            let mut router = router.clone();
            let request = req.map(axum::body::Body::new);
            let answering: BoxResponse =
                Box::pin(async move { tower::Service::call(&mut router, request).await });
            return Either::Left(answering);
        }
        let resp = if let Some(body) = &self.metadata
            && resource_metadata
        {
            metadata_response(body)
        } else {
            empty(StatusCode::NOT_FOUND)
        };
        Either::Right(Either::Right(std::future::ready(Ok(resp))))
    }
}

/// Sends browser requests (those with an `Origin`, and preflights) through the CORS layer and the
/// rest straight to the endpoint, so non-browser clients do not pay for `Vary` headers.
pub(super) struct OriginAware<S: Server> {
    plain: Endpoint<S>,
    /// Shared: hyper clones the service for every request, and only browser requests use it.
    cors: Arc<tower_http::cors::Cors<Endpoint<S>>>,
}

impl<S: Server> Clone for OriginAware<S> {
    fn clone(&self) -> Self {
        Self {
            plain: self.plain.clone(),
            cors: self.cors.clone(),
        }
    }
}

impl<S: Server> tower::Service<axum::extract::Request> for OriginAware<S> {
    type Response = Response;
    type Error = Infallible;
    type Future = futures_util::future::Either<
        BoxResponse,
        <tower_http::cors::Cors<Endpoint<S>> as tower::Service<axum::extract::Request>>::Future,
    >;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        // Both inner services are always ready; the CORS one is cloned per browser request.
        tower::Service::<axum::extract::Request>::poll_ready(&mut self.plain, cx)
    }

    fn call(&mut self, req: axum::extract::Request) -> Self::Future {
        if req.headers().contains_key(header::ORIGIN) || req.method() == Method::OPTIONS {
            futures_util::future::Either::Right(tower_http::cors::Cors::clone(&self.cors).call(req))
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
/// use phantom::auth::ProtectedResource;
///
/// let metadata = ProtectedResource::new("https://mcp.example.com/mcp", "https://auth.example.com")
///     .scopes(["studies:read"]);
/// let app: axum::Router = phantom::http::protected_resource(&metadata);
/// ```
pub fn protected_resource(metadata: &crate::auth::ProtectedResource) -> axum::Router {
    let body = metadata_body(metadata);
    let handler = move || {
        let body = Arc::clone(&body);
        async move { metadata_response(&body) }
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

pub(super) fn metadata_body(metadata: &crate::auth::ProtectedResource) -> Arc<str> {
    Arc::from(serde_json::to_string(metadata).unwrap_or_else(|_| "{}".into()))
}

/// The metadata document, readable from any origin (browser-based clients discover with it).
fn metadata_response(body: &str) -> Response {
    let mut resp = json_response(StatusCode::OK, body.to_owned());
    resp.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::config::origin_host;
    use super::headers::decode_header;
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
        let open = HttpConfig::default().with_any_host();
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
