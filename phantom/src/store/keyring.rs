//! [`KeyringStore`]: which `requestState` keys the nodes sharing a backend hold, so that a node
//! keyed differently from the others refuses to start.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::StoreError;
use crate::kernel::{BoxFuture, Locked as _};

/// Where the nodes sharing a backend say which keys of their
/// [`StateKey`](crate::input::StateKey) keyring they hold: one tag per key, an HMAC of a fixed
/// label under the key (it names the key without revealing it, and cannot be made without it).
/// A node whose keyring shares no key with the tags the others published refuses to start
/// ([`Dispatcher::check_state_key`](crate::dispatch::Dispatcher::check_state_key)) instead of
/// failing, with nothing logged, every 2026-07-28 input round another node sealed. Each node
/// publishes its tags again every few seconds; a tag no node publishes any more lapses.
///
/// What a store holds is bounded by the keys the live nodes hold.
pub trait KeyringStore: Send + Sync + 'static {
    /// Publishes `tags` for `ttl`, unless the tags published before (and not lapsed) are not
    /// empty and share none of `tags`: then it publishes nothing and answers
    /// [`Published::Disjoint`] with those tags. Atomic: two nodes publishing disjoint tags into
    /// an empty store at once cannot both be accepted.
    fn publish<'a>(
        &'a self,
        tags: &'a [String],
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Published, StoreError>>;
}

/// What [`KeyringStore::publish`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Published {
    /// The tags are published: the store was empty, or shares a tag with them.
    Accepted,
    /// Nothing was published: the tags the other nodes published (in any order), of which none
    /// is among the tags given.
    Disjoint(Vec<String>),
}

/// The in-memory [`KeyringStore`]: one process (or the nodes of one test) sharing an `Arc`.
#[derive(Debug, Default)]
pub struct MemoryKeyringStore {
    /// Each tag, and when it lapses.
    tags: Mutex<HashMap<String, Instant>>,
}

impl MemoryKeyringStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl KeyringStore for MemoryKeyringStore {
    fn publish<'a>(
        &'a self,
        tags: &'a [String],
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Published, StoreError>> {
        let now = Instant::now();
        let mut live = self.tags.locked();
        live.retain(|_, until| *until > now);
        let published = if live.is_empty() || tags.iter().any(|t| live.contains_key(t)) {
            for tag in tags {
                live.insert(tag.clone(), now + ttl);
            }
            Published::Accepted
        } else {
            Published::Disjoint(live.keys().cloned().collect())
        };
        Box::pin(std::future::ready(Ok(published)))
    }
}

impl<T: KeyringStore + ?Sized> KeyringStore for Arc<T> {
    fn publish<'a>(
        &'a self,
        tags: &'a [String],
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Published, StoreError>> {
        (**self).publish(tags, ttl)
    }
}
