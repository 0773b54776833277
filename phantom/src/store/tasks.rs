//! [`TaskStore`]: where tasks live between the request that created them and the requests that
//! poll, answer and cancel them. Async, fallible and made of serializable values, so a networked
//! store (Redis, with scale-out) implements it as the in-memory one does.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::StoreError;
use crate::kernel::BoxFuture;
use crate::kernel::Locked as _;
use crate::protocol::task::Task;
use crate::protocol::time::now_ms;

/// A stored task: the task, who may see it, and when it expires.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredTask {
    /// The task as clients see it.
    pub task: Task,
    /// Who created it: only requests with the same owner see it.
    pub owner: Owner,
    /// When it expires, in milliseconds since the Unix epoch (`None`: never).
    pub expires_at_ms: Option<u64>,
}

impl StoredTask {
    /// A task owned by `owner`, expiring `task.ttl_ms` after now.
    pub fn new(task: Task, owner: Owner) -> Self {
        let expires_at_ms = task.ttl_ms.map(|ttl| now_ms().saturating_add(ttl));
        Self {
            task,
            owner,
            expires_at_ms,
        }
    }

    /// Whether it is past its expiry at `now_ms`.
    pub fn expired_at(&self, now_ms: u64) -> bool {
        self.expires_at_ms.is_some_and(|at| at <= now_ms)
    }
}

/// Where tasks live. Every method is async and fallible: a networked store implements it.
///
/// A store never returns an expired task: `get` of one is `Ok(None)` (and may delete it).
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a task, new or changed (the whole record: last write wins). The task must pass
    /// [`Task::validate`].
    fn put<'a>(&'a self, stored: StoredTask) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Stores a changed task only while the stored one has not ended — the compare-and-set
    /// every change of a running task goes through, so that a cancel, a result or a failure
    /// that one node wrote is never overwritten by another node's progress. `Ok(true)` when
    /// written; `Ok(false)` when the task is unknown, expired or in a terminal status.
    ///
    /// The default reads, then writes: atomic only for a store with one writer. A store that
    /// several nodes share overrides it with one atomic operation (the contract suite races
    /// it).
    fn put_unless_ended<'a>(
        &'a self,
        stored: StoredTask,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            match self.get(&stored.task.task_id).await? {
                Some(current) if !current.task.status.is_terminal() => {
                    self.put(stored).await?;
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }

    /// The task with this id, unless it is unknown or expired.
    fn get<'a>(&'a self, task_id: &'a str)
    -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>>;

    /// Forgets a task (idempotent).
    fn delete<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// How long a running task's lease lasts, or `None` when the store keeps no leases (the
    /// default: a store in one process dies with the handlers it holds tasks of). With a lease,
    /// the node running a task renews it every third of this; a task found still running whose
    /// lease has lapsed — its node died — is stored `failed`.
    fn lease_ttl(&self) -> Option<std::time::Duration> {
        None
    }

    /// Takes or renews the lease of running task `task_id` for `node`, for
    /// [`lease_ttl`](TaskStore::lease_ttl).
    fn lease<'a>(
        &'a self,
        task_id: &'a str,
        node: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = (task_id, node);
        Box::pin(std::future::ready(Ok(())))
    }

    /// Whether some node holds the lease of task `task_id` (always, without leases).
    fn leased<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let _ = task_id;
        Box::pin(std::future::ready(Ok(true)))
    }

    /// Gives the lease up: the task's handler ended.
    fn release<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = task_id;
        Box::pin(std::future::ready(Ok(())))
    }
}

impl<T: TaskStore + ?Sized> TaskStore for std::sync::Arc<T> {
    fn put<'a>(&'a self, stored: StoredTask) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).put(stored)
    }

    fn put_unless_ended<'a>(
        &'a self,
        stored: StoredTask,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).put_unless_ended(stored)
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>> {
        (**self).get(task_id)
    }

    fn delete<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).delete(task_id)
    }

    fn lease_ttl(&self) -> Option<std::time::Duration> {
        (**self).lease_ttl()
    }

    fn lease<'a>(
        &'a self,
        task_id: &'a str,
        node: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).lease(task_id, node)
    }

    fn leased<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).leased(task_id)
    }

    fn release<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).release(task_id)
    }
}

/// The default [`TaskStore`]: a map in process memory. Expired tasks are dropped when read,
/// by [`sweep`](MemoryTaskStore::sweep), and by a sweep that a `put` runs at most once a
/// second, so tasks nobody reads again do not stay.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, StoredTask>>,
    /// When a `put` last swept, in milliseconds since the Unix epoch.
    swept_at_ms: std::sync::atomic::AtomicU64,
}

/// How often a `put` sweeps expired tasks, at most.
const SWEEP_EVERY_MS: u64 = 1000;

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn tasks(&self) -> std::sync::MutexGuard<'_, HashMap<String, StoredTask>> {
        self.tasks.locked()
    }

    /// Drops every task expired at `now_ms`; returns their ids (whose handlers should stop).
    pub fn sweep(&self, now_ms: u64) -> Vec<String> {
        let mut tasks = self.tasks();
        let expired: Vec<String> = tasks
            .iter()
            .filter(|(_, t)| t.expired_at(now_ms))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            tasks.remove(id);
        }
        expired
    }

    /// How many tasks are stored (expired ones the sweep has left so far included).
    pub fn len(&self) -> usize {
        self.tasks().len()
    }

    /// Whether no task is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl TaskStore for MemoryTaskStore {
    fn put<'a>(&'a self, stored: StoredTask) -> BoxFuture<'a, Result<(), StoreError>> {
        let result = match stored.task.validate() {
            Ok(()) => {
                let mut tasks = self.tasks();
                tasks.insert(stored.task.task_id.clone(), stored);
                let now = now_ms();
                let last = self.swept_at_ms.load(std::sync::atomic::Ordering::Relaxed);
                if now.saturating_sub(last) >= SWEEP_EVERY_MS {
                    self.swept_at_ms
                        .store(now, std::sync::atomic::Ordering::Relaxed);
                    tasks.retain(|_, t| !t.expired_at(now));
                }
                Ok(())
            }
            Err(why) => Err(StoreError::other(why)),
        };
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>> {
        let mut tasks = self.tasks();
        let found = match tasks.get(task_id) {
            Some(t) if t.expired_at(now_ms()) => {
                tasks.remove(task_id);
                None
            }
            other => other.cloned(),
        };
        Box::pin(std::future::ready(Ok(found)))
    }

    fn delete<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.tasks().remove(task_id);
        Box::pin(std::future::ready(Ok(())))
    }

    fn put_unless_ended<'a>(
        &'a self,
        stored: StoredTask,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let result = match stored.task.validate() {
            Err(why) => Err(StoreError::other(why)),
            Ok(()) => {
                // Compared and written under one lock.
                let mut tasks = self.tasks();
                match tasks.get_mut(&stored.task.task_id) {
                    Some(current)
                        if !current.expired_at(now_ms()) && !current.task.status.is_terminal() =>
                    {
                        *current = stored;
                        Ok(true)
                    }
                    _ => Ok(false),
                }
            }
        };
        Box::pin(std::future::ready(result))
    }
}

/// A new task id: 144 random bits, URL-safe base64 (24 characters).
pub fn new_task_id() -> String {
    crate::kernel::random_id::<18>()
}

/// Who owns a task, and so who may see it: requests with the same owner (see
/// [`Session::task_owner`](crate::Session::task_owner) for how a request's owner is found).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "camelCase")]
pub enum Owner {
    /// The principal `connect` set.
    Principal(String),
    /// A legacy session without a principal.
    Session(String),
    /// Neither: a 2026-07-28 request from a client `connect` did not identify. Every such request
    /// shares these tasks; identify clients in `connect` to keep their tasks apart.
    Anonymous,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::task::TaskStatus;

    fn block<T>(f: BoxFuture<'_, T>) -> T {
        futures_util::FutureExt::now_or_never(f).expect("the memory store is ready at once")
    }

    #[test]
    fn a_put_sweeps_expired_tasks_nobody_reads() {
        let store = MemoryTaskStore::new();
        let brief = StoredTask::new(Task::working(new_task_id(), Some(1)), Owner::Anonymous);
        block(store.put(brief)).expect("a valid task");
        std::thread::sleep(std::time::Duration::from_millis(SWEEP_EVERY_MS + 50));
        let kept = StoredTask::new(Task::working(new_task_id(), None), Owner::Anonymous);
        block(store.put(kept)).expect("a valid task");
        assert_eq!(
            store.len(),
            1,
            "the expired task was swept by the second put"
        );
    }

    #[test]
    fn a_stored_task_reads_back_until_it_expires() {
        let store = MemoryTaskStore::new();
        let id = new_task_id();
        assert_eq!(id.len(), 24);
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        let stored = StoredTask::new(
            Task::working(id.clone(), Some(60_000)),
            Owner::Principal("ada".into()),
        );
        block(store.put(stored.clone())).expect("a valid task");
        assert_eq!(block(store.get(&id)).expect("get"), Some(stored.clone()));
        // Expired: swept, and never read back.
        let later = stored.expires_at_ms.expect("a TTL") + 1;
        assert_eq!(store.sweep(later), std::slice::from_ref(&id));
        assert_eq!(block(store.get(&id)).expect("get"), None);
        let mut old = stored;
        old.expires_at_ms = Some(1);
        block(store.put(old)).expect("a valid task");
        assert_eq!(block(store.get(&id)).expect("get"), None, "expired on read");
        assert!(store.is_empty());
    }

    #[test]
    fn an_invalid_task_is_refused() {
        let store = MemoryTaskStore::new();
        let mut task = Task::working("t-1", None);
        task.status = TaskStatus::Completed;
        let err = block(store.put(StoredTask::new(task, Owner::Anonymous))).expect_err("no result");
        assert_eq!(err.kind(), crate::store::StoreErrorKind::Other);
        assert!(err.message().contains("result"), "{err}");
        let bad_id = Task::working("a/b", None);
        assert!(block(store.put(StoredTask::new(bad_id, Owner::Anonymous))).is_err());
    }

    #[test]
    fn ttl_null_is_written_and_payloads_follow_the_status() {
        let task = Task::working("t-2", None);
        let wire = serde_json::to_value(&task).expect("serializes");
        assert!(
            wire["ttlMs"].is_null() && wire.get("ttlMs").is_some(),
            "{wire}"
        );
        assert!(wire.get("ttl").is_none() && wire.get("pollInterval").is_none());
        let asked = task.input_required(serde_json::Map::from_iter([(
            "confirm".to_owned(),
            serde_json::json!({"method": "elicitation/create"}),
        )]));
        assert!(asked.validate().is_ok());
        let done = asked.completed(serde_json::json!({"content": [], "isError": true}));
        assert!(done.input_requests.is_none() && done.validate().is_ok());
        assert!(done.status.is_terminal());
    }
}
