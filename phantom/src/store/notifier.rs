//! [`Notifier`]: what an app announces changes with, onto the [`NotificationBus`].

use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::StoreError;
use super::bus::{Change, MemoryBus, NotificationBus};
use crate::kernel::{BoxFuture, Locked as _};

/// Runs on the publishing node before a change goes onto the bus (a response cache drops what
/// the change makes stale, so the publisher's next read already misses).
pub(crate) type PublishHook = Arc<dyn Fn(&Change) -> BoxFuture<'static, ()> + Send + Sync>;

/// Announces changes to the clients that listen: list changes to every stream that may see the
/// list, resource updates to the streams subscribed to the resource.
///
/// Cheap to clone. The notifier to keep is the served one: take it from the [`Config`] the server
/// runs with (`config.notifier().clone()`, before the app is built), from
/// [`Dispatcher::notifier`](crate::dispatch::Dispatcher::notifier) or
/// [`testing::Client::notifier`](crate::testing::Client::notifier); a handler takes it as a
/// parameter (`notifier: Notifier`, like `Ctx`). A background job keeps a clone. With a
/// networked [`NotificationBus`] ([`Config::with_notification_bus`]), a change announced on one node
/// reaches the clients of every node.
///
/// A change published on an in-process bus that no served router uses reaches nobody: phantom
/// logs that once per notifier, at `warn`, naming the fix.
///
/// ```
/// # async fn job(notifier: phantom::Notifier) -> Result<(), phantom::store::StoreError> {
/// // After a bulk write: one notification per subscribed stream and URI, and one
/// // `authorize_resource_subscriptions` call per subscribed stream for the whole batch.
/// notifier
///     .notify_resources_updated(["studies://1/notes", "studies://2/notes"])
///     .await?;
/// notifier.notify_tools_changed().await?;
/// # Ok(()) }
/// ```
///
/// Wiring a background job to the served router:
///
/// ```no_run
/// # use phantom::prelude::*;
/// # #[derive(Clone)] struct App { notifier: Notifier }
/// # #[mcp_router] impl App {}
/// # async fn run() -> std::io::Result<()> {
/// let config = phantom::Config::default();
/// let app = App { notifier: config.notifier().clone() };
/// let dispatcher = phantom::dispatch::Dispatcher::with_config(app, config);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:4100").await?;
/// let http = phantom::http::HttpConfig::for_addr(listener.local_addr()?);
/// phantom::http::serve_dispatcher(listener, dispatcher, http, std::future::pending::<()>()).await
/// # }
/// ```
///
/// [`Config`]: crate::Config
/// [`Config::with_notification_bus`]: crate::Config::with_notification_bus
#[derive(Clone)]
pub struct Notifier {
    shared: Arc<Shared>,
}

/// What every clone of one notifier shares: the bus, and how many served routers listen on it.
struct Shared {
    bus: Arc<dyn NotificationBus>,
    /// Whether the bus lives in this process ([`MemoryBus`]): then a change with no served
    /// router attached reaches nobody, anywhere.
    in_process: bool,
    /// Dispatchers serving with this notifier now.
    served: AtomicUsize,
    /// Whether the lost change was logged already.
    warned: AtomicBool,
    /// What runs before each publish.
    hooks: std::sync::Mutex<Vec<PublishHook>>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier")
            .field("served", &self.shared.served.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Notifier {
    /// A notifier over a new in-memory bus that no server uses.
    #[deprecated(
        since = "0.2.0",
        note = "a notifier made on its own reaches no served router, so listens never hear its \
                changes: take the served one, `config.notifier().clone()` from the `Config` you \
                serve with (or `Dispatcher::notifier`, `testing::Client::notifier`, a handler's \
                `notifier: Notifier` parameter)"
    )]
    #[allow(
        clippy::new_without_default,
        reason = "a default notifier is the mistake itself"
    )]
    pub fn new() -> Self {
        Self::in_memory()
    }

    /// A notifier over a new in-memory bus (what [`Config::default`](crate::Config) holds).
    pub(crate) fn in_memory() -> Self {
        Self::with_bus(MemoryBus::new())
    }

    /// A notifier over `bus` (e.g. one shared by several nodes, or by a worker process that
    /// serves no clients). Serve with it through [`Config::with_notifier`](crate::Config::with_notifier),
    /// or hand the bus to [`Config::with_notification_bus`](crate::Config::with_notification_bus).
    pub fn with_bus(bus: impl NotificationBus) -> Self {
        let in_process = (&bus as &dyn Any).is::<MemoryBus>();
        Self {
            shared: Arc::new(Shared {
                bus: Arc::new(bus),
                in_process,
                served: AtomicUsize::new(0),
                warned: AtomicBool::new(false),
                hooks: std::sync::Mutex::default(),
            }),
        }
    }

    pub(crate) fn bus(&self) -> &Arc<dyn NotificationBus> {
        &self.shared.bus
    }

    /// Whether the bus is this process's own ([`MemoryBus`]): no other node hears it.
    pub(crate) fn in_process(&self) -> bool {
        self.shared.in_process
    }

    /// Counts a served router on this notifier until the returned guard drops.
    pub(crate) fn attach(&self) -> Attached {
        self.shared.served.fetch_add(1, Ordering::AcqRel);
        Attached {
            shared: Arc::clone(&self.shared),
        }
    }

    /// Runs `hook` before every change published through this notifier (any clone).
    pub(crate) fn on_publish(&self, hook: PublishHook) {
        self.shared.hooks.locked().push(hook);
    }

    /// Logs, once per notifier, a change that nothing served can hear.
    fn warn_if_unheard(&self, change: &Change) {
        let shared = &self.shared;
        if shared.in_process
            && shared.served.load(Ordering::Acquire) == 0
            && !shared.warned.swap(true, Ordering::AcqRel)
        {
            tracing::warn!(
                change = change.name(),
                "a change was published on a notifier that no served router uses, so no client \
                 hears it: announce through the served notifier (`config.notifier().clone()` \
                 from the Config you serve with, `Dispatcher::notifier`, \
                 `testing::Client::notifier`, or a handler's `notifier: Notifier` parameter); \
                 logged once per notifier"
            );
        }
    }

    /// Publishes a change.
    pub async fn publish(&self, change: Change) -> Result<(), StoreError> {
        self.warn_if_unheard(&change);
        let hooks = self.shared.hooks.locked().clone();
        for hook in hooks {
            hook(&change).await;
        }
        self.shared.bus.publish(&change).await
    }

    /// These resources were updated (one batch: each subscribed stream's authorization is asked
    /// once for all of them). URIs that match no resource template are dropped.
    pub async fn notify_resources_updated<I>(&self, uris: I) -> Result<(), StoreError>
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let uris: Vec<String> = uris.into_iter().map(Into::into).collect();
        if uris.is_empty() {
            return Ok(());
        }
        self.publish(Change::ResourcesUpdated { uris }).await
    }

    /// This resource was updated.
    pub async fn notify_resource_updated(&self, uri: impl Into<String>) -> Result<(), StoreError> {
        self.notify_resources_updated([uri.into()]).await
    }

    /// The flow behind a 2025-11-25 URL elicitation ended: its session hears
    /// `notifications/elicitation/complete` on its stream, so the client can retry the request
    /// that asked. Choose the id with [`ElicitUrl::elicitation_id`](crate::input::ElicitUrl::elicitation_id);
    /// `session` is the asking session's [`id`](crate::Session::id).
    pub async fn notify_elicitation_complete(
        &self,
        session: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Result<(), StoreError> {
        self.publish(Change::ElicitationComplete {
            session: session.into(),
            elicitation_id: elicitation_id.into(),
        })
        .await
    }

    /// This task changed (the Tasks extension): each `subscriptions/listen` that follows it
    /// hears `notifications/tasks` with the task as `get_task` returns it to that listen's
    /// session, until the task ends. Tasks of `#[task_handler]` tools are announced by phantom
    /// at every change; call this for the tasks an overridden `get_task` serves.
    pub async fn notify_task_updated(&self, task_id: impl Into<String>) -> Result<(), StoreError> {
        self.publish(Change::TaskUpdated {
            task_id: task_id.into(),
        })
        .await
    }

    /// The tool list changed (`notifications/tools/list_changed`).
    pub async fn notify_tools_changed(&self) -> Result<(), StoreError> {
        self.publish(Change::ToolsChanged { names: Vec::new() })
            .await
    }

    /// The prompt list changed (`notifications/prompts/list_changed`).
    pub async fn notify_prompts_changed(&self) -> Result<(), StoreError> {
        self.publish(Change::PromptsChanged { names: Vec::new() })
            .await
    }

    /// The resource list changed (`notifications/resources/list_changed`).
    pub async fn notify_resources_changed(&self) -> Result<(), StoreError> {
        self.publish(Change::ResourcesChanged { names: Vec::new() })
            .await
    }
}

/// A served router listening on a notifier; dropping it stops counting the router.
pub(crate) struct Attached {
    shared: Arc<Shared>,
}

impl Drop for Attached {
    fn drop(&mut self) {
        self.shared.served.fetch_sub(1, Ordering::AcqRel);
    }
}
