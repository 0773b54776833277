//! [`RateLimit`]: a token bucket per caller.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::json;

use super::{Answer, Call, Middleware, Next};
use crate::error::Error;
use crate::kernel::{BoxFuture, Locked as _};
use crate::protocol::Method;

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
/// narrow it. The buckets are this process's (one node).
///
/// ```
/// use phantom::middleware::{RateKey, RateLimit};
///
/// // 5 calls of `search` per second per principal, 10 at once.
/// let limit = RateLimit::per_second(5.0, 10).tool("search").key(RateKey::Principal);
/// let config = phantom::Config::default().middleware(limit);
/// ```
#[derive(Debug)]
pub struct RateLimit {
    per_second: f64,
    burst: u32,
    key: RateKey,
    methods: Vec<Method>,
    tools: Vec<String>,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

/// Buckets kept at most; past it the full ones are dropped (a full bucket is the default).
const BUCKETS: usize = 100_000;

impl RateLimit {
    /// `burst` requests at once, refilled at `per_second` (a rate of 0 refills never).
    pub fn per_second(per_second: f64, burst: u32) -> Self {
        Self {
            per_second: per_second.max(0.0),
            burst: burst.max(1),
            key: RateKey::default(),
            methods: Vec::new(),
            tools: Vec::new(),
            buckets: Mutex::default(),
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

    fn who(&self, call: &Call<'_>) -> String {
        let peer = || {
            call.request
                .peer
                .map_or_else(|| "peer:-".to_owned(), |p| format!("peer:{}", p.ip()))
        };
        let session = || call.session.id.as_deref().map(|s| format!("session:{s}"));
        match self.key {
            RateKey::Principal => call
                .session
                .principal
                .as_deref()
                .map(|p| format!("principal:{p}"))
                .or_else(session)
                .unwrap_or_else(peer),
            RateKey::Session => session().unwrap_or_else(peer),
            RateKey::Peer => peer(),
        }
    }

    /// Takes a token from `who`'s bucket: `Err(wait)` when it is empty.
    fn take(&self, who: String) -> Result<(), Duration> {
        let now = Instant::now();
        let burst = f64::from(self.burst);
        let mut buckets = self.buckets.locked();
        if buckets.len() >= BUCKETS {
            let per_second = self.per_second;
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * per_second < burst
            });
        }
        let (tokens, at) = buckets.entry(who).or_insert((burst, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * self.per_second).min(burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            return Ok(());
        }
        if self.per_second == 0.0 {
            return Err(Duration::from_secs(3600));
        }
        Err(Duration::from_secs_f64((1.0 - *tokens) / self.per_second))
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
    fn on_request<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        if !self.applies(&call) {
            return next.run(call);
        }
        let Err(wait) = self.take(self.who(&call)) else {
            return next.run(call);
        };
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
        let answer = Answer::too_many_requests(error, retry_ms.div_ceil(1000));
        Box::pin(std::future::ready(answer))
    }
}
