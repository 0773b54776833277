//! Redis backend for [phantom](https://docs.rs/phantom-mcp) MCP servers: what must be shared
//! when several nodes serve one MCP endpoint behind a load balancer.
//!
//! One call makes every seam phantom shares between nodes — [`RedisSessionStore`] (legacy
//! sessions), [`RedisEventStore`] (SSE events for `Last-Event-ID`), [`RedisReplyBus`] (clients'
//! answers to elicitation, sampling and roots), [`RedisBus`] (list changes, resource updates,
//! task updates and cancellations), [`RedisSubscriptions`], [`RedisTaskStore`] and
//! [`RedisRegistryStore`] (the entries runtime registration disabled), [`RedisKeyringStore`]
//! (the tags of the `requestState` keys the nodes hold), [`RedisRateStore`] and
//! [`RedisCacheStore`] (the rate-limit buckets and the response cache of the middleware) — and
//! [`Config::with_backend`](phantom::Config::with_backend) installs them, in the one place
//! every way of serving (and a gateway's mounted upstreams) takes them from:
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let backend = phantom_redis::backend("redis://127.0.0.1:6379/").await?;
//! let config = phantom::Config::default().with_backend(backend);
//! let notifier = config.notifier().clone(); // for background jobs: reaches every node
//! # let _ = (config, notifier); Ok(()) }
//! ```
//!
//! Keys start with a prefix (`phantom:` unless [`Redis::with_prefix`] says otherwise) and carry
//! a hash tag per session (`phantom:{s:<id>}`), so every operation on a session stays in one
//! slot of a Redis Cluster ([`Redis::cluster`]). Every key of a session or a task has a TTL (the
//! session's idle TTL, restarted by each request; the task's own); the one exception is the set
//! of disabled entries, which is the app's configuration and bounded by its entries
//! ([`RedisRegistryStore`]). No command scans the keyspace.
//!
//! When Redis cannot be reached, every operation fails with
//! [`StoreErrorKind::Unavailable`](phantom::store::StoreErrorKind::Unavailable) after at most the
//! response timeout (one second), and phantom answers `503` with `Retry-After`; the connection
//! reconnects by itself when Redis is back.
//!
//! The authorization server's state (`phantom::authz`) has its own four stores:
//! [`RedisClientStore`], [`RedisGrantStore`], [`RedisRefreshStore`] and [`RedisConsentStore`],
//! every key expiring.
//!
//! With the `oauth` feature (off by default), [`RedisTokenStore`] keeps the OAuth tokens of
//! `phantom::client` for clients on several nodes, which then refresh them once.

use std::sync::Arc;
use std::time::Duration;

use phantom::store::StoreError;
use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster_async::ClusterConnection;

mod authz;
mod bus;
mod cache;
mod events;
mod keyring;
mod pubsub;
mod rates;
mod registry;
mod replies;
mod sessions;
mod tasks;
#[cfg(feature = "oauth")]
mod tokens;

pub use authz::{RedisClientStore, RedisConsentStore, RedisGrantStore, RedisRefreshStore};
pub use bus::{RedisBus, RedisSubscriptions};
pub use cache::RedisCacheStore;
pub use events::RedisEventStore;
pub use keyring::RedisKeyringStore;
pub use rates::RedisRateStore;
pub use registry::RedisRegistryStore;
pub use replies::RedisReplyBus;
pub use sessions::RedisSessionStore;
pub use tasks::RedisTaskStore;
#[cfg(feature = "oauth")]
pub use tokens::RedisTokenStore;

/// Every seam on the Redis at `url`, under the default prefix: [`Redis::connect`], then
/// [`Redis::backend`].
pub async fn backend(url: &str) -> Result<phantom::store::Backend, StoreError> {
    Redis::connect(url).await?.backend().await
}

/// How long one command (or connection attempt) may take before it counts as unavailable.
const TIMEOUT: Duration = Duration::from_secs(1);

/// A connection to Redis (one server, or a cluster) and the prefix of every key written through
/// it. Cheap to clone: clones share one multiplexed connection.
#[derive(Clone)]
pub struct Redis {
    conn: Conn,
    /// The client pub/sub connections are opened with (a cluster's first node: Redis Cluster
    /// forwards classic pub/sub to every node).
    pubsub: redis::Client,
    prefix: Arc<str>,
}

#[derive(Clone)]
enum Conn {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.conn {
            Conn::Single(_) => "single",
            Conn::Cluster(_) => "cluster",
        };
        f.debug_struct("Redis")
            .field("kind", &kind)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl Redis {
    /// The prefix of every key unless [`Redis::with_prefix`] sets another.
    pub const DEFAULT_PREFIX: &'static str = "phantom:";

    /// Connects to one Redis server (`redis://host:port/db`, `rediss://` for TLS where the
    /// `redis` crate's TLS features are on). The connection reconnects by itself, with backoff,
    /// after Redis went away; commands fail meanwhile.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let client = redis::Client::open(url).map_err(|e| error(&e))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(2)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_secs(2));
        let conn = ConnectionManager::new_with_config(client.clone(), config)
            .await
            .map_err(|e| error(&e))?;
        Ok(Self::from_conn(Conn::Single(conn), client))
    }

    /// Connects to a Redis Cluster through any of its nodes (`redis://host:port` each).
    pub async fn cluster<I: IntoIterator<Item = S>, S: AsRef<str>>(
        nodes: I,
    ) -> Result<Self, StoreError> {
        let nodes: Vec<String> = nodes.into_iter().map(|n| n.as_ref().to_owned()).collect();
        let first = nodes
            .first()
            .ok_or_else(|| StoreError::other("redis: a cluster needs at least one node's URL"))?;
        let pubsub = redis::Client::open(first.as_str()).map_err(|e| error(&e))?;
        let client = redis::cluster::ClusterClientBuilder::new(nodes)
            .connection_timeout(TIMEOUT)
            .response_timeout(TIMEOUT)
            .retries(2)
            .build()
            .map_err(|e| error(&e))?;
        let conn = client.get_async_connection().await.map_err(|e| error(&e))?;
        Ok(Self::from_conn(Conn::Cluster(conn), pubsub))
    }

    fn from_conn(conn: Conn, pubsub: redis::Client) -> Self {
        Self {
            conn,
            pubsub,
            prefix: Arc::from(Self::DEFAULT_PREFIX),
        }
    }

    /// The same connection writing keys under `prefix` (several applications on one Redis, or a
    /// test of its own).
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Arc::from(prefix.into());
        self
    }

    /// The prefix of every key.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Every seam through this connection: sessions, events, replies, the bus, subscriptions
    /// and tasks. Opens the two pub/sub connections (replies and the bus) before it returns.
    pub async fn backend(&self) -> Result<phantom::store::Backend, StoreError> {
        Ok(phantom::store::Backend::memory()
            .with_sessions(RedisSessionStore::new(self.clone()))
            .with_events(RedisEventStore::new(self.clone()))
            .with_replies(RedisReplyBus::new(self.clone()).await?)
            .with_bus(RedisBus::new(self.clone()).await?)
            .with_subscriptions(RedisSubscriptions::new(self.clone()))
            .with_tasks(RedisTaskStore::new(self.clone()))
            .with_registry(RedisRegistryStore::new(self.clone()))
            .with_rates(RedisRateStore::new(self.clone()))
            .with_cache(RedisCacheStore::new(self.clone()))
            .with_keyring(RedisKeyringStore::new(self.clone())))
    }

    fn pubsub_client(&self) -> redis::Client {
        self.pubsub.clone()
    }

    /// Runs a Lua script with its keys and arguments.
    async fn invoke<T: redis::FromRedisValue>(
        &self,
        script: &redis::Script,
        keys: &[&str],
        args: &[&[u8]],
    ) -> Result<T, StoreError> {
        let mut call = script.prepare_invoke();
        for key in keys {
            call.key(*key);
        }
        for arg in args {
            call.arg(*arg);
        }
        let result = match &self.conn {
            Conn::Single(conn) => call.invoke_async(&mut conn.clone()).await,
            Conn::Cluster(conn) => call.invoke_async(&mut conn.clone()).await,
        };
        result.map_err(|e| error(&e))
    }

    /// Runs a pipeline (a `MULTI` transaction when it is atomic); its keys must share a slot.
    async fn pipeline<T: redis::FromRedisValue>(
        &self,
        pipe: &redis::Pipeline,
    ) -> Result<T, StoreError> {
        let result = match &self.conn {
            Conn::Single(conn) => pipe.query_async(&mut conn.clone()).await,
            Conn::Cluster(conn) => pipe.query_async(&mut conn.clone()).await,
        };
        result.map_err(|e| error(&e))
    }

    /// Runs one command.
    async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, StoreError> {
        let result = match &self.conn {
            Conn::Single(conn) => query_on(cmd, &mut conn.clone()).await,
            Conn::Cluster(conn) => query_on(cmd, &mut conn.clone()).await,
        };
        result.map_err(|e| error(&e))
    }
}

async fn query_on<T: redis::FromRedisValue, C: ConnectionLike>(
    cmd: &redis::Cmd,
    conn: &mut C,
) -> redis::RedisResult<T> {
    cmd.query_async(conn).await
}

/// A Redis error as a store error: unavailable when the server cannot be reached (refused,
/// dropped, timed out, a cluster that is down or moving), other otherwise. The message names
/// Redis.
fn error(e: &redis::RedisError) -> StoreError {
    let unavailable = e.is_io_error()
        || e.is_connection_refusal()
        || e.is_connection_dropped()
        || e.is_timeout()
        || e.is_cluster_error()
        || e.is_unrecoverable_error();
    let message = format!("redis: {e}");
    let error = if unavailable {
        StoreError::unavailable(message)
    } else {
        StoreError::other(message)
    };
    error.with_source(e.clone())
}
