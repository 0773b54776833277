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

mod config;
mod headers;
mod post;
mod response;
mod session;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use axum::extract::{ConnectInfo, State};
use axum::response::Response;
use http::header::{self, HeaderValue};
use http::{Method, StatusCode};
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};

use config::host_part;
pub use config::{HttpConfig, ResponseMode};
use headers::{SESSION_HEADER, VERSION_HEADER, header_str};
use response::{empty, json_response, plain};

use super::sessions::Sessions;
use crate::dispatch::Dispatcher;
use crate::protocol::codes;
use crate::server::{Request, Server, Transport};

pub(super) struct HttpState<S: Server> {
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
        Method::POST => post::post(&st, request, body).await,
        Method::GET => session::get(&st, request).await,
        Method::DELETE => session::delete(&st, request).await,
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
