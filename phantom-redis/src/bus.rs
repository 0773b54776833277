//! [`RedisBus`] and [`RedisSubscriptions`]: changes reach every node, and which resources a
//! session subscribed to is known to all of them.

use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::BoxStream;
use phantom::BoxFuture;
use phantom::store::{BusEvent, Change, NotificationBus, StoreError, SubscriptionStore};
use tokio::sync::broadcast;

use crate::Redis;
use crate::pubsub::{self, Handler};

/// A [`NotificationBus`] on Redis pub/sub: every change is published on `<prefix>changes`, and
/// each node keeps one subscription to it.
///
/// Redis pub/sub keeps nothing for a subscriber that is disconnected, so when this node's
/// connection is lost and comes back (it reconnects with backoff), or a subscriber here falls
/// behind, the subscription reports [`BusEvent::Gap`] and phantom sends every open stream a
/// precautionary `list_changed`, and each listen `resources/updated` for the resources it
/// subscribed to and the state of the tasks it follows.
pub struct RedisBus {
    redis: Redis,
    fan: Arc<Fan>,
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBus")
            .field("channel", &self.fan.channel)
            .finish_non_exhaustive()
    }
}

/// What this node's subscription hears, handed to every local subscriber.
struct Fan {
    channel: String,
    tx: broadcast::Sender<BusEvent>,
}

impl Handler for Fan {
    fn message(&self, _channel: &str, payload: &[u8]) {
        match serde_json::from_slice::<Change>(payload) {
            Ok(change) => {
                let _ = self.tx.send(BusEvent::Change(change));
            }
            // A newer node may publish a change this one does not know: skip it.
            Err(e) => {
                tracing::debug!(error = %e, "redis bus: a change this node does not know; ignored");
            }
        }
    }

    fn gap(&self) {
        let _ = self.tx.send(BusEvent::Gap);
    }
}

impl RedisBus {
    /// Changes a local subscriber may fall behind by before it hears a gap.
    pub const CAPACITY: usize = 1024;

    /// A bus through `redis`: subscribes before it returns.
    pub async fn new(redis: Redis) -> Result<Self, StoreError> {
        let channel = format!("{}changes", redis.prefix());
        let fan = Arc::new(Fan {
            channel: channel.clone(),
            tx: broadcast::channel(Self::CAPACITY).0,
        });
        pubsub::listen(redis.pubsub_client(), vec![channel], &fan)
            .await
            .map_err(|e| crate::error(&e))?;
        Ok(Self { redis, fan })
    }
}

impl NotificationBus for RedisBus {
    fn publish<'a>(&'a self, change: &'a Change) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let payload = serde_json::to_vec(change)
                .map_err(|e| StoreError::other(format!("a change does not serialize: {e}")))?;
            self.redis
                .query::<u64>(redis::cmd("PUBLISH").arg(&self.fan.channel).arg(payload))
                .await?;
            Ok(())
        })
    }

    fn subscribe(&self) -> BoxStream<'static, BusEvent> {
        let rx = self.fan.tx.subscribe();
        Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
            match rx.recv().await {
                Ok(event) => Some((event, rx)),
                Err(broadcast::error::RecvError::Lagged(_)) => Some((BusEvent::Gap, rx)),
                Err(broadcast::error::RecvError::Closed) => None,
            }
        }))
    }
}

/// A [`SubscriptionStore`] in Redis: one set per session, `<prefix>{s:<id>}:subs`, in the
/// session's hash slot. It expires with the session: [`RedisSessionStore`](crate::RedisSessionStore)
/// restarts its TTL with the session's own, and each `add` sets it to
/// [`RedisSubscriptions::with_ttl`]'s (the session idle TTL by default).
#[derive(Debug, Clone)]
pub struct RedisSubscriptions {
    redis: Redis,
    ttl: Duration,
}

impl RedisSubscriptions {
    /// The TTL a set gets on `add` unless [`RedisSubscriptions::with_ttl`] says otherwise:
    /// phantom's default session idle TTL.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(30 * 60);

    /// Subscriptions through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self {
            redis,
            ttl: Self::DEFAULT_TTL,
        }
    }

    /// The TTL of a session's set after an `add` (use the session idle TTL).
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sessions whose sets [`SubscriptionStore::subscribed_each`] asks about at once.
    pub const IN_FLIGHT: usize = 256;

    /// The key of a session's set.
    pub fn key(&self, session: &str) -> String {
        crate::sessions::subscriptions_key(self.redis.prefix(), session)
    }
}

impl RedisSubscriptions {
    /// Which of `uris` are in `session`'s set, a flag each.
    async fn flags(&self, session: &str, uris: &[String]) -> Result<Vec<bool>, StoreError> {
        self.redis
            .query(redis::cmd("SMISMEMBER").arg(self.key(session)).arg(uris))
            .await
    }
}

impl SubscriptionStore for RedisSubscriptions {
    fn add<'a>(&'a self, session: &'a str, uri: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let key = self.key(session);
            let ms = u64::try_from(self.ttl.as_millis())
                .unwrap_or(u64::MAX)
                .max(1);
            let mut pipe = redis::pipe();
            pipe.atomic()
                .cmd("SADD")
                .arg(&key)
                .arg(uri)
                .ignore()
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(ms)
                .ignore();
            self.redis.pipeline::<()>(&pipe).await
        })
    }

    fn remove<'a>(
        &'a self,
        session: &'a str,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let removed: u64 = self
                .redis
                .query(redis::cmd("SREM").arg(self.key(session)).arg(uri))
                .await?;
            Ok(removed > 0)
        })
    }

    fn subscribed<'a>(
        &'a self,
        session: &'a str,
        uris: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            if uris.is_empty() {
                return Ok(Vec::new());
            }
            let found: Vec<bool> = self
                .redis
                .query(redis::cmd("SMISMEMBER").arg(self.key(session)).arg(uris))
                .await?;
            Ok(uris
                .iter()
                .zip(found)
                .filter(|(_, yes)| *yes)
                .map(|(u, _)| u.clone())
                .collect())
        })
    }

    fn forget<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.redis
                .query::<u64>(redis::cmd("DEL").arg(self.key(session)))
                .await
                .map(|_| ())
        })
    }

    /// One `SMISMEMBER` per session, [`Self::IN_FLIGHT`] sent at a time on the multiplexed
    /// connection, which writes them together: about one round trip per that many sessions,
    /// instead of one per session. Each is routed by its own key, so a cluster answers it too.
    fn subscribed_each<'a>(
        &'a self,
        sessions: &'a [&'a str],
        uris: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<bool>, StoreError>> {
        use futures_util::StreamExt as _;
        Box::pin(async move {
            if uris.is_empty() {
                return Ok(Vec::new());
            }
            // The futures made first: a stream mapping sessions through a closure would not
            // be `Send` for every lifetime the box needs.
            let asks: Vec<_> = sessions.iter().map(|s| self.flags(s, uris)).collect();
            let mut answers = futures_util::stream::iter(asks).buffered(Self::IN_FLIGHT);
            let mut flags = Vec::with_capacity(sessions.len() * uris.len());
            while let Some(found) = answers.next().await {
                let found = found?;
                if found.len() != uris.len() {
                    return Err(StoreError::other(format!(
                        "redis: SMISMEMBER answered {} flags for {} members",
                        found.len(),
                        uris.len()
                    )));
                }
                flags.extend(found);
            }
            Ok(flags)
        })
    }
}
