//! [`CacheStore`]: answers kept by [`ResponseCache`](crate::middleware::ResponseCache), shared
//! by the nodes that serve one app.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::StoreError;
use crate::kernel::{BoxFuture, Locked as _};

/// What [`CacheStore::get`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cached {
    /// An answer kept under the tag's current version, and how long it has left.
    Hit {
        /// The answer, as it was put.
        value: String,
        /// Its remaining life.
        remaining: Duration,
    },
    /// Nothing (or nothing current): put the answer with this version, so that an
    /// invalidation that happens while it is computed makes it stale at once.
    Miss {
        /// The tag's version now.
        version: u64,
    },
}

/// Where [`ResponseCache`](crate::middleware::ResponseCache) keeps answers: entries grouped by a
/// tag (`tools`, `prompts`, `resources`, `resource:<uri>`), each tag invalidated as a whole.
///
/// Invalidation is by version: [`invalidate`](Self::invalidate) moves a tag to a new version, and
/// an entry answers only under the version it was put with. [`get`](Self::get) reports the
/// version of a miss and [`put`](Self::put) stores only under that version, so an answer computed
/// before an invalidation is never kept after it.
pub trait CacheStore: Send + Sync + 'static {
    /// The entry `key` of `tag`, if one is current. A miss makes sure the tag has a version and
    /// keeps it at least `ttl`.
    fn get<'a>(
        &'a self,
        tag: &'a str,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Cached, StoreError>>;

    /// Keeps `value` as `key` of `tag` for `ttl`, if the tag is still at `version` (else
    /// nothing).
    fn put<'a>(
        &'a self,
        tag: &'a str,
        key: &'a str,
        version: u64,
        value: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Every entry of `tag` stops answering, through every handle, before this returns.
    fn invalidate<'a>(&'a self, tag: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;
}

impl std::fmt::Debug for dyn CacheStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CacheStore")
    }
}

/// The in-memory [`CacheStore`] (one process; what [`Config::default`](crate::Config) holds).
/// It keeps at most [`MemoryCacheStore::ENTRIES`] entries: past it the expired ones go, then
/// everything.
#[derive(Debug, Default)]
pub struct MemoryCacheStore {
    tags: Mutex<HashMap<String, Tag>>,
    versions: AtomicU64,
}

#[derive(Debug)]
struct Tag {
    version: u64,
    entries: HashMap<String, (String, Instant)>,
}

impl MemoryCacheStore {
    /// Entries kept at most.
    pub const ENTRIES: usize = 10_000;

    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl CacheStore for MemoryCacheStore {
    fn get<'a>(
        &'a self,
        tag: &'a str,
        key: &'a str,
        _ttl: Duration,
    ) -> BoxFuture<'a, Result<Cached, StoreError>> {
        let now = Instant::now();
        let mut tags = self.tags.locked();
        let found = match tags.get_mut(tag) {
            Some(t) => t,
            None => tags.entry(tag.to_owned()).or_insert_with(|| Tag {
                version: self.versions.fetch_add(1, Ordering::Relaxed) + 1,
                entries: HashMap::new(),
            }),
        };
        let answer = match found.entries.get(key) {
            Some((value, expires)) if *expires > now => Cached::Hit {
                value: value.clone(),
                remaining: *expires - now,
            },
            _ => Cached::Miss {
                version: found.version,
            },
        };
        Box::pin(std::future::ready(Ok(answer)))
    }

    fn put<'a>(
        &'a self,
        tag: &'a str,
        key: &'a str,
        version: u64,
        value: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let now = Instant::now();
        let mut tags = self.tags.locked();
        let count: usize = tags.values().map(|t| t.entries.len()).sum();
        if count >= Self::ENTRIES {
            for t in tags.values_mut() {
                t.entries.retain(|_, (_, expires)| *expires > now);
            }
            tags.retain(|_, t| !t.entries.is_empty());
            if tags.values().map(|t| t.entries.len()).sum::<usize>() >= Self::ENTRIES {
                tags.clear();
            }
        }
        // A tag dropped or moved on since the miss: the answer may be stale, keep nothing.
        if let Some(t) = tags.get_mut(tag).filter(|t| t.version == version) {
            t.entries
                .insert(key.to_owned(), (value.to_owned(), now + ttl));
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn invalidate<'a>(&'a self, tag: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        if let Some(t) = self.tags.locked().get_mut(tag) {
            t.version = self.versions.fetch_add(1, Ordering::Relaxed) + 1;
            t.entries.clear();
        }
        Box::pin(std::future::ready(Ok(())))
    }
}

impl<T: CacheStore + ?Sized> CacheStore for Arc<T> {
    fn get<'a>(
        &'a self,
        tag: &'a str,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Cached, StoreError>> {
        (**self).get(tag, key, ttl)
    }

    fn put<'a>(
        &'a self,
        tag: &'a str,
        key: &'a str,
        version: u64,
        value: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).put(tag, key, version, value, ttl)
    }

    fn invalidate<'a>(&'a self, tag: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).invalidate(tag)
    }
}
