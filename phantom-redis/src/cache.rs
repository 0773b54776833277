//! [`RedisCacheStore`]: a response cache in Redis, shared by every node.

use std::sync::LazyLock;
use std::time::Duration;

use phantom::BoxFuture;
use phantom::store::{CacheStore, Cached, StoreError};

use crate::Redis;

/// `KEYS[1]` the tag's version, `KEYS[2]` the entry; `ARGV[1]` the TTL in ms. A current entry:
/// `{version, value, pttl}`; else `{version}` (the version created when missing, living at least
/// the TTL).
static GET: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"local v = redis.call('GET', KEYS[1])
if not v then
  v = '0'
  redis.call('SET', KEYS[1], v, 'PX', ARGV[1])
elseif redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local e = redis.call('HMGET', KEYS[2], 'v', 'b')
if e[1] == v and e[2] then
  return {v, e[2], redis.call('PTTL', KEYS[2])}
end
return {v}",
    )
});

/// `KEYS[1]` the version, `KEYS[2]` the entry; `ARGV[1]` the version of the miss, `ARGV[2]` the
/// value, `ARGV[3]` the TTL in ms. Writes only while the tag is at that version.
static PUT: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], 'v', ARGV[1], 'b', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1",
    )
});

/// `KEYS[1]` the version: moved on when it exists (no version, no entry to drop).
static INVALIDATE: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('INCR', KEYS[1]) end
return 1",
    )
});

/// A [`CacheStore`] in Redis. A tag's version is `<prefix>{c:<tag>}:v` and each entry a hash
/// `<prefix>{c:<tag>}:<key>` (`v`, `b`), in one slot of a cluster per tag. Invalidating a tag
/// is one `INCR` of its version; entries of older versions stop answering and expire with their
/// TTL. The version lives at least as long as the entries it vouches for, so every key expires.
#[derive(Debug, Clone)]
pub struct RedisCacheStore {
    redis: Redis,
}

impl RedisCacheStore {
    /// A store through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn keys(&self, tag: &str, key: &str) -> (String, String) {
        let prefix = self.redis.prefix();
        (
            format!("{prefix}{{c:{tag}}}:v"),
            format!("{prefix}{{c:{tag}}}:{key}"),
        )
    }
}

fn ms(ttl: Duration) -> String {
    ttl.as_millis().max(1).to_string()
}

impl CacheStore for RedisCacheStore {
    fn get<'a>(
        &'a self,
        tag: &'a str,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Cached, StoreError>> {
        Box::pin(async move {
            let (version, entry) = self.keys(tag, key);
            let found: Vec<redis::Value> = self
                .redis
                .invoke(&GET, &[&version, &entry], &[ms(ttl).as_bytes()])
                .await?;
            let text = |v: &redis::Value| -> Option<String> {
                redis::from_redis_value_ref::<String>(v).ok()
            };
            let version = found
                .first()
                .and_then(text)
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| StoreError::other("redis: a cache version is not a number"))?;
            match (found.get(1).and_then(text), found.get(2)) {
                (Some(value), Some(pttl)) => {
                    let pttl = redis::from_redis_value_ref::<i64>(pttl).unwrap_or(0);
                    Ok(Cached::Hit {
                        value,
                        remaining: Duration::from_millis(u64::try_from(pttl).unwrap_or(0)),
                    })
                }
                _ => Ok(Cached::Miss { version }),
            }
        })
    }

    fn put<'a>(
        &'a self,
        tag: &'a str,
        key: &'a str,
        version: u64,
        value: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let (v, entry) = self.keys(tag, key);
            let version = version.to_string();
            let _: i64 = self
                .redis
                .invoke(
                    &PUT,
                    &[&v, &entry],
                    &[version.as_bytes(), value.as_bytes(), ms(ttl).as_bytes()],
                )
                .await?;
            Ok(())
        })
    }

    fn invalidate<'a>(&'a self, tag: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let (version, _) = self.keys(tag, "");
            let _: i64 = self.redis.invoke(&INVALIDATE, &[&version], &[]).await?;
            Ok(())
        })
    }
}
