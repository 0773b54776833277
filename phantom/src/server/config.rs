//! [`Config`]: runtime settings shared by every transport.

use std::sync::Arc;
use std::time::Duration;

use super::Middleware;
use crate::input::StateKey;
use crate::protocol::cache::CacheScope;
use crate::store::notifier::Notifier;
use crate::store::{
    Backend, CacheStore, EventStore, KeyringStore, MemoryCacheStore, MemoryEventStore,
    MemoryRateStore, MemoryReplyBus, MemorySubscriptions, RateStore, RegistryStore, ReplyBus,
    SessionStore, SubscriptionStore,
};

/// The default of [`Config::json_depth`].
pub(crate) const DEFAULT_JSON_DEPTH: usize = 64;

/// Runtime settings of a server, independent of the transport, and the seams it shares with
/// other nodes ([`with_backend`](Self::with_backend)).
///
/// Set with the `with_…` methods, read with the getters of the same name without `with_`:
///
/// ```
/// use std::time::Duration;
///
/// let config = phantom::Config::default()
///     .with_page_size(50)
///     .with_state_ttl(Duration::from_secs(60));
/// assert_eq!(config.page_size(), 50);
/// assert_eq!(config.state_ttl(), Duration::from_secs(60));
/// ```
///
/// Every way of serving takes its settings and its seams from one `Config`, the
/// [`Dispatcher`](crate::dispatch::Dispatcher)'s: a backend installed here is used by the
/// dispatcher (tasks, subscriptions, answers, rate limits, …) and by the HTTP transport that
/// serves it (sessions and SSE events) alike.
#[derive(Clone)]
#[non_exhaustive]
pub struct Config {
    /// See [`Config::page_size`].
    pub(crate) page_size: usize,
    /// See [`Config::cache_ttl_ms`].
    pub(crate) cache_ttl_ms: u64,
    /// See [`Config::cache_scope`].
    pub(crate) cache_scope: CacheScope,
    /// See [`Config::middleware`].
    pub(crate) middleware: Vec<Arc<dyn Middleware>>,
    /// See [`Config::tool_middleware`].
    pub(crate) tool_middleware: std::collections::HashMap<String, Vec<Arc<dyn Middleware>>>,
    /// See [`Config::portable_schemas`].
    pub(crate) portable_schemas: bool,
    /// See [`Config::state_key`].
    pub(crate) state_key: StateKey,
    /// See [`Config::state_ttl`].
    pub(crate) state_ttl: Duration,
    /// See [`Config::state_limit`].
    pub(crate) state_limit: usize,
    /// See [`Config::reply_bus`].
    pub(crate) reply_bus: Arc<dyn ReplyBus>,
    /// See [`Config::reply_timeout`].
    pub(crate) reply_timeout: Duration,
    /// See [`Config::notifier`].
    pub(crate) notifier: Notifier,
    /// See [`Config::subscriptions`].
    pub(crate) subscriptions: Arc<dyn SubscriptionStore>,
    /// See [`Config::keep_alive`].
    pub(crate) keep_alive: Duration,
    /// See [`Config::task_store`].
    pub(crate) task_store: Arc<dyn crate::tasks::TaskStore>,
    /// See [`Config::json_depth`].
    pub(crate) json_depth: usize,
    /// See [`Config::bearer_auth`].
    pub(crate) bearer_auth: Option<crate::auth::BearerAuth>,
    /// See [`Config::registry_store`].
    pub(crate) registry_store: Option<Arc<dyn RegistryStore>>,
    /// See [`Config::rate_store`].
    pub(crate) rate_store: Arc<dyn RateStore>,
    /// See [`Config::cache_store`].
    pub(crate) cache_store: Arc<dyn CacheStore>,
    /// See [`Config::session_store`].
    pub(crate) session_store: Option<Arc<dyn SessionStore>>,
    /// See [`Config::event_store`].
    pub(crate) event_store: Arc<dyn EventStore>,
    /// See [`Config::keyring_store`].
    pub(crate) keyring_store: Option<Arc<dyn KeyringStore>>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("page_size", &self.page_size)
            .field("cache_ttl_ms", &self.cache_ttl_ms)
            .field("cache_scope", &self.cache_scope)
            .field("middleware", &self.middleware.len())
            .field("tool_middleware", &self.tool_middleware.len())
            .field("portable_schemas", &self.portable_schemas)
            .field("state_ttl", &self.state_ttl)
            .field("state_limit", &self.state_limit)
            .field("reply_timeout", &self.reply_timeout)
            .field("json_depth", &self.json_depth)
            .field("bearer_auth", &self.bearer_auth)
            .field("registry_store", &self.registry_store.is_some())
            .field("session_store", &self.session_store.is_some())
            .field("keyring_store", &self.keyring_store.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            page_size: crate::session::DEFAULT_PAGE_SIZE,
            cache_ttl_ms: 0,
            cache_scope: CacheScope::Private,
            middleware: Vec::new(),
            tool_middleware: std::collections::HashMap::new(),
            portable_schemas: true,
            state_key: StateKey::random(),
            state_ttl: Duration::from_secs(600),
            state_limit: 64 * 1024,
            reply_bus: Arc::new(MemoryReplyBus::new()),
            reply_timeout: Duration::from_secs(600),
            notifier: Notifier::in_memory(),
            subscriptions: Arc::new(MemorySubscriptions::new()),
            keep_alive: Duration::from_secs(15),
            task_store: Arc::new(crate::tasks::MemoryTaskStore::new()),
            json_depth: DEFAULT_JSON_DEPTH,
            bearer_auth: None,
            registry_store: None,
            rate_store: Arc::new(MemoryRateStore::new()),
            cache_store: Arc::new(MemoryCacheStore::new()),
            session_store: None,
            event_store: Arc::new(MemoryEventStore::new()),
            keyring_store: None,
        }
    }
}

/// Setters: each returns the config with one setting changed.
impl Config {
    /// Sets the items per page of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` (at least 1; default 100).
    #[must_use]
    pub fn with_page_size(mut self, n: usize) -> Self {
        self.page_size = n.max(1);
        self
    }

    /// Sets the caching hints of modern discover, list and read results: `ttlMs` (default 0:
    /// stale at once) and `cacheScope` (default `private`).
    #[must_use]
    pub fn with_cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.cache_ttl_ms = ttl_ms;
        self.cache_scope = scope;
        self
    }

    /// Adds `middleware` to the chain around every feature request, inside those added
    /// before it (the first added is the outermost).
    #[must_use]
    pub fn with_middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(Arc::new(middleware));
        self
    }

    /// Adds `middleware` around the calls of the tool named `tool` only (declared, added,
    /// merged or remote), inside the whole chain and inside this tool's middleware added before.
    #[must_use]
    pub fn with_tool_middleware(
        mut self,
        tool: impl Into<String>,
        middleware: impl Middleware,
    ) -> Self {
        self.tool_middleware
            .entry(tool.into())
            .or_default()
            .push(Arc::new(middleware));
        self
    }

    /// Lists tool schemas in portable spelling (`true`, the default) or exactly as schemars
    /// generates them (`false`, keeping `"format": "uint32"` and `type` arrays); see
    /// [`Config::portable_schemas`].
    #[must_use]
    pub fn with_portable_schemas(mut self, portable: bool) -> Self {
        self.portable_schemas = portable;
        self
    }

    /// Seals `requestState` with `key` (share one key across the nodes behind a load balancer).
    #[must_use]
    pub fn with_state_key(mut self, key: StateKey) -> Self {
        self.state_key = key;
        self
    }

    /// Keeps a sealed `requestState` valid for `ttl` (at least a second; default 10 minutes).
    #[must_use]
    pub fn with_state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// Caps the size of a sealed `requestState`, in bytes (default 64 KiB).
    #[must_use]
    pub fn with_state_limit(mut self, bytes: usize) -> Self {
        self.state_limit = bytes;
        self
    }

    /// Carries 2025-11-25 client answers over `bus` (a networked bus for several nodes).
    #[must_use]
    pub fn with_reply_bus(mut self, bus: impl ReplyBus) -> Self {
        self.reply_bus = Arc::new(bus);
        self
    }

    /// How long a server-to-client request waits for the client's answer (at least 1 ms; see
    /// [`Config::reply_timeout`]).
    #[must_use]
    pub fn with_reply_timeout(mut self, timeout: Duration) -> Self {
        self.reply_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Announces changes through `notifier` (e.g. one over a bus several configs share).
    #[must_use]
    pub fn with_notifier(mut self, notifier: Notifier) -> Self {
        self.notifier = notifier;
        self
    }

    /// Announces changes over `bus` (a networked bus for several nodes): the config's
    /// [`notifier`](Self::notifier) is then a new notifier over it.
    #[must_use]
    pub fn with_notification_bus(mut self, bus: impl crate::store::NotificationBus) -> Self {
        self.notifier = Notifier::with_bus(bus);
        self
    }

    /// Keeps legacy sessions' resource subscriptions in `store`.
    #[must_use]
    pub fn with_subscriptions(mut self, store: impl SubscriptionStore) -> Self {
        self.subscriptions = Arc::new(store);
        self
    }

    /// Sends a keep-alive on idle `subscriptions/listen` streams every `every` (at least 1 s;
    /// default 15 s).
    #[must_use]
    pub fn with_keep_alive(mut self, every: Duration) -> Self {
        self.keep_alive = every.max(Duration::from_secs(1));
        self
    }

    /// Keeps tasks in `store`.
    #[must_use]
    pub fn with_task_store(mut self, store: impl crate::tasks::TaskStore) -> Self {
        self.task_store = Arc::new(store);
        self
    }

    /// Refuses messages that nest arrays and objects deeper than `levels` (at least 8; default
    /// 64).
    #[must_use]
    pub fn with_json_depth(mut self, levels: usize) -> Self {
        self.json_depth = levels.max(8);
        self
    }

    /// Verifies the bearer token of every request with `auth` before `connect` runs (see
    /// [`phantom::auth`](crate::auth)): over HTTP, and in the in-process
    /// [`testing::Client`](crate::testing::Client), which sends its requests as HTTP ones unless
    /// built with [`Transport::Stdio`](crate::dispatch::Transport). stdio requests carry no
    /// headers and are left to `connect`.
    #[must_use]
    pub fn with_bearer_auth(mut self, auth: crate::auth::BearerAuth) -> Self {
        self.bearer_auth = Some(auth);
        self
    }

    /// Shares what runtime registration disables with the other nodes through `store` (see
    /// [`Config::registry_store`]).
    #[must_use]
    pub fn with_registry_store(mut self, store: impl RegistryStore) -> Self {
        self.registry_store = Some(Arc::new(store));
        self
    }

    /// Keeps [`RateLimit`](crate::middleware::RateLimit)'s buckets in `store`.
    #[must_use]
    pub fn with_rate_store(mut self, store: impl RateStore) -> Self {
        self.rate_store = Arc::new(store);
        self
    }

    /// Keeps [`ResponseCache`](crate::middleware::ResponseCache)'s answers in `store`.
    #[must_use]
    pub fn with_cache_store(mut self, store: impl CacheStore) -> Self {
        self.cache_store = Arc::new(store);
        self
    }

    /// Shares legacy HTTP sessions through `store` (for example
    /// `phantom_redis::RedisSessionStore`), so that any node behind a load balancer answers a
    /// session another node opened.
    ///
    /// `initialize` creates the record, `logging/setLevel` updates it (compare-and-set), DELETE
    /// removes it, and every other request restarts its idle timer with one
    /// [`touch`](SessionStore::touch) (the store keeps the idle TTL, `HttpConfig::with_sessions`'s).
    /// Each node still keeps its own table as a cache, within its own `HttpConfig::max_sessions`.
    /// When the store cannot be reached, a request on a legacy session is answered `503` with
    /// `Retry-After` and a JSON-RPC error naming the store; 2026-07-28 requests need no session
    /// and are served as usual.
    #[must_use]
    pub fn with_session_store(mut self, store: impl SessionStore) -> Self {
        self.session_store = Some(Arc::new(store));
        self
    }

    /// Keeps the SSE events of HTTP streams, for `Last-Event-ID` resumption, in `store`.
    #[must_use]
    pub fn with_event_store(mut self, store: impl EventStore) -> Self {
        self.event_store = Arc::new(store);
        self
    }

    /// Compares this node's [`state_key`](Self::state_key) with the keys of the other nodes
    /// through `store` (for example `phantom_redis::RedisKeyringStore`): a node whose keyring
    /// shares no key with theirs refuses to start
    /// ([`Dispatcher::check_state_key`](crate::dispatch::Dispatcher::check_state_key)).
    #[must_use]
    pub fn with_keyring_store(mut self, store: impl KeyringStore) -> Self {
        self.keyring_store = Some(Arc::new(store));
        self
    }

    /// Installs every seam of `backend` (`phantom_redis::backend(url).await?`): the session and
    /// event stores of the HTTP transport, the reply bus, the notification bus (a new
    /// [`notifier`](Self::notifier) over it), the subscription, task, registry, rate-limit and
    /// cache stores. Seams the backend leaves `None` keep what is set.
    ///
    /// This is the one place a backend goes: a
    /// [`Dispatcher`](crate::dispatch::Dispatcher) made with this config, and every way of
    /// serving it (`phantom::http::serve_dispatcher`, `service_dispatcher`, stdio), use these
    /// seams. Take the notifier for background jobs (`config.notifier().clone()`, or the
    /// dispatcher's) after this call.
    #[must_use]
    pub fn with_backend(mut self, backend: Backend) -> Self {
        let Backend {
            sessions,
            events,
            replies,
            bus,
            subscriptions,
            tasks,
            registry,
            rates,
            cache,
            keyring,
        } = backend;
        if let Some(sessions) = sessions {
            self.session_store = Some(sessions);
        }
        if let Some(events) = events {
            self.event_store = events;
        }
        if let Some(replies) = replies {
            self.reply_bus = replies;
        }
        if let Some(bus) = bus {
            self.notifier = Notifier::with_bus(bus);
        }
        if let Some(subscriptions) = subscriptions {
            self.subscriptions = subscriptions;
        }
        if let Some(tasks) = tasks {
            self.task_store = tasks;
        }
        if let Some(registry) = registry {
            self.registry_store = Some(registry);
        }
        if let Some(rates) = rates {
            self.rate_store = rates;
        }
        if let Some(cache) = cache {
            self.cache_store = cache;
        }
        if let Some(keyring) = keyring {
            self.keyring_store = Some(keyring);
        }
        self
    }
}

/// Getters: what each setting is, and its default.
impl Config {
    /// Items per page of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` (default 100).
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// `ttlMs` of modern discover, list and read results (default 0: stale at once).
    pub fn cache_ttl_ms(&self) -> u64 {
        self.cache_ttl_ms
    }

    /// `cacheScope` of modern discover, list and read results (default `private`).
    pub fn cache_scope(&self) -> CacheScope {
        self.cache_scope
    }

    /// The middleware chain around every feature request, outermost first (default none).
    pub fn middleware(&self) -> &[Arc<dyn Middleware>] {
        &self.middleware
    }

    /// The middleware of the tool named `tool` alone, run inside the chain for its calls only,
    /// outermost first (default none).
    pub fn tool_middleware(&self, tool: &str) -> &[Arc<dyn Middleware>] {
        self.tool_middleware.get(tool).map_or(&[], Vec::as_slice)
    }

    /// Whether `tools/list` spells tool schemas portably (default `true`): schemars' integer
    /// formats (`"format": "uint32"`, …) become `minimum`/`maximum`, and `type` arrays
    /// (`["integer", "null"]`) become `anyOf` branches. `false` lists schemas exactly as schemars
    /// generates them. Either way the same values validate.
    pub fn portable_schemas(&self) -> bool {
        self.portable_schemas
    }

    /// The key that seals 2026-07-28 `requestState` (default: random per process, so a state
    /// opens only on the node that made it; share one key across nodes).
    pub fn state_key(&self) -> &StateKey {
        &self.state_key
    }

    /// How long a sealed `requestState` stays valid (default 10 minutes).
    pub fn state_ttl(&self) -> Duration {
        self.state_ttl
    }

    /// The largest `requestState` phantom makes, in bytes (default 64 KiB); a handler whose
    /// answers so far would take more gets a clear error instead.
    pub fn state_limit(&self) -> usize {
        self.state_limit
    }

    /// Where 2025-11-25 server-to-client requests wait for their answers (default in memory).
    pub fn reply_bus(&self) -> &Arc<dyn ReplyBus> {
        &self.reply_bus
    }

    /// How long a 2025-11-25 server-to-client request (elicitation, sampling, roots, ping) waits
    /// for the client's answer (default 10 minutes). Past it the request that asked ends with
    /// `-32603` naming the input it waited for, and a late answer is refused as unknown.
    pub fn reply_timeout(&self) -> Duration {
        self.reply_timeout
    }

    /// What announces changes to the clients that listen (default: over a new in-memory bus).
    /// The served notifier: clone it for the app and its background jobs.
    pub fn notifier(&self) -> &Notifier {
        &self.notifier
    }

    /// Which resources legacy sessions subscribed to (default in memory).
    pub fn subscriptions(&self) -> &Arc<dyn SubscriptionStore> {
        &self.subscriptions
    }

    /// How often an idle `subscriptions/listen` stream shows it is alive (default 15 s).
    pub fn keep_alive(&self) -> Duration {
        self.keep_alive
    }

    /// Where tasks (`#[task_handler]` tools run as tasks) live (default: in process memory).
    pub fn task_store(&self) -> &Arc<dyn crate::tasks::TaskStore> {
        &self.task_store
    }

    /// How deeply a message may nest arrays and objects (default 64). A deeper message is
    /// refused with `-32700` before it is decoded, whatever the transport.
    pub fn json_depth(&self) -> usize {
        self.json_depth
    }

    /// Bearer-token authorization of HTTP requests (default none: `connect` decides alone).
    pub fn bearer_auth(&self) -> Option<&crate::auth::BearerAuth> {
        self.bearer_auth.as_ref()
    }

    /// Where the entries that runtime registration disabled are shared with other nodes
    /// (default none: each node keeps its own). With a store, a node loads them before its
    /// first request and again whenever a list changes anywhere.
    pub fn registry_store(&self) -> Option<&Arc<dyn RegistryStore>> {
        self.registry_store.as_ref()
    }

    /// Where [`RateLimit`](crate::middleware::RateLimit) keeps its buckets (default in memory:
    /// each node counts alone). `phantom_redis::backend` shares them, so a limit holds across
    /// nodes.
    pub fn rate_store(&self) -> &Arc<dyn RateStore> {
        &self.rate_store
    }

    /// Where [`ResponseCache`](crate::middleware::ResponseCache) keeps answers (default in
    /// memory). `phantom_redis::backend` shares them across nodes.
    pub fn cache_store(&self) -> &Arc<dyn CacheStore> {
        &self.cache_store
    }

    /// Where legacy HTTP sessions are shared with the other nodes behind a load balancer; `None`
    /// (the default) keeps them in each node's table only. See [`Config::with_session_store`].
    pub fn session_store(&self) -> Option<&Arc<dyn SessionStore>> {
        self.session_store.as_ref()
    }

    /// Where the SSE events of HTTP streams are kept for `Last-Event-ID` resumption (default in
    /// memory).
    pub fn event_store(&self) -> &Arc<dyn EventStore> {
        &self.event_store
    }

    /// Where the nodes sharing a backend compare their `requestState` keys; `None` (the
    /// default) compares nothing. See [`Config::with_keyring_store`].
    pub fn keyring_store(&self) -> Option<&Arc<dyn KeyringStore>> {
        self.keyring_store.as_ref()
    }
}
