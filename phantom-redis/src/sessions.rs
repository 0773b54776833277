//! [`RedisSessionStore`]: legacy sessions in Redis, one hash per session.

use std::sync::LazyLock;
use std::time::Duration;

use phantom::BoxFuture;
use phantom::store::{SessionRecord, SessionStore, StoreError};
use redis::Script;

use crate::Redis;

/// A [`SessionStore`] in Redis.
///
/// Each session is one hash, `<prefix>{s:<id>}`, with the record as JSON (`rec`) and its
/// revision (`rev`), expiring after the session's idle TTL. Create, update and the timed reads
/// are Lua scripts of one key each, so each is atomic and one round trip, on one server or a
/// Redis Cluster alike.
#[derive(Debug, Clone)]
pub struct RedisSessionStore {
    redis: Redis,
}

/// `KEYS[1]` the session; `ARGV[1]` the record, `ARGV[2]` the TTL in ms. 1 when created, 0 when
/// the id exists.
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rec', ARGV[1], 'rev', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1",
    )
});

/// `KEYS[1]` the session, `KEYS[2..]` the keys that expire with it; `ARGV[1]` the TTL in ms.
/// The record and its revision, or nil.
static GET: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local v = redis.call('HMGET', KEYS[1], 'rec', 'rev')
if not v[1] then return false end
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
return v",
    )
});

/// `KEYS[1]` the session, `KEYS[2..]` the keys that expire with it; `ARGV[1]` the TTL in ms.
/// The revision, or nil.
static TOUCH: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return false end
for i = 2, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
return redis.call('HGET', KEYS[1], 'rev')",
    )
});

/// `KEYS[1]` the session, `KEYS[2..]` the keys that expire with it; `ARGV[1]` the expected
/// revision, `ARGV[2]` the record, `ARGV[3]` the TTL in ms. The new revision; -1 when the session
/// is gone, -2 when it is at another revision.
static UPDATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[1] then return -2 end
local next = tonumber(rev) + 1
redis.call('HSET', KEYS[1], 'rec', ARGV[2], 'rev', next)
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return next",
    )
});

fn millis(ttl: Duration) -> Result<Vec<u8>, StoreError> {
    let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
    if ms == 0 {
        return Err(StoreError::other(
            "a session's idle TTL must be at least one millisecond",
        ));
    }
    Ok(ms.to_string().into_bytes())
}

fn encode(record: &SessionRecord) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(record)
        .map_err(|e| StoreError::other(format!("session {} does not serialize: {e}", record.id)))
}

impl RedisSessionStore {
    /// Sessions on the Redis at `url`, under the default prefix: [`Redis::connect`], then
    /// [`RedisSessionStore::new`].
    pub async fn from_url(url: &str) -> Result<Self, StoreError> {
        Ok(Self::new(Redis::connect(url).await?))
    }

    /// Sessions through a connection made beforehand (a cluster, another prefix).
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }

    /// The key of a session's hash.
    pub fn key(&self, id: &str) -> String {
        session_key(self.redis.prefix(), id)
    }

    /// The session's hash and the keys that live and die with it (its resource subscriptions and
    /// its SSE events), all in one hash slot.
    fn keys(&self, id: &str) -> [String; 3] {
        let prefix = self.redis.prefix();
        [
            self.key(id),
            subscriptions_key(prefix, id),
            events_key(prefix, id),
        ]
    }
}

/// `<prefix>{s:<id>}`: the session's hash.
pub(crate) fn session_key(prefix: &str, id: &str) -> String {
    format!("{prefix}{{s:{id}}}")
}

/// `<prefix>{s:<id>}:events`: the session's SSE events.
pub(crate) fn events_key(prefix: &str, id: &str) -> String {
    format!("{prefix}{{s:{id}}}:events")
}

/// `<prefix>{s:<id>}:subs`: the resources the session subscribed to.
pub(crate) fn subscriptions_key(prefix: &str, id: &str) -> String {
    format!("{prefix}{{s:{id}}}:subs")
}

impl SessionStore for RedisSessionStore {
    fn create<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let ttl = millis(ttl)?;
            let created: i64 = self
                .redis
                .invoke(&CREATE, &[&self.key(&record.id)], &[&encode(record)?, &ttl])
                .await?;
            if created == 1 {
                Ok(())
            } else {
                Err(StoreError::conflict(format!(
                    "session {} exists already",
                    record.id
                )))
            }
        })
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        Box::pin(async move {
            let ttl = millis(ttl)?;
            let [record, subs, events] = self.keys(id);
            let found: Option<(Vec<u8>, u64)> = self
                .redis
                .invoke(&GET, &[&record, &subs, &events], &[&ttl])
                .await?;
            let Some((json, revision)) = found else {
                return Ok(None);
            };
            let mut record: SessionRecord = serde_json::from_slice(&json).map_err(|e| {
                StoreError::other(format!("the stored session {id} does not parse: {e}"))
            })?;
            record.revision = revision;
            Ok(Some(record))
        })
    }

    fn touch<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        Box::pin(async move {
            let ttl = millis(ttl)?;
            let [record, subs, events] = self.keys(id);
            self.redis
                .invoke(&TOUCH, &[&record, &subs, &events], &[&ttl])
                .await
        })
    }

    fn update<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(async move {
            let ttl = millis(ttl)?;
            let expected = record.revision.to_string();
            let [key, subs, events] = self.keys(&record.id);
            let next: i64 = self
                .redis
                .invoke(
                    &UPDATE,
                    &[&key, &subs, &events],
                    &[expected.as_bytes(), &encode(record)?, &ttl],
                )
                .await?;
            match next {
                -1 => Err(StoreError::not_found(format!(
                    "session {} is gone",
                    record.id
                ))),
                -2 => Err(StoreError::conflict(format!(
                    "session {} changed since revision {}",
                    record.id, record.revision
                ))),
                n => u64::try_from(n)
                    .map_err(|_| StoreError::other(format!("session {}: revision {n}", record.id))),
            }
        })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let [record, subs, events] = self.keys(id);
            let removed: (u64, u64) = self
                .redis
                .pipeline(
                    redis::pipe()
                        .atomic()
                        .cmd("DEL")
                        .arg(&record)
                        .cmd("DEL")
                        .arg(&[&subs, &events]),
                )
                .await?;
            Ok(removed.0 > 0)
        })
    }
}
