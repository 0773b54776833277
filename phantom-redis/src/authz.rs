//! The authorization server's seams in Redis: [`RedisClientStore`], [`RedisGrantStore`],
//! [`RedisRefreshStore`] and [`RedisConsentStore`]. Every key expires; each operation touches
//! keys of one hash tag, so it stays in one Cluster slot.

use std::sync::LazyLock;
use std::time::Duration;

use phantom::BoxFuture;
use phantom::store::{
    ClientStore, ConsentStore, GrantStore, RefreshStore, Rotated, StoreError, USED_TOKENS,
};

use crate::Redis;

/// Milliseconds of `ttl`, at least one, as Redis reads them.
fn millis(ttl: Duration) -> String {
    u64::try_from(ttl.as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
        .to_string()
}

/// A `SET key value NX PX ttl`: `Ok(())` when it was set, a conflict naming `what` when the key
/// held a value.
async fn set_new(
    redis: &Redis,
    key: &str,
    value: &str,
    ttl: Duration,
    what: &str,
) -> Result<(), StoreError> {
    let set: Option<String> = redis
        .query(
            redis::cmd("SET")
                .arg(key)
                .arg(value)
                .arg("NX")
                .arg("PX")
                .arg(millis(ttl)),
        )
        .await?;
    match set {
        Some(_) => Ok(()),
        None => Err(StoreError::conflict(format!("{what} exists already"))),
    }
}

/// `KEYS[1]` a registration; `ARGV[1]` its idle time in ms. Its record, its expiry restarted.
static READ_CLIENT: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"local v = redis.call('GET', KEYS[1])
if v then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return v",
    )
});

/// A [`ClientStore`] in Redis: a string per registration, `<prefix>{a:c:<id>}`, expiring after
/// its idle time, which each read restarts.
#[derive(Debug, Clone)]
pub struct RedisClientStore {
    redis: Redis,
}

impl RedisClientStore {
    /// A store through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn key(&self, id: &str) -> String {
        format!("{}{{a:c:{id}}}", self.redis.prefix())
    }
}

impl ClientStore for RedisClientStore {
    fn register<'a>(
        &'a self,
        id: &'a str,
        record: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(
            async move { set_new(&self.redis, &self.key(id), record, idle, "the client").await },
        )
    }

    fn client<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            let idle = millis(idle);
            self.redis
                .invoke(&READ_CLIENT, &[&self.key(id)], &[idle.as_bytes()])
                .await
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { self.redis.query(redis::cmd("DEL").arg(self.key(id))).await })
    }
}

/// A [`GrantStore`] in Redis: a string per record, `<prefix>{a:g:<key>}`, with its TTL, taken
/// with `GETDEL`.
#[derive(Debug, Clone)]
pub struct RedisGrantStore {
    redis: Redis,
}

impl RedisGrantStore {
    /// A store through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn key(&self, key: &str) -> String {
        format!("{}{{a:g:{key}}}", self.redis.prefix())
    }
}

impl GrantStore for RedisGrantStore {
    fn put<'a>(
        &'a self,
        key: &'a str,
        record: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(
            async move { set_new(&self.redis, &self.key(key), record, ttl, "the record").await },
        )
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move {
            self.redis
                .query(redis::cmd("GETDEL").arg(self.key(key)))
                .await
        })
    }
}

/// `KEYS[1]` the family's hash (`rec`, `cur`); `ARGV[1]` its token, `ARGV[2]` the record,
/// `ARGV[3]` the TTL in ms. `1` when started, `0` when the family exists.
static START: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'cur', ARGV[1], 'rec', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1",
    )
});

/// `KEYS[1]` the family's hash, `KEYS[2]` its list of replaced tokens; `ARGV[1]` the token
/// presented, `ARGV[2]` the next one, `ARGV[3]` how many replaced tokens are kept. `c` and the
/// record when the token was current (now replaced), `r` when it was replaced before (the
/// family is deleted), `u` otherwise.
static ROTATE: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"local cur = redis.call('HGET', KEYS[1], 'cur')
if not cur then return 'u' end
if cur == ARGV[1] then
  redis.call('HSET', KEYS[1], 'cur', ARGV[2])
  redis.call('RPUSH', KEYS[2], ARGV[1])
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[3]), -1)
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
  return 'c' .. redis.call('HGET', KEYS[1], 'rec')
end
if redis.call('LPOS', KEYS[2], ARGV[1]) then
  redis.call('DEL', KEYS[1], KEYS[2])
  return 'r'
end
return 'u'",
    )
});

/// A [`RefreshStore`] in Redis: a hash per family, `<prefix>{a:r:<family>}` (`rec`, `cur`),
/// and the list of the tokens it replaced, `<prefix>{a:r:<family>}:used` (at most
/// [`USED_TOKENS`]), both expiring at the family's end; rotation is one Lua script.
#[derive(Debug, Clone)]
pub struct RedisRefreshStore {
    redis: Redis,
}

impl RedisRefreshStore {
    /// A store through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn keys(&self, family: &str) -> [String; 2] {
        let hash = format!("{}{{a:r:{family}}}", self.redis.prefix());
        let used = format!("{hash}:used");
        [hash, used]
    }
}

impl RefreshStore for RedisRefreshStore {
    fn start<'a>(
        &'a self,
        family: &'a str,
        token: &'a str,
        record: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let [hash, _] = self.keys(family);
            let ttl = millis(ttl);
            let args: [&[u8]; 3] = [token.as_bytes(), record.as_bytes(), ttl.as_bytes()];
            let started: i64 = self.redis.invoke(&START, &[&hash], &args).await?;
            if started == 1 {
                Ok(())
            } else {
                Err(StoreError::conflict("the refresh-token family exists"))
            }
        })
    }

    fn rotate<'a>(
        &'a self,
        family: &'a str,
        token: &'a str,
        next: &'a str,
    ) -> BoxFuture<'a, Result<Rotated, StoreError>> {
        Box::pin(async move {
            let [hash, used] = self.keys(family);
            let kept = USED_TOKENS.to_string();
            let args: [&[u8]; 3] = [token.as_bytes(), next.as_bytes(), kept.as_bytes()];
            let answer: String = self.redis.invoke(&ROTATE, &[&hash, &used], &args).await?;
            Ok(match answer.split_at_checked(1) {
                Some(("c", record)) => Rotated::Current(record.to_owned()),
                Some(("r", _)) => Rotated::Reused,
                _ => Rotated::Unknown,
            })
        })
    }

    fn revoke<'a>(&'a self, family: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let [hash, used] = self.keys(family);
            self.redis
                .query(redis::cmd("DEL").arg(hash).arg(used))
                .await
        })
    }
}

/// A [`ConsentStore`] in Redis: a key per consent, `<prefix>{a:k:<key>}`, with its TTL.
#[derive(Debug, Clone)]
pub struct RedisConsentStore {
    redis: Redis,
}

impl RedisConsentStore {
    /// A store through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn key(&self, key: &str) -> String {
        format!("{}{{a:k:{key}}}", self.redis.prefix())
    }
}

impl ConsentStore for RedisConsentStore {
    fn remember<'a>(
        &'a self,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.redis
                .query(
                    redis::cmd("SET")
                        .arg(self.key(key))
                        .arg("1")
                        .arg("PX")
                        .arg(millis(ttl)),
                )
                .await
        })
    }

    fn remembered<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let n: i64 = self
                .redis
                .query(redis::cmd("EXISTS").arg(self.key(key)))
                .await?;
            Ok(n == 1)
        })
    }

    fn forget<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { self.redis.query(redis::cmd("DEL").arg(self.key(key))).await })
    }
}
