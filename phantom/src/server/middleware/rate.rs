//! [`RateLimit`]: a token bucket per caller.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::json;

use super::{Answer, Attach, Call, Middleware, Next};
use crate::error::Error;
use crate::kernel::BoxFuture;
use crate::protocol::Method;
use crate::store::{Bucket, MemoryRateStore, RateStore};

/// Whose bucket a request takes a token from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum RateKey {
    /// The principal `connect` (or bearer authentication) set; else the session; else the peer
    /// address (anonymous 2026-07-28 clients).
    #[default]
    Principal,
    /// The legacy session; else the peer address.
    Session,
    /// The peer's IP address.
    Peer,
}

/// Requests per caller, as a token bucket: `burst` at once, refilled at `per_second`. A request
/// that finds the bucket empty is not run: over HTTP it is answered `429 Too Many Requests`
/// with `Retry-After` (seconds until a token is back), and in either transport with the
/// JSON-RPC error `-32000` `Rate limit exceeded: …` whose `data` names the limit
/// (`{"rateLimit": {"perSecond", "burst", "key", "scope"}, "retryAfterMs"}`).
///
/// By default every feature request counts; [`method`](Self::method) and [`tool`](Self::tool)
/// narrow it. The buckets live in the served config's
/// [`rate_store`](crate::Config::rate_store): in memory by default (each node counts
/// alone), in Redis with `phantom_redis::backend` (the limit holds across every node). When that
/// store cannot be reached, requests are let through (the limit fails open, so an outage of the
/// store is not an outage of the app) and a `warn` is logged once per outage.
///
/// ```
/// use phantom::middleware::{RateKey, RateLimit};
///
/// // 5 calls of `search` per second per principal, 10 at once.
/// let limit = RateLimit::per_second(5.0, 10).tool("search").key(RateKey::Principal);
/// let config = phantom::Config::default().with_middleware(limit);
/// ```
#[derive(Debug)]
pub struct RateLimit {
    per_second: f64,
    burst: u32,
    key: RateKey,
    methods: Vec<Method>,
    tools: Vec<String>,
    store: OnceLock<Arc<dyn RateStore>>,
    /// The limit's part of a bucket's key, made once.
    label: OnceLock<String>,
    warned: AtomicBool,
}

impl RateLimit {
    /// `burst` requests at once, refilled at `per_second` (a rate of 0 refills never).
    pub fn per_second(per_second: f64, burst: u32) -> Self {
        Self {
            per_second: per_second.max(0.0),
            burst: burst.max(1),
            key: RateKey::default(),
            methods: Vec::new(),
            tools: Vec::new(),
            store: OnceLock::new(),
            label: OnceLock::new(),
            warned: AtomicBool::new(false),
        }
    }

    /// Whose bucket a request takes from (default [`RateKey::Principal`]).
    #[must_use]
    pub fn key(mut self, key: RateKey) -> Self {
        self.key = key;
        self
    }

    /// Counts this method's requests (several calls add up; none: every feature request).
    #[must_use]
    pub fn method(mut self, method: Method) -> Self {
        self.methods.push(method);
        self
    }

    /// Counts this tool's calls.
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>) -> Self {
        self.tools.push(name.into());
        self
    }

    fn applies(&self, call: &Call<'_>) -> bool {
        if self.methods.is_empty() && self.tools.is_empty() {
            return true;
        }
        self.methods.contains(&call.method)
            || (call.method == Method::ToolsCall
                && call.name.is_some_and(|n| self.tools.iter().any(|t| t == n)))
    }

    /// The bucket's key: the limit (made once), then the caller — in one allocation.
    fn bucket_key(&self, call: &Call<'_>) -> String {
        use std::fmt::Write as _;
        let label = self
            .label
            .get_or_init(|| format!("{}/{}s {}", self.burst, self.per_second, self.scope()));
        let mut key = String::with_capacity(label.len() + 48);
        key.push_str(label);
        key.push('|');
        let session = call.session.id.as_deref();
        let principal = call.session.principal.as_deref();
        let _ = match (self.key, principal, session) {
            (RateKey::Principal, Some(p), _) => write!(key, "principal:{p}"),
            (RateKey::Principal | RateKey::Session, _, Some(s)) => write!(key, "session:{s}"),
            _ => match call.request.peer {
                Some(peer) => write!(key, "peer:{}", peer.ip()),
                None => write!(key, "peer:-"),
            },
        };
        key
    }

    /// Takes a token from `who`'s bucket: `Some(wait)` when it is empty; `None` too when the
    /// store cannot be reached (fail open, logged once per outage).
    async fn take(&self, who: &str) -> Option<std::time::Duration> {
        let store = self.store.get_or_init(|| Arc::new(MemoryRateStore::new()));
        let bucket = Bucket {
            burst: self.burst,
            per_second: self.per_second,
        };
        match store.take(who, bucket).await {
            Ok(wait) => {
                self.warned.store(false, Ordering::Relaxed);
                wait
            }
            Err(e) => {
                crate::telemetry::metrics::store_error("rate");
                if !self.warned.swap(true, Ordering::Relaxed) {
                    tracing::warn!(error = %e, "rate limit store unavailable: requests are let through until it is back");
                }
                None
            }
        }
    }

    fn scope(&self) -> String {
        let mut scope: Vec<String> = self.methods.iter().map(|m| m.as_str().to_owned()).collect();
        scope.extend(self.tools.iter().map(|t| format!("tool {t}")));
        if scope.is_empty() {
            "every request".into()
        } else {
            scope.join(", ")
        }
    }
}

impl Middleware for RateLimit {
    fn attach(&self, node: &Attach<'_>) {
        let _ = self.store.set(Arc::clone(node.rate_store));
    }

    fn on_request<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        if !self.applies(&call) {
            return next.run(call);
        }
        Box::pin(async move {
            // Limits sharing one store keep apart: the key names the limit, then the caller.
            match self.take(&self.bucket_key(&call)).await {
                None => next.run(call).await,
                Some(wait) => self.refusal(wait),
            }
        })
    }
}

impl RateLimit {
    fn refusal(&self, wait: std::time::Duration) -> Answer {
        crate::telemetry::metrics::refusal("rate_limited");
        let key = match self.key {
            RateKey::Principal => "principal",
            RateKey::Session => "session",
            RateKey::Peer => "peer",
        };
        let scope = self.scope();
        let retry_ms = wait.as_millis().max(1) as u64;
        let error = Error::new(
            -32000,
            format!(
                "Rate limit exceeded: at most {} requests at once and {}/s per {key} for {scope}; retry in {retry_ms} ms",
                self.burst, self.per_second
            ),
        )
        .with_data(json!({
            "rateLimit": {"perSecond": self.per_second, "burst": self.burst, "key": key, "scope": scope},
            "retryAfterMs": retry_ms,
        }));
        Answer::too_many_requests(error, retry_ms.div_ceil(1000))
    }
}
