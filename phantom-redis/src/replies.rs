//! [`RedisReplyBus`]: a client's answer to a server-to-client request reaches the node whose
//! handler waits, whichever node the answer was posted to.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use phantom::BoxFuture;
use phantom::store::{ClientAnswer, ReplyBus, StoreError, Waiter};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::Redis;
use crate::pubsub::{self, Handler};

/// A [`ReplyBus`] over Redis.
///
/// A waiting handler claims `<prefix>{s:<session>}:r:<id>` with its node's id (expiring at the
/// handler's deadline, phantom's `Config::reply_timeout`); the node an answer is posted to takes the claim
/// with `GETDEL` — so an answer is delivered once, and `deliver` says whether a handler waited —
/// and publishes the answer on the waiting node's channel, `<prefix>node:<node>`. Each bus keeps
/// one pub/sub connection for its channel.
///
/// An answer published while the waiting node's pub/sub connection is down is lost; the handler
/// then gives up at the deadline.
pub struct RedisReplyBus {
    redis: Redis,
    waiting: Arc<Waiting>,
}

impl std::fmt::Debug for RedisReplyBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisReplyBus")
            .field("node", &self.waiting.node)
            .finish_non_exhaustive()
    }
}

type Waiters = HashMap<(String, String), oneshot::Sender<ClientAnswer>>;

/// The handlers waiting on this node.
struct Waiting {
    node: String,
    waiters: Mutex<Waiters>,
}

impl Waiting {
    fn waiters(&self) -> std::sync::MutexGuard<'_, Waiters> {
        // A panic while holding the lock leaves the map itself consistent.
        self.waiters.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn hand_over(&self, session: &str, id: &str, answer: ClientAnswer) -> bool {
        let tx = self.waiters().remove(&(session.to_owned(), id.to_owned()));
        tx.is_some_and(|tx| tx.send(answer).is_ok())
    }
}

/// An answer on the wire between nodes.
#[derive(Serialize, Deserialize)]
struct Wire {
    session: String,
    id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl Handler for Waiting {
    fn message(&self, _channel: &str, payload: &[u8]) {
        let Ok(wire) = serde_json::from_slice::<Wire>(payload) else {
            tracing::warn!("redis reply bus: a message that is not an answer; ignored");
            return;
        };
        let answer = match (wire.result, wire.error) {
            (Some(result), _) => ClientAnswer::Result(result),
            (None, Some(error)) => ClientAnswer::Error(error),
            (None, None) => return,
        };
        if !self.hand_over(&wire.session, &wire.id, answer) {
            tracing::debug!(
                id = wire.id,
                "redis reply bus: the handler stopped waiting first"
            );
        }
    }

    fn gap(&self) {
        tracing::warn!(
            "redis reply bus: answers published while pub/sub was down are lost; their handlers give up at the deadline"
        );
    }
}

impl RedisReplyBus {
    /// A bus through `redis`: subscribes this node's channel before it returns.
    pub async fn new(redis: Redis) -> Result<Self, StoreError> {
        let node = phantom::store::new_task_id();
        let waiting = Arc::new(Waiting {
            node,
            waiters: Mutex::default(),
        });
        let channel = Self::channel(&redis, &waiting.node);
        pubsub::listen(redis.pubsub_client(), vec![channel], &waiting)
            .await
            .map_err(|e| crate::error(&e))?;
        Ok(Self { redis, waiting })
    }

    /// This node's id: the claims of its waiting handlers name it.
    pub fn node(&self) -> &str {
        &self.waiting.node
    }

    fn channel(redis: &Redis, node: &str) -> String {
        format!("{}node:{node}", redis.prefix())
    }

    fn key(&self, session: &str, id: &str) -> String {
        format!("{}{{s:{session}}}:r:{id}", self.redis.prefix())
    }
}

impl ReplyBus for RedisReplyBus {
    fn expect<'a>(
        &'a self,
        session: &'a str,
        id: &'a str,
        deadline: Duration,
    ) -> BoxFuture<'a, Result<Waiter, StoreError>> {
        Box::pin(async move {
            let ms = u64::try_from(deadline.as_millis())
                .unwrap_or(u64::MAX)
                .max(1);
            let claimed: Option<String> = self
                .redis
                .query(
                    redis::cmd("SET")
                        .arg(self.key(session, id))
                        .arg(&self.waiting.node)
                        .arg("PX")
                        .arg(ms)
                        .arg("NX"),
                )
                .await?;
            if claimed.is_none() {
                return Err(StoreError::conflict(format!(
                    "request {id} of session {session} already waits for an answer"
                )));
            }
            let (tx, rx) = oneshot::channel();
            // A handler past its deadline drops its receiver; the sweep removes its sender.
            let mut waiters = self.waiting.waiters();
            waiters.retain(|_, tx| !tx.is_closed());
            waiters.insert((session.to_owned(), id.to_owned()), tx);
            Ok(rx)
        })
    }

    fn deliver<'a>(
        &'a self,
        session: &'a str,
        id: &'a str,
        answer: ClientAnswer,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let node: Option<String> = self
                .redis
                .query(redis::cmd("GETDEL").arg(self.key(session, id)))
                .await?;
            let Some(node) = node else {
                return Ok(false);
            };
            if node == self.waiting.node {
                return Ok(self.waiting.hand_over(session, id, answer));
            }
            let (result, error) = match answer {
                ClientAnswer::Result(r) => (Some(r), None),
                ClientAnswer::Error(e) => (None, Some(e)),
            };
            let wire = Wire {
                session: session.to_owned(),
                id: id.to_owned(),
                result,
                error,
            };
            let payload = serde_json::to_vec(&wire)
                .map_err(|e| StoreError::other(format!("an answer does not serialize: {e}")))?;
            // The claim says a handler waited. (PUBLISH's count of receivers is no answer: a
            // Redis Cluster counts only the subscribers of the node it ran on.)
            self.redis
                .query::<u64>(
                    redis::cmd("PUBLISH")
                        .arg(Self::channel(&self.redis, &node))
                        .arg(payload),
                )
                .await?;
            Ok(true)
        })
    }

    fn forget<'a>(&'a self, session: &'a str, id: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            self.waiting
                .waiters()
                .remove(&(session.to_owned(), id.to_owned()));
            if let Err(e) = self
                .redis
                .query::<u64>(redis::cmd("DEL").arg(self.key(session, id)))
                .await
            {
                tracing::debug!(error = %e, "redis reply bus: a claim is left to expire");
            }
        })
    }
}
