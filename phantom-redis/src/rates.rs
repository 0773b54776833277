//! [`RedisRateStore`]: token buckets in Redis, so that a rate limit holds across every node.

use std::sync::LazyLock;
use std::time::Duration;

use phantom::BoxFuture;
use phantom::store::{Bucket, RateStore, StoreError};

use crate::Redis;

/// `KEYS[1]` the bucket; `ARGV[1]` burst, `ARGV[2]` tokens per second. Refills by the time passed
/// (Redis's clock, so nodes' clocks do not matter), takes one token when there is one, and keeps
/// the bucket until it would be full again. Returns -1 when a token was taken, else the ms until
/// one is back.
static TAKE: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
local wait = -1
if tokens >= 1 then
  tokens = tokens - 1
elseif rate > 0 then
  wait = math.max(1, math.ceil((1 - tokens) * 1000 / rate))
else
  wait = 3600000
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
local full = 3600000
if rate > 0 then full = math.ceil((burst - tokens) * 1000 / rate) end
redis.call('PEXPIRE', KEYS[1], math.max(1000, full))
return wait",
    )
});

/// A [`RateStore`] in Redis: each bucket one hash, `<prefix>{r:<key>}` (`tokens`, `at`), taken
/// from in one Lua script on Redis's clock, and expiring once it would be full again (so idle
/// callers cost nothing).
#[derive(Debug, Clone)]
pub struct RedisRateStore {
    redis: Redis,
}

impl RedisRateStore {
    /// A store through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }
}

impl RateStore for RedisRateStore {
    fn take<'a>(
        &'a self,
        key: &'a str,
        bucket: Bucket,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        Box::pin(async move {
            let key = format!("{}{{r:{key}}}", self.redis.prefix());
            let burst = bucket.burst.to_string();
            let rate = bucket.per_second.to_string();
            let wait: i64 = self
                .redis
                .invoke(&TAKE, &[&key], &[burst.as_bytes(), rate.as_bytes()])
                .await?;
            Ok(u64::try_from(wait).ok().map(Duration::from_millis))
        })
    }
}
