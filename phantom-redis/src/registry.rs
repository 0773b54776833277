//! [`RedisRegistryStore`]: the entries runtime registration disabled, the same on every node.

use phantom::BoxFuture;
use phantom::store::{RegistryStore, StoreError};

use crate::Redis;

/// A [`RegistryStore`] over Redis: one set, `<prefix>registry:disabled`, of `<kind>:<name>`
/// members (`SADD`, `SREM`, `SMEMBERS`).
///
/// The one key without a TTL: it is the app's configuration rather than a session's state (an
/// expiry would enable a disabled tool behind the operator's back), and it is bounded by the
/// entries the app defines; enabling an entry removes its member.
#[derive(Debug, Clone)]
pub struct RedisRegistryStore {
    redis: Redis,
}

impl RedisRegistryStore {
    /// A store through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn key(&self) -> String {
        format!("{}registry:disabled", self.redis.prefix())
    }
}

impl RegistryStore for RedisRegistryStore {
    fn set_disabled<'a>(
        &'a self,
        entry: &'a str,
        disabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let command = if disabled { "SADD" } else { "SREM" };
            let _: i64 = self
                .redis
                .query(redis::cmd(command).arg(self.key()).arg(entry))
                .await?;
            Ok(())
        })
    }

    fn disabled(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            self.redis
                .query(redis::cmd("SMEMBERS").arg(self.key()))
                .await
        })
    }
}
