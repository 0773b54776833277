//! Following tasks: every change phantom makes to a stored task is announced on the notification
//! bus ([`Recorder`]), and a 2026-07-28 `subscriptions/listen` with `notifications.taskIds` hears
//! `notifications/tasks` for the ids `authorize_task_subscriptions` granted it, each time with
//! the task fetched again for the listen's session (so revoked access applies at once), until
//! the task ends.

use std::sync::Arc;

use super::Env;
use super::{StoredTask, Task, TaskError, TaskStore};
use crate::Notifier;
use crate::kernel::{Callback, Failure, guarded};
use crate::session::Session;
use crate::store::Change;
use crate::store::StoreError;

/// Stores a task's change and announces it, so listens that follow the task hear of it.
#[derive(Clone)]
pub(crate) struct Recorder {
    store: Arc<dyn TaskStore>,
    notifier: Notifier,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder").finish_non_exhaustive()
    }
}

impl Recorder {
    pub(crate) fn new(store: Arc<dyn TaskStore>, notifier: Notifier) -> Self {
        Self { store, notifier }
    }

    pub(crate) fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    /// Stores the changed task unless it ended meanwhile (on any node:
    /// [`TaskStore::put_unless_ended`]), then announces it. `Ok(false)`: it had ended, and
    /// nothing was written. A bus that fails is logged: the task is stored, and a client polling
    /// `tasks/get` sees the change anyway.
    pub(crate) async fn record(&self, stored: StoredTask) -> Result<bool, StoreError> {
        let task_id = stored.task.task_id.clone();
        let status = stored.task.status;
        let stored = self.store.put_unless_ended(stored).await.inspect_err(|_| {
            crate::telemetry::metrics::store_error("tasks");
        })?;
        if !stored {
            return Ok(false);
        }
        crate::telemetry::metrics::task(status.as_str());
        if let Err(e) = self.notifier.publish(Change::TaskUpdated { task_id }).await {
            tracing::warn!(error = %e, "a task's change could not be announced");
        }
        Ok(true)
    }
}

/// The task `task_id` as `session` may see it: from `get_task` when the router defines it
/// (the app's tasks and its access check), else the task store's, for its owner only.
/// `Ok(None)`: unknown, expired or not this session's.
pub(crate) async fn find_task<E: Env>(
    env: &E,
    task_id: &str,
    session: &Session,
) -> Result<Option<Task>, Failure> {
    if env.defines(Callback::GetTask) {
        let fetched = guarded("get_task", task_id, env.get_task(task_id, session));
        return match fetched.await? {
            Ok(task) => Ok(Some(task)),
            Err(TaskError::Rpc(error)) => Err(Failure::from(error)),
            Err(TaskError::NotFound | TaskError::Expired) => Ok(None),
        };
    }
    let stored = env
        .task_store()
        .get(task_id)
        .await
        .map_err(|e| super::serve::store_failure(&e))?;
    Ok(stored
        .filter(|s| s.owner == session.task_owner())
        .map(|s| s.task))
}

/// The ids among `asked` that `session` may follow, in the order asked, once each:
/// `authorize_task_subscriptions` when the router defines it (ids it answers that were not
/// asked are ignored; a panic allows none), else the ids [`find_task`]
/// finds for the session.
pub(crate) async fn authorize_tasks<E: Env>(
    env: &E,
    asked: Vec<String>,
    session: &Session,
) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let asked: Vec<String> = asked
        .into_iter()
        .filter(|id| seen.insert(id.clone()))
        .collect();
    if asked.is_empty() {
        return asked;
    }
    if env.defines(Callback::AuthorizeTaskSubscriptions) {
        let answer = env.authorize_task_subscriptions(asked.clone(), session);
        let Ok(allowed) = guarded("authorize_task_subscriptions", "", answer).await else {
            return Vec::new();
        };
        return asked
            .into_iter()
            .filter(|id| allowed.contains(id))
            .collect();
    }
    let mut allowed = Vec::with_capacity(asked.len());
    for id in asked {
        if matches!(find_task(env, &id, session).await, Ok(Some(_))) {
            allowed.push(id);
        }
    }
    allowed
}
