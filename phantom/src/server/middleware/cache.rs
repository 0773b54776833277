//! [`ResponseCache`]: read-only answers kept and reused.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::StreamExt as _;
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use super::{Answer, Attach, Call, Middleware, Next};
use crate::kernel::BoxFuture;
use crate::protocol::Method;
use crate::protocol::cache::CacheScope;
use crate::store::notifier::Notifier;
use crate::store::{BusEvent, CacheStore, Cached, Change, MemoryCacheStore};

/// Keeps read-only answers and answers repeats from them, without running the handler:
/// `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list` (5 minutes by
/// default), `resources/read` (1 hour), and `tools/call` of the tools named with
/// [`tool`](Self::tool) (1 hour; name only tools whose result depends on their arguments
/// alone, such as those marked `read_only`).
///
/// - **Whose answers.** An entry is keyed by the request's params (without `_meta`) and by the
///   caller: its principal, else its legacy session, else "anonymous". An answer is never
///   reused for another principal unless the cache is [`public`](Self::public).
/// - **What the client sees.** The same result; a 2026-07-28 list or read carries
///   `ttlMs` = the entry's remaining life and `cacheScope` = the cache's scope, so a client's own
///   cache agrees with this one.
/// - **Invalidation.** [`Notifier::notify_resources_updated`](crate::Notifier::notify_resources_updated)
///   drops the cached reads of those URIs, and a list change (`notify_tools_changed`, runtime
///   registration, …) drops that list, and for tools the cached calls, before the notify
///   returns. With a networked bus every node also drops what it hears of from other nodes.
/// - **Where.** The served config's
///   [`cache_store`](crate::Config::cache_store): in memory by default, in Redis with
///   `phantom_redis::backend` (shared by every node). When it cannot be reached the request runs
///   as if nothing were cached (logged once per outage at `warn`).
///
/// Errors, `isError` tool results, `input_required` rounds and task results are never kept.
///
/// ```
/// use std::time::Duration;
/// use phantom::middleware::ResponseCache;
///
/// // Lists and reads as by default; `lookup` calls kept 10 minutes.
/// let cache = ResponseCache::new().tool("lookup").calls(Duration::from_secs(600));
/// let config = phantom::Config::default().with_middleware(cache);
/// ```
#[derive(Debug)]
pub struct ResponseCache {
    lists: Duration,
    reads: Duration,
    calls: Duration,
    tools: Vec<String>,
    scope: CacheScope,
    store: OnceLock<Arc<dyn CacheStore>>,
    notifier: OnceLock<Notifier>,
    listening: OnceLock<()>,
    warned: Arc<AtomicBool>,
}

impl Default for ResponseCache {
    fn default() -> Self {
        Self::new()
    }
}

impl ResponseCache {
    /// Lists kept 5 minutes, reads 1 hour, no tool calls; private to each principal.
    pub fn new() -> Self {
        Self {
            lists: Duration::from_secs(300),
            reads: Duration::from_secs(3600),
            calls: Duration::from_secs(3600),
            tools: Vec::new(),
            scope: CacheScope::Private,
            store: OnceLock::new(),
            notifier: OnceLock::new(),
            listening: OnceLock::new(),
            warned: Arc::new(AtomicBool::new(false)),
        }
    }

    /// How long lists are kept (`Duration::ZERO`: not at all).
    #[must_use]
    pub fn lists(mut self, ttl: Duration) -> Self {
        self.lists = ttl;
        self
    }

    /// How long `resources/read` answers are kept (`Duration::ZERO`: not at all).
    #[must_use]
    pub fn reads(mut self, ttl: Duration) -> Self {
        self.reads = ttl;
        self
    }

    /// How long the calls of the tools named with [`tool`](Self::tool) are kept.
    #[must_use]
    pub fn calls(mut self, ttl: Duration) -> Self {
        self.calls = ttl;
        self
    }

    /// Keeps the calls of this tool (opt-in per tool).
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>) -> Self {
        self.tools.push(name.into());
        self
    }

    /// Shares answers between principals, and says `cacheScope: "public"` to 2026-07-28
    /// clients. Only for servers whose answers do not depend on who asks.
    #[must_use]
    pub fn public(mut self) -> Self {
        self.scope = CacheScope::Public;
        self
    }

    /// The tag an answer of `call` is kept under and for how long; `None`: not kept.
    fn kept(&self, call: &Call<'_>) -> Option<(String, Duration)> {
        let (tag, ttl) = match call.method {
            Method::ToolsList => ("tools".to_owned(), self.lists),
            Method::PromptsList => ("prompts".to_owned(), self.lists),
            Method::ResourcesList | Method::ResourcesTemplatesList => {
                ("resources".to_owned(), self.lists)
            }
            Method::ResourcesRead => (format!("resource:{}", call.name?), self.reads),
            Method::ToolsCall if self.tools.iter().any(|t| Some(t.as_str()) == call.name) => {
                ("tools".to_owned(), self.calls)
            }
            _ => return None,
        };
        (!ttl.is_zero()).then_some((tag, ttl))
    }

    /// The entry's key: the method, whose answer it is, and the params without `_meta`.
    fn key(&self, call: &Call<'_>) -> String {
        let who = match (self.scope, &call.session.principal, &call.session.id) {
            (CacheScope::Public, _, _) => "public".to_owned(),
            (_, Some(principal), _) => format!("principal:{principal}"),
            (_, None, Some(session)) => format!("session:{session}"),
            (_, None, None) => "anonymous".to_owned(),
        };
        let mut params: Map<String, Value> = call
            .params()
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default();
        params.remove("_meta");
        let mut hash = Sha256::new();
        hash.update(call.method.as_str());
        hash.update([0]);
        hash.update(who.as_bytes());
        hash.update([0]);
        hash.update(serde_json::to_string(&params).unwrap_or_default());
        let mut key = String::with_capacity(64);
        for byte in hash.finalize() {
            use std::fmt::Write as _;
            let _ = write!(key, "{byte:02x}");
        }
        key
    }

    fn store(&self) -> &Arc<dyn CacheStore> {
        self.store.get_or_init(|| Arc::new(MemoryCacheStore::new()))
    }

    /// Logs a store failure once per outage.
    fn unavailable(&self, e: &crate::store::StoreError) {
        crate::telemetry::metrics::store_error("cache");
        if !self.warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(error = %e, "response cache store unavailable: requests run uncached until it is back");
        }
    }

    /// Hears, with a bus shared by several nodes, the changes published elsewhere.
    fn listen(&self) {
        let Some(notifier) = self.notifier.get() else {
            return;
        };
        if notifier.in_process() {
            // The publish hook already ran on this process's store.
            return;
        }
        self.listening.get_or_init(|| {
            let mut heard = notifier.bus().subscribe();
            let store = Arc::clone(self.store());
            let warned = Arc::clone(&self.warned);
            tokio::spawn(async move {
                while let Some(event) = heard.next().await {
                    let tags = match event {
                        BusEvent::Change(change) => stale(&change),
                        // What was missed is unknown: every list may be stale. Cached reads
                        // of an update missed here keep their TTL (the publishing node dropped
                        // them from a shared store).
                        BusEvent::Gap => vec!["tools".into(), "prompts".into(), "resources".into()],
                    };
                    invalidate(&*store, &tags, &warned).await;
                }
            });
        });
    }
}

/// The tags a change makes stale.
fn stale(change: &Change) -> Vec<String> {
    match change {
        Change::ToolsChanged { .. } => vec!["tools".into()],
        Change::PromptsChanged { .. } => vec!["prompts".into()],
        Change::ResourcesChanged { .. } => vec!["resources".into()],
        Change::ResourcesUpdated { uris } => uris.iter().map(|u| format!("resource:{u}")).collect(),
        _ => Vec::new(),
    }
}

async fn invalidate(store: &dyn CacheStore, tags: &[String], warned: &AtomicBool) {
    for tag in tags {
        let Err(e) = store.invalidate(tag).await else {
            continue;
        };
        crate::telemetry::metrics::store_error("cache");
        if !warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(error = %e, tag = %tag, "response cache store unavailable: an invalidation was lost");
        }
    }
}

/// `answer` as a 2026-07-28 list or read carries it from the cache: with the entry's life.
fn hinted(mut result: Map<String, Value>, life: Duration, scope: CacheScope) -> Answer {
    let ms = u64::try_from(life.as_millis()).unwrap_or(u64::MAX);
    result.insert("ttlMs".into(), ms.into());
    result.insert("cacheScope".into(), scope.as_str().into());
    Answer::result(Value::Object(result))
}

impl Middleware for ResponseCache {
    fn attach(&self, node: &Attach<'_>) {
        if self.store.set(Arc::clone(node.cache_store)).is_err() {
            return;
        }
        let _ = self.notifier.set(node.notifier.clone());
        let store = Arc::clone(node.cache_store);
        let warned = Arc::clone(&self.warned);
        node.notifier.on_publish(Arc::new(move |change: &Change| {
            let tags = stale(change);
            let store = Arc::clone(&store);
            let warned = Arc::clone(&warned);
            Box::pin(async move { invalidate(&*store, &tags, &warned).await })
        }));
    }

    fn on_request<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        let Some((tag, ttl)) = self.kept(&call) else {
            return next.run(call);
        };
        Box::pin(async move {
            self.listen();
            let key = self.key(&call);
            let hints = call.session.is_modern() && call.method.cacheable();
            let version = match self.store().get(&tag, &key, ttl).await {
                Ok(Cached::Hit { value, remaining }) => {
                    self.warned.store(false, Ordering::Relaxed);
                    if let Ok(result) = serde_json::from_str::<Map<String, Value>>(&value) {
                        if hints {
                            return hinted(result, remaining, self.scope);
                        }
                        return Answer::result(Value::Object(result));
                    }
                    None
                }
                Ok(Cached::Miss { version }) => Some(version),
                Err(e) => {
                    self.unavailable(&e);
                    None
                }
            };
            let answer = next.run(call).await;
            let (Some(version), true) = (version, answer.is_final_result()) else {
                return answer;
            };
            if answer.is_tool_error() {
                return answer;
            }
            let Some(Value::Object(result)) = answer.to_json() else {
                return answer;
            };
            let text = serde_json::to_string(&result).unwrap_or_default();
            if let Err(e) = self.store().put(&tag, &key, version, &text, ttl).await {
                self.unavailable(&e);
                return answer;
            }
            if hints {
                return hinted(result, ttl, self.scope);
            }
            answer
        })
    }
}
