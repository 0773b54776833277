//! [`Config`]: runtime settings shared by every transport.

use std::sync::Arc;
use std::time::Duration;

use super::Middleware;
use crate::input::StateKey;
use crate::protocol::cache::CacheScope;
use crate::store::notifier::Notifier;
use crate::store::{
    CacheStore, MemoryCacheStore, MemoryRateStore, MemoryReplyBus, MemorySubscriptions, RateStore,
    RegistryStore, ReplyBus, SubscriptionStore,
};

/// The default [`Config::json_depth`].
pub(crate) const DEFAULT_JSON_DEPTH: usize = 64;

/// Runtime settings of a server, independent of the transport.
#[derive(Clone)]
#[non_exhaustive]
pub struct Config {
    /// Items per page of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` (default 100).
    pub page_size: usize,
    /// `ttlMs` of modern discover, list and read results (default 0: stale at once).
    pub cache_ttl_ms: u64,
    /// `cacheScope` of those results (default `private`).
    pub cache_scope: CacheScope,
    /// The middleware chain around every feature request, outermost first (default none).
    pub middleware: Vec<Arc<dyn Middleware>>,
    /// Each tool's own middleware, run inside the chain for its calls only (default none).
    pub tool_middleware: std::collections::HashMap<String, Vec<Arc<dyn Middleware>>>,
    /// Whether `tools/list` spells tool schemas portably (default `true`): schemars' integer
    /// formats (`"format": "uint32"`, …) become `minimum`/`maximum`, and `type` arrays
    /// (`["integer", "null"]`) become `anyOf` branches. `false` lists schemas exactly as schemars
    /// generates them. Either way the same values validate.
    pub portable_schemas: bool,
    /// The key that seals 2026-07-28 `requestState` (default: random per process, so a state
    /// opens only on the node that made it; share one key across nodes).
    pub state_key: StateKey,
    /// How long a sealed `requestState` stays valid (default 10 minutes).
    pub state_ttl: Duration,
    /// The largest `requestState` phantom makes, in bytes (default 64 KiB); a handler whose
    /// answers so far would take more gets a clear error instead.
    pub state_limit: usize,
    /// Where 2025-11-25 server-to-client requests wait for their answers (default in memory).
    pub reply_bus: Arc<dyn ReplyBus>,
    /// How long a 2025-11-25 server-to-client request (elicitation, sampling, roots, ping) waits
    /// for the client's answer (default 10 minutes). Past it the request that asked ends with
    /// `-32603` naming the input it waited for, and a late answer is refused as unknown.
    pub reply_timeout: Duration,
    /// What announces changes to the clients that listen (default: over a new in-memory bus).
    /// The served notifier: clone it (`config.notifier.clone()`) for the app and its background
    /// jobs before serving with this config.
    pub notifier: Notifier,
    /// Which resources legacy sessions subscribed to (default in memory).
    pub subscriptions: Arc<dyn SubscriptionStore>,
    /// How often an idle `subscriptions/listen` stream shows it is alive (default 15 s).
    pub keep_alive: Duration,
    /// Where tasks (`#[task_handler]` tools run as tasks) live (default: in process memory).
    pub task_store: Arc<dyn crate::tasks::TaskStore>,
    /// How deeply a message may nest arrays and objects (default 64). A deeper message is
    /// refused with `-32700` before it is decoded, whatever the transport.
    pub json_depth: usize,
    /// Bearer-token authorization of HTTP requests (default none: `connect` decides alone).
    pub bearer_auth: Option<crate::auth::BearerAuth>,
    /// Where the entries that runtime registration disabled are shared with other nodes
    /// (default none: each node keeps its own). With a store, a node loads them before its
    /// first request and again whenever a list changes anywhere.
    pub registry_store: Option<Arc<dyn RegistryStore>>,
    /// Where [`RateLimit`](crate::middleware::RateLimit) keeps its buckets (default in memory:
    /// each node counts alone). `phantom_redis::backend` shares them, so a limit holds across
    /// nodes.
    pub rate_store: Arc<dyn RateStore>,
    /// Where [`ResponseCache`](crate::middleware::ResponseCache) keeps answers (default in
    /// memory). `phantom_redis::backend` shares them across nodes.
    pub cache_store: Arc<dyn CacheStore>,
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
        }
    }
}

impl Config {
    /// Announces changes through `notifier` (e.g. one over a bus several configs share).
    #[must_use]
    pub fn notifier(mut self, notifier: Notifier) -> Self {
        self.notifier = notifier;
        self
    }

    /// Announces changes over `bus` (a networked bus for several nodes): the config's
    /// [`notifier`](Self::notifier) field is then a notifier over it.
    #[must_use]
    pub fn notification_bus(mut self, bus: impl crate::store::NotificationBus) -> Self {
        self.notifier = Notifier::with_bus(bus);
        self
    }

    /// Verifies the bearer token of every request with `auth` before `connect` runs (see
    /// [`phantom::auth`](crate::auth)): over HTTP, and in the in-process
    /// [`testing::Client`](crate::testing::Client), which sends its requests as HTTP ones unless
    /// built with [`Transport::Stdio`](crate::dispatch::Transport). stdio requests carry no
    /// headers and are left to `connect`.
    #[must_use]
    pub fn bearer_auth(mut self, auth: crate::auth::BearerAuth) -> Self {
        self.bearer_auth = Some(auth);
        self
    }

    /// Refuses messages that nest arrays and objects deeper than `levels` (at least 8).
    #[must_use]
    pub fn json_depth(mut self, levels: usize) -> Self {
        self.json_depth = levels.max(8);
        self
    }

    /// Keeps tasks in `store`.
    #[must_use]
    pub fn task_store(mut self, store: impl crate::tasks::TaskStore) -> Self {
        self.task_store = Arc::new(store);
        self
    }

    /// Keeps legacy sessions' resource subscriptions in `store`.
    #[must_use]
    pub fn subscriptions(mut self, store: impl SubscriptionStore) -> Self {
        self.subscriptions = Arc::new(store);
        self
    }

    /// Sends a keep-alive on idle `subscriptions/listen` streams every `every` (at least 1 s).
    #[must_use]
    pub fn keep_alive(mut self, every: Duration) -> Self {
        self.keep_alive = every.max(Duration::from_secs(1));
        self
    }

    /// Seals `requestState` with `key` (share one key across the nodes behind a load balancer).
    #[must_use]
    pub fn state_key(mut self, key: StateKey) -> Self {
        self.state_key = key;
        self
    }

    /// Keeps a sealed `requestState` valid for `ttl` (at least a second).
    #[must_use]
    pub fn state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// Caps the size of a sealed `requestState`, in bytes.
    #[must_use]
    pub fn state_limit(mut self, bytes: usize) -> Self {
        self.state_limit = bytes;
        self
    }

    /// Carries 2025-11-25 client answers over `bus` (a networked bus for several nodes).
    #[must_use]
    pub fn reply_bus(mut self, bus: impl ReplyBus) -> Self {
        self.reply_bus = Arc::new(bus);
        self
    }

    /// How long a server-to-client request waits for the client's answer (at least 1 ms; see
    /// [`Config::reply_timeout`](Config#structfield.reply_timeout)).
    #[must_use]
    pub fn reply_timeout(mut self, timeout: Duration) -> Self {
        self.reply_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Shares what runtime registration disables with the other nodes through `store` (see
    /// [`Config::registry_store`](Config#structfield.registry_store)).
    #[must_use]
    pub fn registry_store(mut self, store: impl RegistryStore) -> Self {
        self.registry_store = Some(Arc::new(store));
        self
    }

    /// Sets the page size (at least 1).
    #[must_use]
    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = n.max(1);
        self
    }

    /// Keeps [`RateLimit`](crate::middleware::RateLimit)'s buckets in `store`
    /// ([`Config::rate_store`](Config#structfield.rate_store)).
    #[must_use]
    pub fn rate_store(mut self, store: impl RateStore) -> Self {
        self.rate_store = Arc::new(store);
        self
    }

    /// Keeps [`ResponseCache`](crate::middleware::ResponseCache)'s answers in `store`
    /// ([`Config::cache_store`](Config#structfield.cache_store)).
    #[must_use]
    pub fn cache_store(mut self, store: impl CacheStore) -> Self {
        self.cache_store = Arc::new(store);
        self
    }

    /// Adds `middleware` to the chain around every feature request, inside those added
    /// before it (the first added is the outermost).
    #[must_use]
    pub fn middleware(mut self, middleware: impl Middleware) -> Self {
        self.middleware.push(Arc::new(middleware));
        self
    }

    /// Adds `middleware` around the calls of the tool named `tool` only (declared, added,
    /// merged or remote), inside the whole chain and inside this tool's middleware added before.
    #[must_use]
    pub fn tool_middleware(mut self, tool: impl Into<String>, middleware: impl Middleware) -> Self {
        self.tool_middleware
            .entry(tool.into())
            .or_default()
            .push(Arc::new(middleware));
        self
    }

    /// Lists tool schemas in portable spelling (`true`, the default) or exactly as schemars
    /// generates them (`false`, keeping `"format": "uint32"` and `type` arrays).
    #[must_use]
    pub fn portable_schemas(mut self, portable: bool) -> Self {
        self.portable_schemas = portable;
        self
    }

    /// Sets the caching hints of modern results.
    #[must_use]
    pub fn cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.cache_ttl_ms = ttl_ms;
        self.cache_scope = scope;
        self
    }
}
