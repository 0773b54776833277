//! [`HttpConfig`]: settings of the HTTP transport, and its `Host` / `Origin` policy.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::server::Config;
use crate::store::{EventStore, MemoryEventStore, SessionStore};

const LOOPBACK: [&str; 4] = ["localhost", "127.0.0.1", "[::1]", "::1"];

/// The default of [`HttpConfig::grace`].
const DEFAULT_GRACE: Duration = Duration::from_secs(20);

/// The drain delay of a server bound to a non-loopback address ([`HttpConfig::for_addr`]).
const BALANCED_DRAIN_DELAY: Duration = Duration::from_secs(1);

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
///
/// Set with the `with_…` methods, read with the getters of the same name without `with_`. What
/// is not about HTTP — the page size, the middleware, the stores and buses a node shares with
/// the others (sessions and SSE events included) — is in the dispatcher's
/// [`Config`](crate::Config), the one place every way of serving takes it from.
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpConfig {
    /// See [`HttpConfig::allowed_hosts`].
    pub(crate) allowed_hosts: Option<Vec<String>>,
    /// See [`HttpConfig::allowed_origins`].
    pub(crate) allowed_origins: Vec<String>,
    /// See [`HttpConfig::body_limit`].
    pub(crate) body_limit: usize,
    /// See [`HttpConfig::drain_limit`].
    pub(crate) drain_limit: usize,
    /// See [`HttpConfig::header_read_timeout`].
    pub(crate) header_read_timeout: Duration,
    /// See [`HttpConfig::body_read_timeout`].
    pub(crate) body_read_timeout: Duration,
    /// See [`HttpConfig::max_sessions`].
    pub(crate) max_sessions: usize,
    /// See [`HttpConfig::max_sessions_per_peer`].
    pub(crate) max_sessions_per_peer: Option<usize>,
    /// See [`HttpConfig::max_requests_per_session`].
    pub(crate) max_requests_per_session: usize,
    /// See [`HttpConfig::max_streams`].
    pub(crate) max_streams: usize,
    /// See [`HttpConfig::session_idle_ttl`].
    pub(crate) session_idle_ttl: Duration,
    /// See [`HttpConfig::sse_keep_alive`].
    pub(crate) sse_keep_alive: Duration,
    /// See [`HttpConfig::sse_retry`].
    pub(crate) sse_retry: Duration,
    /// See [`HttpConfig::response_mode`].
    pub(crate) response_mode: ResponseMode,
    /// See [`HttpConfig::stateless`].
    pub(crate) stateless: bool,
    /// See [`HttpConfig::preview`].
    pub(crate) preview: bool,
    /// See [`HttpConfig::protected_resource`].
    pub(crate) protected_resource: Option<crate::auth::ProtectedResource>,
    /// See [`HttpConfig::with_authorization_server`].
    #[cfg(feature = "authz")]
    pub(crate) authorization_server: Option<axum::Router>,
    /// See [`HttpConfig::drain_delay`].
    pub(crate) drain_delay: Duration,
    /// See [`HttpConfig::grace`].
    pub(crate) grace: Duration,
    /// See [`HttpConfig::health_path`].
    pub(crate) health_path: String,
    /// See [`HttpConfig::ready_path`].
    pub(crate) ready_path: String,
    /// See [`HttpConfig::metrics_path`].
    #[cfg(feature = "prometheus")]
    pub(crate) metrics_path: String,
    /// See [`HttpConfig::admin_addr`].
    pub(crate) admin_addr: Option<SocketAddr>,
    /// The dispatcher's [`Config::event_store`], copied in when the endpoint is made
    /// (`endpoint_for`); never set otherwise.
    pub(crate) event_store: Arc<dyn EventStore>,
    /// The dispatcher's [`Config::session_store`], copied in when the endpoint is made
    /// (`endpoint_for`); never set otherwise.
    pub(crate) session_store: Option<Arc<dyn SessionStore>>,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("body_limit", &self.body_limit)
            .field("drain_limit", &self.drain_limit)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("max_sessions", &self.max_sessions)
            .field("max_sessions_per_peer", &self.max_sessions_per_peer)
            .field("max_requests_per_session", &self.max_requests_per_session)
            .field("max_streams", &self.max_streams)
            .field("session_idle_ttl", &self.session_idle_ttl)
            .field("sse_keep_alive", &self.sse_keep_alive)
            .field("sse_retry", &self.sse_retry)
            .field("response_mode", &self.response_mode)
            .field("stateless", &self.stateless)
            .field("preview", &self.preview)
            .field("protected_resource", &self.protected_resource)
            .field("drain_delay", &self.drain_delay)
            .field("grace", &self.grace)
            .field("health_path", &self.health_path)
            .field("ready_path", &self.ready_path)
            .field("admin_addr", &self.admin_addr)
            .finish_non_exhaustive()
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            allowed_hosts: Some(LOOPBACK.iter().map(|h| (*h).to_owned()).collect()),
            allowed_origins: Vec::new(),
            body_limit: 4 * 1024 * 1024,
            drain_limit: 64 * 1024 * 1024,
            header_read_timeout: Duration::from_secs(30),
            body_read_timeout: Duration::from_secs(30),
            max_sessions: 100_000,
            max_sessions_per_peer: None,
            max_requests_per_session: 64,
            max_streams: 20_000,
            session_idle_ttl: Duration::from_secs(30 * 60),
            sse_keep_alive: Duration::from_secs(15),
            sse_retry: Duration::from_secs(1),
            response_mode: ResponseMode::Auto,
            stateless: false,
            preview: false,
            protected_resource: None,
            #[cfg(feature = "authz")]
            authorization_server: None,
            drain_delay: Duration::ZERO,
            grace: DEFAULT_GRACE,
            health_path: "/healthz".to_owned(),
            ready_path: "/readyz".to_owned(),
            #[cfg(feature = "prometheus")]
            metrics_path: "/metrics".to_owned(),
            admin_addr: None,
            event_store: Arc::new(MemoryEventStore::new()),
            session_store: None,
        }
    }
}

/// Setters: each returns the settings with one changed.
impl HttpConfig {
    /// The defaults for a server bound to `addr`: loopback hosts only when `addr` is loopback, any
    /// host otherwise. A server bound to a non-loopback address is taken to sit behind a load
    /// balancer: its [`drain_delay`](Self::drain_delay) is one second rather than none.
    pub fn for_addr(addr: SocketAddr) -> Self {
        let mut cfg = Self::default();
        if !addr.ip().is_loopback() {
            cfg.allowed_hosts = None;
            cfg.drain_delay = BALANCED_DRAIN_DELAY;
        }
        cfg
    }

    /// Allows these hosts (in addition to nothing else).
    #[must_use]
    pub fn with_allowed_hosts<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        hosts: I,
    ) -> Self {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Allows any `Host` header (put the server behind a proxy that checks it).
    #[must_use]
    pub fn with_any_host(mut self) -> Self {
        self.allowed_hosts = None;
        self
    }

    /// Adds allowed origins.
    #[must_use]
    pub fn with_allowed_origins<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        origins: I,
    ) -> Self {
        self.allowed_origins
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Sets the body limit in bytes (see [`HttpConfig::body_limit`]).
    #[must_use]
    pub fn with_body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Sets how much of an oversized body is read and discarded before the `413` (see
    /// [`HttpConfig::drain_limit`]).
    #[must_use]
    pub fn with_drain_limit(mut self, bytes: usize) -> Self {
        self.drain_limit = bytes;
        self
    }

    /// Sets the time a client has to send a request's head (and a connection may idle between
    /// requests) and the time it has to send the body.
    #[must_use]
    pub fn with_read_timeouts(mut self, header: Duration, body: Duration) -> Self {
        self.header_read_timeout = header;
        self.body_read_timeout = body;
        self
    }

    /// Sets the cap on legacy sessions and their idle TTL.
    #[must_use]
    pub fn with_sessions(mut self, max: usize, idle_ttl: Duration) -> Self {
        self.max_sessions = max;
        self.session_idle_ttl = idle_ttl;
        self
    }

    /// Caps the legacy sessions one peer address may hold (off by default).
    #[must_use]
    pub fn with_max_sessions_per_peer(mut self, max: usize) -> Self {
        self.max_sessions_per_peer = Some(max);
        self
    }

    /// Caps the requests one legacy session may have in flight at once.
    #[must_use]
    pub fn with_max_requests_per_session(mut self, max: usize) -> Self {
        self.max_requests_per_session = max;
        self
    }

    /// Caps the GET and `subscriptions/listen` streams open at once.
    #[must_use]
    pub fn with_max_streams(mut self, max: usize) -> Self {
        self.max_streams = max;
        self
    }

    /// Sets the SSE keep-alive interval.
    #[must_use]
    pub fn with_sse_keep_alive(mut self, every: Duration) -> Self {
        self.sse_keep_alive = every;
        self
    }

    /// Sets the `retry` advertised in SSE priming events.
    #[must_use]
    pub fn with_sse_retry(mut self, retry: Duration) -> Self {
        self.sse_retry = retry;
        self
    }

    /// Sets the response mode.
    #[must_use]
    pub fn with_response_mode(mut self, mode: ResponseMode) -> Self {
        self.response_mode = mode;
        self
    }

    /// Turns legacy stateless mode on or off (see [`HttpConfig::stateless`]).
    #[must_use]
    pub fn with_stateless(mut self, on: bool) -> Self {
        self.stateless = on;
        self
    }

    /// Serves the MCP Apps preview host at `GET <endpoint>/preview` (off by default; see
    /// [`HttpConfig::preview`]).
    #[must_use]
    pub fn with_preview(mut self, on: bool) -> Self {
        self.preview = on;
        self
    }

    /// Answers the protected-resource metadata routes with `metadata` (see
    /// [`HttpConfig::protected_resource`]).
    #[must_use]
    pub fn with_protected_resource(mut self, metadata: crate::auth::ProtectedResource) -> Self {
        self.protected_resource = Some(metadata);
        self
    }

    /// Serves `server`'s endpoints (its metadata, JWKS and registration: see
    /// [`AuthorizationServer::router`](crate::authz::AuthorizationServer::router)) beside the
    /// MCP endpoint on phantom's own listener (`serve_listener`, `serve_dispatcher`), for the
    /// paths outside `/mcp` that the probes and the protected-resource metadata do not answer.
    /// (Mounted in your own axum app, merge the router instead.)
    #[cfg(feature = "authz")]
    #[must_use]
    pub fn with_authorization_server(mut self, server: &crate::authz::AuthorizationServer) -> Self {
        self.authorization_server = Some(server.router());
        self
    }

    /// Sets how long a shutting-down server keeps accepting connections after its readiness
    /// turned `503` (see [`HttpConfig::drain_delay`]).
    #[must_use]
    pub fn with_drain_delay(mut self, delay: Duration) -> Self {
        self.drain_delay = delay;
        self
    }

    /// Sets how long requests in flight may take to finish once a shutting-down server stopped
    /// accepting (see [`HttpConfig::grace`]).
    #[must_use]
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Sets the paths of the liveness and readiness probes (see [`HttpConfig::health_path`]
    /// and [`HttpConfig::ready_path`]). A path that does not start with `/` gets one.
    #[must_use]
    pub fn with_probe_paths(mut self, health: impl Into<String>, ready: impl Into<String>) -> Self {
        self.health_path = rooted(health.into());
        self.ready_path = rooted(ready.into());
        self
    }

    /// Sets the path of the metrics endpoint (see [`HttpConfig::metrics_path`]). A path that
    /// does not start with `/` gets one.
    #[cfg(feature = "prometheus")]
    #[must_use]
    pub fn with_metrics_path(mut self, path: impl Into<String>) -> Self {
        self.metrics_path = rooted(path.into());
        self
    }

    /// Serves the probes and the metrics on a listener of their own at `addr` (see
    /// [`HttpConfig::admin_addr`]), so that `/metrics` need not be public.
    #[must_use]
    pub fn with_admin_addr(mut self, addr: SocketAddr) -> Self {
        self.admin_addr = Some(addr);
        self
    }
}

/// `path` with a leading `/`.
fn rooted(path: String) -> String {
    if path.starts_with('/') {
        path
    } else {
        format!("/{path}")
    }
}

/// Getters: what each setting is, and its default.
impl HttpConfig {
    /// Hosts (`Host` header, without port) that may reach the server; `None` allows any. Default:
    /// loopback names only, against DNS rebinding.
    pub fn allowed_hosts(&self) -> Option<&[String]> {
        self.allowed_hosts.as_deref()
    }

    /// Extra allowed `Origin`s (e.g. `https://app.example.com`); loopback origins are allowed when
    /// the hosts are restricted to loopback, and same-host origins otherwise.
    pub fn allowed_origins(&self) -> &[String] {
        &self.allowed_origins
    }

    /// Largest request body, counted on the bytes actually read (default 4 MiB). A larger body
    /// is answered `413` once it has been read and thrown away (up to
    /// [`drain_limit`](Self::drain_limit)), so that a client which writes its whole body
    /// reads the answer.
    pub fn body_limit(&self) -> usize {
        self.body_limit
    }

    /// How much of an oversized body is read and discarded before the `413` (default 64 MiB).
    /// Past it the connection is closed after the answer, and a client still writing may see it
    /// reset instead.
    pub fn drain_limit(&self) -> usize {
        self.drain_limit
    }

    /// Time a client has to send a request's head, and a kept-alive connection may stay idle
    /// between requests (default 30 s). Applies when phantom accepts the connections itself
    /// ([`serve`](super::serve), [`serve_listener`](super::serve_listener),
    /// [`serve_dispatcher`](super::serve_dispatcher)).
    pub fn header_read_timeout(&self) -> Duration {
        self.header_read_timeout
    }

    /// Time a client has to send a request's whole body once its head arrived (default 30 s);
    /// a slower body is answered `408`.
    pub fn body_read_timeout(&self) -> Duration {
        self.body_read_timeout
    }

    /// Most legacy sessions kept at once (default 100 000).
    pub fn max_sessions(&self) -> usize {
        self.max_sessions
    }

    /// Most legacy sessions one peer address may hold (default: no cap). Off by default: behind a
    /// proxy or load balancer every client shares one address.
    pub fn max_sessions_per_peer(&self) -> Option<usize> {
        self.max_sessions_per_peer
    }

    /// Most requests one legacy session may have in flight at once (default 64); one more is
    /// answered `429` with `Retry-After`.
    pub fn max_requests_per_session(&self) -> usize {
        self.max_requests_per_session
    }

    /// Most streams open at once on this endpoint: legacy GET streams and 2026-07-28
    /// `subscriptions/listen` streams (default 20 000); one more is answered `503` with
    /// `Retry-After`.
    pub fn max_streams(&self) -> usize {
        self.max_streams
    }

    /// A legacy session idle this long is evicted (default 30 minutes).
    pub fn session_idle_ttl(&self) -> Duration {
        self.session_idle_ttl
    }

    /// Interval of SSE keep-alive comments (default 15 s).
    pub fn sse_keep_alive(&self) -> Duration {
        self.sse_keep_alive
    }

    /// `retry` advertised in SSE priming events (default 1 s).
    pub fn sse_retry(&self) -> Duration {
        self.sse_retry
    }

    /// How POST requests are answered (default [`ResponseMode::Auto`]).
    pub fn response_mode(&self) -> ResponseMode {
        self.response_mode
    }

    /// Legacy stateless mode (default off): `initialize` returns no `Mcp-Session-Id` and every
    /// 2025-11-25 request stands alone, as for serverless or load-balanced deployments. What
    /// needs a session (the GET stream, DELETE, `logging/setLevel`, `#[tool(requires = …)]`)
    /// answers an error that names the mode. 2026-07-28 requests are stateless either way.
    pub fn stateless(&self) -> bool {
        self.stateless
    }

    /// The MCP Apps preview host (default off): `GET <endpoint>/preview` serves a page that
    /// lists the app tools, calls one and renders its view in a sandboxed frame with the
    /// view's declared CSP. For development: turn it on where people, not clients, connect.
    pub fn preview(&self) -> bool {
        self.preview
    }

    /// RFC 9728 protected-resource metadata (default none): when set, `phantom::serve`,
    /// `serve_listener` and `serve_dispatcher` answer `GET /.well-known/oauth-protected-resource`
    /// and `…/oauth-protected-resource/mcp` with it, next to the endpoint. (Mounted in your own
    /// axum app, merge [`protected_resource`](super::protected_resource) instead.)
    pub fn protected_resource(&self) -> Option<&crate::auth::ProtectedResource> {
        self.protected_resource.as_ref()
    }

    /// How long a server that was asked to shut down keeps accepting connections after its
    /// readiness probe turned `503`, so that a load balancer checking the probe takes it out
    /// before it stops listening (default none; one second from
    /// [`for_addr`](Self::for_addr) with a non-loopback address). Requests keep being served
    /// meanwhile. Applies when phantom accepts the connections itself.
    pub fn drain_delay(&self) -> Duration {
        self.drain_delay
    }

    /// How long requests in flight may take to finish once a shutting-down server stopped
    /// accepting (default 20 s). Open streams end at the start of it (GET streams and
    /// `subscriptions/listen` with a `retry:` hint, so clients resume on another node); a
    /// request still running at its end is dropped, and the server returns. With
    /// [`drain_delay`](Self::drain_delay) it bounds the whole shutdown: keep the two below the
    /// time your orchestrator waits before it kills the process (Kubernetes'
    /// `terminationGracePeriodSeconds`, 30 s by default).
    pub fn grace(&self) -> Duration {
        self.grace
    }

    /// The path of the liveness probe on phantom's own listener (default `/healthz`): `GET`
    /// answers `200` while the process serves, draining or not. Not an MCP request: no
    /// authentication, no session, no `connect`. Keep it outside `/mcp`, which the endpoint
    /// answers. For an app that mounts phantom, see [`probes`](super::probes()).
    pub fn health_path(&self) -> &str {
        &self.health_path
    }

    /// The path of the readiness probe on phantom's own listener (default `/readyz`): `GET`
    /// answers `200` while this node takes new work and `503` from the moment it begins to
    /// shut down ([`Dispatcher::drain`](crate::dispatch::Dispatcher::drain)). It reflects this
    /// node alone: a shared backend that is down does not make it `503` (2026-07-28 requests
    /// that need nothing shared are still served), but its JSON body says so. Not an MCP
    /// request, like [`health_path`](Self::health_path).
    pub fn ready_path(&self) -> &str {
        &self.ready_path
    }

    /// The path of the Prometheus/OpenMetrics text (feature `prometheus`; default `/metrics`):
    /// `GET` answers what the recorder [`install_prometheus`](super::install_prometheus)
    /// installed holds, `404` when it was not installed. Served on phantom's own listener, or
    /// only on the [`admin_addr`](Self::admin_addr) when one is set. Not an MCP request: no
    /// authentication, no session, like [`health_path`](Self::health_path).
    #[cfg(feature = "prometheus")]
    pub fn metrics_path(&self) -> &str {
        &self.metrics_path
    }

    /// The address of the admin listener (default none): when set,
    /// [`serve_dispatcher`](super::serve_dispatcher) binds it too and answers there the
    /// liveness and readiness probes and, with the `prometheus` feature, the metrics at
    /// `metrics_path()`, which the MCP listener then does not serve. Bind it
    /// to an address only the operator's network reaches (loopback, a pod's port that no
    /// Service exposes).
    pub fn admin_addr(&self) -> Option<SocketAddr> {
        self.admin_addr
    }
}

impl HttpConfig {
    /// These settings with the dispatcher's HTTP seams (`config`'s session and event stores)
    /// copied in: the one place they reach the transport.
    pub(super) fn serving(mut self, config: &Config) -> Self {
        self.session_store = config.session_store.clone();
        self.event_store = Arc::clone(&config.event_store);
        self
    }

    pub(super) fn host_allowed(&self, host: &str) -> bool {
        match &self.allowed_hosts {
            None => true,
            // Sent as configured, usually: a plain comparison first.
            Some(list) => list
                .iter()
                .any(|h| h.len() == host.len() && (*h == host || h.eq_ignore_ascii_case(host))),
        }
    }

    pub(super) fn origin_allowed(&self, origin: &str, request_host: Option<&str>) -> bool {
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
pub(super) fn origin_host(origin: &str) -> Option<&str> {
    let rest = origin.split_once("://")?.1;
    Some(host_part(rest.split('/').next().unwrap_or(rest)))
}

/// The host of a `Host` header value, without the port (`[::1]` keeps its brackets).
pub(super) fn host_part(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority
            .split_once(']')
            .map_or(authority, |(h, _)| &authority[..=h.len()]);
    }
    authority.rsplit_once(':').map_or(authority, |(h, _)| h)
}
