//! [`Backend`]: every seam a node shares with the other nodes behind a load balancer, in one
//! value, installed in one call ([`Config::with_backend`](crate::Config::with_backend)).

use std::sync::Arc;

use super::{
    CacheStore, EventStore, KeyringStore, NotificationBus, RateStore, RegistryStore, ReplyBus,
    SessionStore, SubscriptionStore, TaskStore,
};

/// The shared seams of a node. A seam left `None` keeps the in-memory default, which serves one
/// process and costs nothing; `phantom_redis::backend(url)` fills every one.
///
/// What stays on each node whatever the backend: the streams open on it, the requests and
/// task handlers running on it, its caps (`HttpConfig::max_sessions`, `max_streams`, …), and
/// the handlers themselves — tools, resources and prompts are code, registered by the app on
/// every node.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct Backend {
    /// Legacy sessions ([`Config::session_store`](crate::Config::session_store)).
    pub(crate) sessions: Option<Arc<dyn SessionStore>>,
    /// SSE events for `Last-Event-ID` resumption.
    pub(crate) events: Option<Arc<dyn EventStore>>,
    /// Clients' answers to server-to-client requests.
    pub(crate) replies: Option<Arc<dyn ReplyBus>>,
    /// Changes (list changes, resource updates, task updates, cancellations) to every node.
    pub(crate) bus: Option<Arc<dyn NotificationBus>>,
    /// Legacy sessions' resource subscriptions.
    pub(crate) subscriptions: Option<Arc<dyn SubscriptionStore>>,
    /// Tasks.
    pub(crate) tasks: Option<Arc<dyn TaskStore>>,
    /// Which entries runtime registration disabled ([`Config::registry_store`](crate::Config::registry_store)).
    pub(crate) registry: Option<Arc<dyn RegistryStore>>,
    /// [`RateLimit`](crate::middleware::RateLimit)'s token buckets ([`Config::rate_store`](crate::Config::rate_store)).
    pub(crate) rates: Option<Arc<dyn RateStore>>,
    /// [`ResponseCache`](crate::middleware::ResponseCache)'s answers ([`Config::cache_store`](crate::Config::cache_store)).
    pub(crate) cache: Option<Arc<dyn CacheStore>>,
    /// The tags of the nodes' `requestState` keys ([`Config::keyring_store`](crate::Config::keyring_store)).
    pub(crate) keyring: Option<Arc<dyn KeyringStore>>,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("sessions", &self.sessions.is_some())
            .field("events", &self.events.is_some())
            .field("replies", &self.replies.is_some())
            .field("bus", &self.bus.is_some())
            .field("subscriptions", &self.subscriptions.is_some())
            .field("tasks", &self.tasks.is_some())
            .field("registry", &self.registry.is_some())
            .field("rates", &self.rates.is_some())
            .field("cache", &self.cache.is_some())
            .field("keyring", &self.keyring.is_some())
            .finish()
    }
}

impl Backend {
    /// Every seam in memory (the default).
    pub fn memory() -> Self {
        Self::default()
    }

    /// With this session store.
    #[must_use]
    pub fn with_sessions(mut self, store: impl SessionStore) -> Self {
        self.sessions = Some(Arc::new(store));
        self
    }

    /// With this event store.
    #[must_use]
    pub fn with_events(mut self, store: impl EventStore) -> Self {
        self.events = Some(Arc::new(store));
        self
    }

    /// With this reply bus.
    #[must_use]
    pub fn with_replies(mut self, bus: impl ReplyBus) -> Self {
        self.replies = Some(Arc::new(bus));
        self
    }

    /// With this notification bus.
    #[must_use]
    pub fn with_bus(mut self, bus: impl NotificationBus) -> Self {
        self.bus = Some(Arc::new(bus));
        self
    }

    /// With this subscription store.
    #[must_use]
    pub fn with_subscriptions(mut self, store: impl SubscriptionStore) -> Self {
        self.subscriptions = Some(Arc::new(store));
        self
    }

    /// With this task store.
    #[must_use]
    pub fn with_tasks(mut self, store: impl TaskStore) -> Self {
        self.tasks = Some(Arc::new(store));
        self
    }

    /// With this store of what runtime registration disabled.
    #[must_use]
    pub fn with_registry(mut self, store: impl RegistryStore) -> Self {
        self.registry = Some(Arc::new(store));
        self
    }

    /// With this store of rate-limit buckets.
    #[must_use]
    pub fn with_rates(mut self, store: impl RateStore) -> Self {
        self.rates = Some(Arc::new(store));
        self
    }

    /// With this store of the tags of the nodes' `requestState` keys.
    #[must_use]
    pub fn with_keyring(mut self, store: impl KeyringStore) -> Self {
        self.keyring = Some(Arc::new(store));
        self
    }

    /// With this store of cached answers.
    #[must_use]
    pub fn with_cache(mut self, store: impl CacheStore) -> Self {
        self.cache = Some(Arc::new(store));
        self
    }
}

/// Getters: the seams set, `None` where the in-memory default applies.
impl Backend {
    /// The session store, if set.
    pub fn sessions(&self) -> Option<&Arc<dyn SessionStore>> {
        self.sessions.as_ref()
    }

    /// The event store, if set.
    pub fn events(&self) -> Option<&Arc<dyn EventStore>> {
        self.events.as_ref()
    }

    /// The reply bus, if set.
    pub fn replies(&self) -> Option<&Arc<dyn ReplyBus>> {
        self.replies.as_ref()
    }

    /// The notification bus, if set.
    pub fn bus(&self) -> Option<&Arc<dyn NotificationBus>> {
        self.bus.as_ref()
    }

    /// The subscription store, if set.
    pub fn subscriptions(&self) -> Option<&Arc<dyn SubscriptionStore>> {
        self.subscriptions.as_ref()
    }

    /// The task store, if set.
    pub fn tasks(&self) -> Option<&Arc<dyn TaskStore>> {
        self.tasks.as_ref()
    }

    /// The store of what runtime registration disabled, if set.
    pub fn registry(&self) -> Option<&Arc<dyn RegistryStore>> {
        self.registry.as_ref()
    }

    /// The store of rate-limit buckets, if set.
    pub fn rates(&self) -> Option<&Arc<dyn RateStore>> {
        self.rates.as_ref()
    }

    /// The store of cached answers, if set.
    pub fn cache(&self) -> Option<&Arc<dyn CacheStore>> {
        self.cache.as_ref()
    }
}
