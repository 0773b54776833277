//! [`RedisTaskStore`]: tasks in Redis, so that any node answers `tasks/get`, `tasks/update` and
//! `tasks/cancel` for a task another node runs.

use std::sync::LazyLock;
use std::time::Duration;

use phantom::BoxFuture;
use phantom::store::{StoreError, StoredTask, TaskStore};

use crate::Redis;

/// `KEYS[1]` the task; `ARGV[1]` the new record, `ARGV[2]` its TTL in ms. Writes only while the
/// stored task has not ended (compared and written in one script): 1 when written, 0 when the task
/// is gone or its status is terminal.
static PUT_UNLESS_ENDED: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local status = cjson.decode(current)['task']['status']
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1",
    )
});

/// A [`TaskStore`] in Redis: each task one JSON string, `<prefix>{t:<id>}`, expiring when the
/// task does (a task without a TTL after [`RedisTaskStore::with_max_ttl`], a day by default, so
/// that no key lives for ever).
///
/// `put` replaces the task; every change of a running task goes through `put_unless_ended`, one
/// Lua script that reads the stored status and writes only if the task has not ended, so a cancel
/// stored through one node is never overwritten by the progress or the result of the node running
/// the handler. That node hears of the cancel over the notification bus and stops its handler.
///
/// The node running a task holds its lease, `<prefix>{t:<id>}:lease` (the node's name, expiring
/// after [`RedisTaskStore::with_lease`], ten seconds by default), and renews it every third of
/// that; a task still `working` whose lease lapsed is stored `failed` with a reason by the next
/// node asked about it.
#[derive(Debug, Clone)]
pub struct RedisTaskStore {
    redis: Redis,
    max_ttl: Duration,
    lease: Duration,
}

impl RedisTaskStore {
    /// How long a task without a TTL of its own is kept unless [`RedisTaskStore::with_max_ttl`]
    /// says otherwise.
    pub const DEFAULT_MAX_TTL: Duration = Duration::from_secs(24 * 60 * 60);

    /// How long a running task's lease lasts unless [`RedisTaskStore::with_lease`] says
    /// otherwise.
    pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

    /// Tasks through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self {
            redis,
            max_ttl: Self::DEFAULT_MAX_TTL,
            lease: Self::DEFAULT_LEASE,
        }
    }

    /// How long a running task's lease lasts: how soon after its node died a task is `failed`.
    #[must_use]
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(30));
        self
    }

    fn lease_key(&self, task_id: &str) -> String {
        format!("{}{{t:{task_id}}}:lease", self.redis.prefix())
    }

    /// The longest a task is kept (the TTL of one that has none).
    #[must_use]
    pub fn with_max_ttl(mut self, max_ttl: Duration) -> Self {
        self.max_ttl = max_ttl;
        self
    }

    /// The key of a task.
    pub fn key(&self, task_id: &str) -> String {
        format!("{}{{t:{task_id}}}", self.redis.prefix())
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl RedisTaskStore {
    /// The record to write and its TTL in ms (0: expired already), once the task validates.
    fn encode(&self, stored: &StoredTask) -> Result<(Vec<u8>, u64), StoreError> {
        stored.task.validate().map_err(StoreError::other)?;
        let max = u64::try_from(self.max_ttl.as_millis()).unwrap_or(u64::MAX);
        let ms = match stored.expires_at_ms {
            Some(at) => at.saturating_sub(now_ms()).min(max),
            None => max,
        };
        let json = serde_json::to_vec(stored).map_err(|e| {
            StoreError::other(format!(
                "task {} does not serialize: {e}",
                stored.task.task_id
            ))
        })?;
        Ok((json, ms))
    }
}

impl TaskStore for RedisTaskStore {
    fn put_unless_ended<'a>(
        &'a self,
        stored: StoredTask,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let (json, ms) = self.encode(&stored)?;
            if ms == 0 {
                return Ok(false);
            }
            let key = self.key(&stored.task.task_id);
            let ttl = ms.to_string();
            let written: i64 = self
                .redis
                .invoke(&PUT_UNLESS_ENDED, &[&key], &[&json, ttl.as_bytes()])
                .await?;
            Ok(written == 1)
        })
    }

    fn put<'a>(&'a self, stored: StoredTask) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let (json, ms) = self.encode(&stored)?;
            if ms == 0 {
                // Expired already: nobody may read it again.
                return self.delete_key(&stored.task.task_id).await;
            }
            self.redis
                .query::<()>(
                    redis::cmd("SET")
                        .arg(self.key(&stored.task.task_id))
                        .arg(json)
                        .arg("PX")
                        .arg(ms),
                )
                .await
        })
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>> {
        Box::pin(async move {
            let json: Option<Vec<u8>> = self
                .redis
                .query(redis::cmd("GET").arg(self.key(task_id)))
                .await?;
            let Some(json) = json else { return Ok(None) };
            let stored: StoredTask = serde_json::from_slice(&json).map_err(|e| {
                StoreError::other(format!("the stored task {task_id} does not parse: {e}"))
            })?;
            Ok((!stored.expired_at(now_ms())).then_some(stored))
        })
    }

    fn delete<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.delete_key(task_id))
    }

    fn lease_ttl(&self) -> Option<Duration> {
        Some(self.lease)
    }

    fn lease<'a>(
        &'a self,
        task_id: &'a str,
        node: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let ms = u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX);
            self.redis
                .query::<()>(
                    redis::cmd("SET")
                        .arg(self.lease_key(task_id))
                        .arg(node)
                        .arg("PX")
                        .arg(ms),
                )
                .await
        })
    }

    fn leased<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let held: u64 = self
                .redis
                .query(redis::cmd("EXISTS").arg(self.lease_key(task_id)))
                .await?;
            Ok(held > 0)
        })
    }

    fn release<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.redis
                .query::<u64>(redis::cmd("DEL").arg(self.lease_key(task_id)))
                .await
                .map(|_| ())
        })
    }
}

impl RedisTaskStore {
    async fn delete_key(&self, task_id: &str) -> Result<(), StoreError> {
        self.redis
            .query::<u64>(redis::cmd("DEL").arg(self.key(task_id)))
            .await
            .map(|_| ())
    }
}
