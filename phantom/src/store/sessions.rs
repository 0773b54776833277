//! The session seam: what a legacy (2025-11-25) session is across nodes, as a serializable record.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::StoreError;
use crate::kernel::BoxFuture;
use crate::kernel::Locked as _;
use crate::protocol::time::now_ms;
use crate::protocol::{Implementation, LogLevel};

/// What every node must know of a legacy session: the part that outlives one request.
///
/// `connect` runs on every request, so what it sets for the request alone — `assigns`, the
/// allow-lists, the verified token — is not here; the principal it set when the session opened
/// is, because a session stays bound to it on every node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionRecord {
    /// The `Mcp-Session-Id`.
    pub id: String,
    /// The principal `connect` set when the session opened; a request of another principal gets
    /// 404 on every node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// What the client said about itself in `initialize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// The client's declared capabilities.
    #[serde(default)]
    pub client_capabilities: Value,
    /// The negotiated protocol version, as on the wire (`"2025-11-25"`).
    pub protocol_version: String,
    /// The level `logging/setLevel` chose; `None` until it is called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LogLevel>,
    /// When the session opened, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When a request of the session last changed the record, in milliseconds since the Unix
    /// epoch (a request that only uses the session restarts its idle timer with
    /// [`SessionStore::touch`] and leaves this alone).
    pub updated_ms: u64,
    /// Counts the record's updates: [`SessionStore::update`] succeeds only on the revision it was
    /// read at, and the store sets the next one. `0` for a record the store has never held.
    pub revision: u64,
}

impl SessionRecord {
    /// A record of a session opening now, at revision 0.
    pub fn new(id: impl Into<String>, protocol_version: impl Into<String>) -> Self {
        let now = now_ms();
        Self {
            id: id.into(),
            principal: None,
            client_info: None,
            client_capabilities: Value::Object(serde_json::Map::new()),
            protocol_version: protocol_version.into(),
            log_level: None,
            created_ms: now,
            updated_ms: now,
            revision: 0,
        }
    }

    /// The same record bound to `principal`.
    #[must_use]
    pub fn with_principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(principal.into());
        self
    }
}

/// Where legacy sessions live so that every node behind a load balancer can answer them.
///
/// Every method is fallible: a networked store that cannot be reached answers
/// [`StoreErrorKind::Unavailable`](super::StoreErrorKind::Unavailable), which the HTTP transport
/// turns into `503` with `Retry-After`. The store keeps the idle timer: a record not created,
/// read, touched or updated for `ttl` is gone (and its id answers 404 on every node).
///
/// Any implementation runs the contract suite,
/// [`testing::contract::session_store`](crate::testing::contract::session_store).
pub trait SessionStore: Send + Sync + 'static {
    /// Stores a new record (its `revision` is ignored; the stored one is 1), expiring after `ttl`
    /// unless used. A [`Conflict`](super::StoreErrorKind::Conflict) when the id exists.
    fn create<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The record, its idle timer restarted; `None` when there is none (never created, deleted
    /// or expired).
    fn get<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>>;

    /// Restarts the idle timer: the current revision, or `None` when the record is gone. One
    /// round trip per request on a session a node already holds; a revision that moved tells the
    /// node to [`get`](SessionStore::get) the record again.
    fn touch<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>>;

    /// Replaces the record if it is still at `record.revision` (compare-and-set): the new
    /// revision. A [`Conflict`](super::StoreErrorKind::Conflict) when another update came first,
    /// [`NotFound`](super::StoreErrorKind::NotFound) when the record is gone.
    fn update<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<u64, StoreError>>;

    /// Removes the record: whether it existed.
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
}

impl<T: SessionStore + ?Sized> SessionStore for std::sync::Arc<T> {
    fn create<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).create(record, ttl)
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        (**self).get(id, ttl)
    }

    fn touch<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        (**self).touch(id, ttl)
    }

    fn update<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<u64, StoreError>> {
        (**self).update(record, ttl)
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).delete(id)
    }
}

/// A [`SessionStore`] in process memory: the reference the contract suite is written against,
/// and a store for several HTTP endpoints of one process. Expired records are dropped when they
/// are next looked at and, at most once per `ttl`, by a sweep on create.
#[derive(Debug, Default)]
pub struct MemorySessionStore {
    rows: Mutex<Rows>,
}

#[derive(Debug, Default)]
struct Rows {
    records: HashMap<String, (SessionRecord, Instant)>,
    next_sweep: Option<Instant>,
}

impl Rows {
    /// The live record of `id`, dropping it when it has expired.
    fn live(&mut self, id: &str, now: Instant) -> Option<&mut (SessionRecord, Instant)> {
        if self.records.get(id).is_some_and(|(_, until)| *until <= now) {
            self.records.remove(id);
        }
        self.records.get_mut(id)
    }
}

fn zero_ttl() -> StoreError {
    StoreError::other("a session's idle TTL must be longer than zero")
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records held, counting expired ones the store has still to drop.
    pub fn len(&self) -> usize {
        self.rows.locked().records.len()
    }

    /// Whether it holds no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl SessionStore for MemorySessionStore {
    fn create<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let result = (|| {
            if ttl.is_zero() {
                return Err(zero_ttl());
            }
            let now = Instant::now();
            let mut rows = self.rows.locked();
            if rows.next_sweep.is_none_or(|at| at <= now) {
                rows.records.retain(|_, (_, until)| *until > now);
                rows.next_sweep = Some(now + ttl);
            }
            if rows.live(&record.id, now).is_some() {
                return Err(StoreError::conflict(format!(
                    "session {} exists already",
                    record.id
                )));
            }
            let mut stored = record.clone();
            stored.revision = 1;
            rows.records.insert(stored.id.clone(), (stored, now + ttl));
            Ok(())
        })();
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        let now = Instant::now();
        let found = self.rows.locked().live(id, now).map(|(record, until)| {
            *until = now + ttl;
            record.clone()
        });
        Box::pin(std::future::ready(Ok(found)))
    }

    fn touch<'a>(
        &'a self,
        id: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        let now = Instant::now();
        let found = self.rows.locked().live(id, now).map(|(record, until)| {
            *until = now + ttl;
            record.revision
        });
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update<'a>(
        &'a self,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<u64, StoreError>> {
        let result = (|| {
            if ttl.is_zero() {
                return Err(zero_ttl());
            }
            let now = Instant::now();
            let mut rows = self.rows.locked();
            let Some((stored, until)) = rows.live(&record.id, now) else {
                return Err(StoreError::not_found(format!(
                    "session {} is gone",
                    record.id
                )));
            };
            if stored.revision != record.revision {
                return Err(StoreError::conflict(format!(
                    "session {} is at revision {}, not {}",
                    record.id, stored.revision, record.revision
                )));
            }
            *stored = record.clone();
            stored.revision = record.revision + 1;
            *until = now + ttl;
            Ok(stored.revision)
        })();
        Box::pin(std::future::ready(result))
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let now = Instant::now();
        let mut rows = self.rows.locked();
        let existed = rows.live(id, now).is_some();
        rows.records.remove(id);
        Box::pin(std::future::ready(Ok(existed)))
    }
}
