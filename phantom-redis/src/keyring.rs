//! [`RedisKeyringStore`]: the tags of the nodes' `requestState` keys, in one sorted set.

use std::sync::LazyLock;
use std::time::Duration;

use phantom::BoxFuture;
use phantom::store::{KeyringStore, Published, StoreError};

use crate::Redis;

/// `KEYS[1]` the set; `ARGV[1]` the TTL in ms, `ARGV[2..]` the tags. Drops the lapsed tags (scores
/// are when each lapses, on Redis's clock), then publishes the tags when the set is empty or holds
/// one of them. Returns nothing when they were published, else the tags that are.
static PUBLISH: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
local shared = #live == 0
if not shared then
  for i = 2, #ARGV do
    if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
      shared = true
      break
    end
  end
end
if not shared then
  return live
end
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ttl)
return {}",
    )
});

/// A [`KeyringStore`] in Redis: one sorted set, `<prefix>state-keys`, of the tags the nodes
/// published, each scored with when it lapses; the set itself expires with its last tag.
#[derive(Debug, Clone)]
pub struct RedisKeyringStore {
    redis: Redis,
}

impl RedisKeyringStore {
    /// A store through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }
}

impl KeyringStore for RedisKeyringStore {
    fn publish<'a>(
        &'a self,
        tags: &'a [String],
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Published, StoreError>> {
        Box::pin(async move {
            let key = format!("{}state-keys", self.redis.prefix());
            let ttl = u64::try_from(ttl.as_millis())
                .unwrap_or(u64::MAX)
                .max(1)
                .to_string();
            let mut args: Vec<&[u8]> = vec![ttl.as_bytes()];
            args.extend(tags.iter().map(|t| t.as_bytes()));
            let live: Vec<String> = self.redis.invoke(&PUBLISH, &[&key], &args).await?;
            Ok(if live.is_empty() {
                Published::Accepted
            } else {
                Published::Disjoint(live)
            })
        })
    }
}
