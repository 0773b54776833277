//! [`RateStore`]: token buckets, shared by the nodes that serve one app.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::StoreError;
use crate::kernel::{BoxFuture, Locked as _};

/// One bucket's limit: `burst` tokens at most, refilled at `per_second`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    /// Tokens a full bucket holds (requests at once).
    pub burst: u32,
    /// Tokens added per second (0: never refilled).
    pub per_second: f64,
}

impl Bucket {
    /// How long until a bucket holding `tokens` has one again.
    pub fn wait(&self, tokens: f64) -> Duration {
        if self.per_second <= 0.0 {
            return Duration::from_secs(3600);
        }
        Duration::from_secs_f64(((1.0 - tokens) / self.per_second).max(0.001))
    }
}

/// Where [`RateLimit`](crate::middleware::RateLimit) keeps its token buckets: in memory (one
/// node) or shared (`phantom_redis::RedisRateStore`, so the limit holds across every node
/// behind a load balancer).
pub trait RateStore: Send + Sync + 'static {
    /// Takes one token from the bucket `key` (a new bucket is full): `Ok(None)` when there was
    /// one, `Ok(Some(wait))` when the bucket is empty, `wait` being the time until a token is
    /// back. Atomic: concurrent takes through any handle never spend one token twice.
    fn take<'a>(
        &'a self,
        key: &'a str,
        bucket: Bucket,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>>;
}

impl std::fmt::Debug for dyn RateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RateStore")
    }
}

/// The in-memory [`RateStore`] (one process; what [`Config::default`](crate::Config) holds).
#[derive(Debug, Default)]
pub struct MemoryRateStore {
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

/// Buckets kept at most; past it the full ones are dropped (a full bucket is the default).
const BUCKETS: usize = 100_000;

impl MemoryRateStore {
    /// An empty store: every bucket full.
    pub fn new() -> Self {
        Self::default()
    }
}

impl RateStore for MemoryRateStore {
    fn take<'a>(
        &'a self,
        key: &'a str,
        bucket: Bucket,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        let now = Instant::now();
        let burst = f64::from(bucket.burst);
        let refill = |tokens: f64, at: Instant| {
            (tokens + now.duration_since(at).as_secs_f64() * bucket.per_second).min(burst)
        };
        let mut buckets = self.buckets.locked();
        if buckets.len() >= BUCKETS {
            buckets.retain(|_, (tokens, at)| refill(*tokens, *at) < burst);
        }
        let (tokens, at) = match buckets.get_mut(key) {
            Some(entry) => entry,
            None => buckets.entry(key.to_owned()).or_insert((burst, now)),
        };
        *tokens = refill(*tokens, *at);
        *at = now;
        let answer = if *tokens >= 1.0 {
            *tokens -= 1.0;
            None
        } else {
            Some(bucket.wait(*tokens))
        };
        Box::pin(std::future::ready(Ok(answer)))
    }
}

impl<T: RateStore + ?Sized> RateStore for Arc<T> {
    fn take<'a>(
        &'a self,
        key: &'a str,
        bucket: Bucket,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        (**self).take(key, bucket)
    }
}
