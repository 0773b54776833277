//! [`Notifier`]: what an app announces changes with, onto the [`NotificationBus`].

use std::sync::Arc;

use super::StoreError;
use super::bus::{Change, MemoryBus, NotificationBus};

/// Announces changes to the clients that listen: list changes to every stream that may see the
/// list, resource updates to the streams subscribed to the resource.
///
/// Cheap to clone. Give the server the one you keep ([`Config::notifier`](crate::Config::notifier));
/// a handler takes it as a parameter (`notifier: Notifier`, like `Ctx`), a background job keeps
/// its own clone. With a networked [`NotificationBus`], a change announced on one node reaches the
/// clients of every node.
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
#[derive(Clone)]
pub struct Notifier {
    bus: Arc<dyn NotificationBus>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier").finish_non_exhaustive()
    }
}

impl Default for Notifier {
    fn default() -> Self {
        Self::new()
    }
}

impl Notifier {
    /// A notifier over a new in-memory bus (one process).
    pub fn new() -> Self {
        Self::with_bus(MemoryBus::new())
    }

    /// A notifier over `bus` (e.g. one shared by several nodes).
    pub fn with_bus(bus: impl NotificationBus) -> Self {
        Self { bus: Arc::new(bus) }
    }

    pub(crate) fn bus(&self) -> &Arc<dyn NotificationBus> {
        &self.bus
    }

    /// Publishes a change.
    pub async fn publish(&self, change: Change) -> Result<(), StoreError> {
        self.bus.publish(&change).await
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
