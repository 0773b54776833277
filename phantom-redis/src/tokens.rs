//! [`RedisTokenStore`]: the OAuth tokens of `phantom::client`, one key per resource, and the
//! refresh lease beside it.

use std::sync::LazyLock;
use std::time::Duration;

use phantom::client::{TokenStore, Tokens};
use phantom::store::StoreError;

use crate::Redis;

/// `KEYS[1]` the lease; `ARGV[1]` its holder. Deletes the lease if the holder holds it.
static UNLOCK: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0",
    )
});

/// A [`TokenStore`] in Redis, for clients on several nodes that call one protected server:
/// `<prefix>{t:<resource>}tokens` holds the tokens as JSON, and `<prefix>{t:<resource>}lease`
/// the refresh lease (`SET NX PX`, given back by its holder only, through a script), both in
/// one Cluster slot. Tokens without a refresh token expire with their access token (`EXAT`);
/// those with one are kept until replaced, since how long a refresh token lasts is the
/// authorization server's secret. Nothing of a token is logged.
#[derive(Debug, Clone)]
pub struct RedisTokenStore {
    redis: Redis,
}

impl RedisTokenStore {
    /// A store through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self { redis }
    }

    fn key(&self, resource: &str, what: &str) -> String {
        format!("{}{{t:{resource}}}{what}", self.redis.prefix())
    }
}

impl TokenStore for RedisTokenStore {
    async fn load(&self, resource: &str) -> Result<Option<Tokens>, StoreError> {
        let json: Option<String> = self
            .redis
            .query(redis::cmd("GET").arg(self.key(resource, "tokens")))
            .await?;
        json.map(|json| {
            serde_json::from_str(&json)
                .map_err(|e| StoreError::other(format!("redis: stored tokens are not JSON: {e}")))
        })
        .transpose()
    }

    async fn save(&self, resource: &str, tokens: Tokens) -> Result<(), StoreError> {
        let json = serde_json::to_string(&tokens)
            .map_err(|e| StoreError::other(format!("redis: tokens not written: {e}")))?;
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.key(resource, "tokens")).arg(json);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        if let Some(at) = tokens.expires_at.filter(|at| *at > now)
            && tokens.refresh_token.is_none()
        {
            cmd.arg("EXAT").arg(at);
        }
        self.redis.query::<()>(&cmd).await
    }

    async fn remove(&self, resource: &str) -> Result<(), StoreError> {
        self.redis
            .query::<()>(redis::cmd("DEL").arg(self.key(resource, "tokens")))
            .await
    }

    async fn lock(&self, resource: &str, holder: &str, ttl: Duration) -> Result<bool, StoreError> {
        let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        let set: Option<String> = self
            .redis
            .query(
                redis::cmd("SET")
                    .arg(self.key(resource, "lease"))
                    .arg(holder)
                    .arg("NX")
                    .arg("PX")
                    .arg(ms),
            )
            .await?;
        Ok(set.is_some())
    }

    async fn unlock(&self, resource: &str, holder: &str) -> Result<(), StoreError> {
        let key = self.key(resource, "lease");
        self.redis
            .invoke::<i64>(&UNLOCK, &[&key], &[holder.as_bytes()])
            .await
            .map(drop)
    }
}
