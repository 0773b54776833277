//! [`HttpConfig`]: settings of the HTTP transport, and its `Host` / `Origin` policy.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::server::Config;
use crate::store::{EventStore, MemoryEventStore, SessionStore};

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
    /// Largest request body, counted on the bytes actually read (default 4 MiB). A larger body
    /// is answered `413` once it has been read and thrown away (up to
    /// [`drain_limit`](#structfield.drain_limit)), so that a client which writes its whole body
    /// reads the answer.
    pub body_limit: usize,
    /// How much of an oversized body is read and discarded before the `413` (default 64 MiB).
    /// Past it the connection is closed after the answer, and a client still writing may see it
    /// reset instead.
    pub drain_limit: usize,
    /// Time a client has to send a request's head, and a kept-alive connection may stay idle
    /// between requests (default 30 s). Applies when phantom accepts the connections itself
    /// ([`serve`](super::serve), [`serve_listener`](super::serve_listener)).
    pub header_read_timeout: Duration,
    /// Time a client has to send a request's whole body once its head arrived (default 30 s);
    /// a slower body is answered `408`.
    pub body_read_timeout: Duration,
    /// Most legacy sessions kept at once (default 100 000).
    pub max_sessions: usize,
    /// Most legacy sessions one peer address may hold (default: no cap). Off by default: behind a
    /// proxy or load balancer every client shares one address.
    pub max_sessions_per_peer: Option<usize>,
    /// Most requests one legacy session may have in flight at once (default 64); one more is
    /// answered `429` with `Retry-After`.
    pub max_requests_per_session: usize,
    /// Most streams open at once on this endpoint: legacy GET streams and 2026-07-28
    /// `subscriptions/listen` streams (default 20 000); one more is answered `503` with
    /// `Retry-After`.
    pub max_streams: usize,
    /// A legacy session idle this long is evicted (default 30 minutes).
    pub session_idle_ttl: Duration,
    /// Interval of SSE keep-alive comments (default 15 s).
    pub sse_keep_alive: Duration,
    /// `retry` advertised in SSE priming events (default 1 s).
    pub sse_retry: Duration,
    /// How POST requests are answered.
    pub response_mode: ResponseMode,
    /// Legacy stateless mode (default off): `initialize` returns no `Mcp-Session-Id` and every
    /// 2025-11-25 request stands alone, as for serverless or load-balanced deployments. What
    /// needs a session (the GET stream, DELETE, `logging/setLevel`, `#[tool(requires = …)]`)
    /// answers an error that names the mode. 2026-07-28 requests are stateless either way.
    pub stateless: bool,
    /// The MCP Apps preview host (default off): `GET <endpoint>/preview` serves a page that
    /// lists the app tools, calls one and renders its view in a sandboxed frame with the
    /// view's declared CSP. For development: turn it on where people, not clients, connect.
    pub preview: bool,
    /// RFC 9728 protected-resource metadata (default none): when set, `phantom::serve` and
    /// `serve_listener` answer `GET /.well-known/oauth-protected-resource` and
    /// `…/oauth-protected-resource/mcp` with it, next to the endpoint. (Mounted in your own axum
    /// app, merge [`protected_resource`](super::protected_resource) instead.)
    pub protected_resource: Option<crate::auth::ProtectedResource>,
    /// Transport-independent settings.
    pub config: Config,
    /// Where SSE events are kept for resumption.
    pub event_store: Arc<dyn EventStore>,
    /// Where legacy sessions are shared with the other nodes behind a load balancer; `None` (the
    /// default) keeps them in this node's table only. See [`HttpConfig::session_store`].
    pub session_store: Option<Arc<dyn SessionStore>>,
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
            .field("response_mode", &self.response_mode)
            .field("stateless", &self.stateless)
            .field("preview", &self.preview)
            .field("protected_resource", &self.protected_resource)
            .field("session_store", &self.session_store.is_some())
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
            config: Config::default(),
            event_store: Arc::new(MemoryEventStore::new()),
            session_store: None,
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

    /// Serves the MCP Apps preview host at `GET <endpoint>/preview` (off by default).
    #[must_use]
    pub fn preview(mut self, on: bool) -> Self {
        self.preview = on;
        self
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

    /// Sets how much of an oversized body is read and discarded before the `413`.
    #[must_use]
    pub fn drain_limit(mut self, bytes: usize) -> Self {
        self.drain_limit = bytes;
        self
    }

    /// Sets the time a client has to send a request's head (and a connection may idle between
    /// requests) and the time it has to send the body.
    #[must_use]
    pub fn read_timeouts(mut self, header: Duration, body: Duration) -> Self {
        self.header_read_timeout = header;
        self.body_read_timeout = body;
        self
    }

    /// Caps the legacy sessions one peer address may hold (off by default).
    #[must_use]
    pub fn max_sessions_per_peer(mut self, max: usize) -> Self {
        self.max_sessions_per_peer = Some(max);
        self
    }

    /// Caps the requests one legacy session may have in flight at once.
    #[must_use]
    pub fn max_requests_per_session(mut self, max: usize) -> Self {
        self.max_requests_per_session = max;
        self
    }

    /// Caps the GET and `subscriptions/listen` streams open at once.
    #[must_use]
    pub fn max_streams(mut self, max: usize) -> Self {
        self.max_streams = max;
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

    /// Turns legacy stateless mode on or off (see [`HttpConfig::stateless`](#structfield.stateless)).
    #[must_use]
    pub fn stateless(mut self, on: bool) -> Self {
        self.stateless = on;
        self
    }

    /// Answers the protected-resource metadata routes with `metadata` (see
    /// [`HttpConfig::protected_resource`](#structfield.protected_resource)).
    #[must_use]
    pub fn protected_resource(mut self, metadata: crate::auth::ProtectedResource) -> Self {
        self.protected_resource = Some(metadata);
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

    /// Shares legacy sessions through `store` (for example `phantom_redis::RedisSessionStore`),
    /// so that any node behind a load balancer answers a session another node opened.
    ///
    /// `initialize` creates the record, `logging/setLevel` updates it (compare-and-set), DELETE
    /// removes it, and every other request restarts its idle timer with one
    /// [`touch`](SessionStore::touch) (the store keeps the idle TTL,
    /// [`HttpConfig::sessions`]'s). Each node still keeps its own table as a cache, within its own
    /// [`max_sessions`](HttpConfig::max_sessions). When the store cannot be reached, a request on
    /// a legacy session is answered `503` with `Retry-After` and a JSON-RPC error naming the
    /// store; 2026-07-28 requests need no session and are served as usual.
    #[must_use]
    pub fn session_store(mut self, store: impl SessionStore) -> Self {
        self.session_store = Some(Arc::new(store));
        self
    }

    /// Installs every seam of `backend` (`phantom_redis::backend(url).await?`): sessions and
    /// events here, the reply bus, the notification bus (a new served notifier over it), the
    /// subscription, task, registry, rate-limit and cache stores in [`HttpConfig::config`]. Seams the backend leaves `None`
    /// keep what is set. Call it after [`HttpConfig::config`], which replaces the whole
    /// `Config`; take the notifier for background jobs (`config.config.notifier.clone()`)
    /// after it.
    #[must_use]
    pub fn backend(mut self, backend: crate::store::Backend) -> Self {
        if let Some(sessions) = backend.sessions {
            self.session_store = Some(sessions);
        }
        if let Some(events) = backend.events {
            self.event_store = events;
        }
        if let Some(replies) = backend.replies {
            self.config.reply_bus = replies;
        }
        if let Some(bus) = backend.bus {
            self.config.notifier = crate::Notifier::with_bus(bus);
        }
        if let Some(subscriptions) = backend.subscriptions {
            self.config.subscriptions = subscriptions;
        }
        if let Some(tasks) = backend.tasks {
            self.config.task_store = tasks;
        }
        if let Some(registry) = backend.registry {
            self.config.registry_store = Some(registry);
        }
        if let Some(rates) = backend.rates {
            self.config.rate_store = rates;
        }
        if let Some(cache) = backend.cache {
            self.config.cache_store = cache;
        }
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
