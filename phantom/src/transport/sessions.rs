//! Legacy-era HTTP sessions: rows in a sharded, bounded map with idle eviction. No task or channel
//! per session; a GET stream, while open, holds one sender in its row.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use bytes::Bytes;
use tokio::sync::mpsc;

use crate::server::Session;

const SHARDS: usize = 16;

/// One session's row.
pub(crate) struct Row {
    pub(crate) session: Arc<Session>,
    last_seen: Instant,
    /// The open GET stream, if any: its generation and a sender of SSE frames.
    pub(crate) stream: Option<(u64, mpsc::Sender<Bytes>)>,
    /// Next event sequence number on this session.
    pub(crate) next_event: u64,
}

/// Why a session could not be used.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// No such session: never existed, terminated, or evicted (HTTP 404).
    Unknown,
}

/// The session table.
pub(crate) struct Sessions {
    shards: Vec<Mutex<HashMap<Arc<str>, Row>>>,
    count: AtomicU64,
    cap: usize,
    idle_ttl: Duration,
    generation: AtomicU64,
    /// Ids evicted for idleness whose stored events the transport has not dropped yet.
    evicted: Mutex<Vec<Arc<str>>>,
}

fn shard_of(id: &str) -> usize {
    // Ids are random, so their last byte spreads evenly.
    id.as_bytes().last().map_or(0, |b| usize::from(*b) % SHARDS)
}

/// A fresh session id: 256 random bits, base64url (visible ASCII).
pub(crate) fn new_session_id() -> Arc<str> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(bytes)
        .into()
}

impl Sessions {
    pub(crate) fn new(cap: usize, idle_ttl: Duration) -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            count: AtomicU64::new(0),
            cap,
            idle_ttl,
            generation: AtomicU64::new(0),
            evicted: Mutex::new(Vec::new()),
        }
    }

    fn shard(&self, id: &str) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Row>> {
        self.shards[shard_of(id)]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Number of live sessions.
    pub(crate) fn len(&self) -> usize {
        usize::try_from(self.count.load(Ordering::Relaxed)).unwrap_or(usize::MAX)
    }

    /// Inserts a new session; evicts idle rows first when the table is full. `false` when the table
    /// is full of live sessions.
    pub(crate) fn insert(&self, session: Session) -> bool {
        let Some(id) = session.id.clone() else {
            return false;
        };
        if self.len() >= self.cap {
            self.sweep();
            if self.len() >= self.cap {
                return false;
            }
        }
        let row = Row {
            session: Arc::new(session),
            last_seen: Instant::now(),
            stream: None,
            next_event: 1,
        };
        let mut shard = self.shard(&id);
        self.sweep_shard(&mut shard);
        if shard.insert(id, row).is_none() {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
        true
    }

    /// The session, touching its idle timer. Rows idle past the TTL are evicted here.
    pub(crate) fn get(&self, id: &str) -> Result<Arc<Session>, Lookup> {
        let mut shard = self.shard(id);
        let now = Instant::now();
        let expired = match shard.get_mut(id) {
            None => return Err(Lookup::Unknown),
            Some(row)
                if row.stream.is_none() && now.duration_since(row.last_seen) > self.idle_ttl =>
            {
                true
            }
            Some(row) => {
                row.last_seen = now;
                return Ok(Arc::clone(&row.session));
            }
        };
        if expired && let Some((key, _)) = shard.remove_entry(id) {
            self.count.fetch_sub(1, Ordering::Relaxed);
            self.evicted_ids().push(key);
        }
        Err(Lookup::Unknown)
    }

    /// Replaces the session of a row (after `connect` or `logging/setLevel` changed it).
    pub(crate) fn update(&self, session: Arc<Session>) {
        let Some(id) = session.id.clone() else { return };
        if let Some(row) = self.shard(&id).get_mut(&id) {
            row.session = session;
        }
    }

    /// Removes a session (DELETE or eviction). Returns it if it existed.
    pub(crate) fn remove(&self, id: &str) -> Option<Arc<Session>> {
        let row = self.shard(id).remove(id)?;
        self.count.fetch_sub(1, Ordering::Relaxed);
        Some(row.session)
    }

    /// Runs `f` on a row, if it exists.
    pub(crate) fn with_row<T>(&self, id: &str, f: impl FnOnce(&mut Row) -> T) -> Option<T> {
        self.shard(id).get_mut(id).map(f)
    }

    /// Opens the session's GET stream: `None` if one is already open.
    pub(crate) fn open_stream(&self, id: &str, sender: mpsc::Sender<Bytes>) -> Option<Option<u64>> {
        self.with_row(id, |row| {
            if row.stream.as_ref().is_some_and(|(_, tx)| !tx.is_closed()) {
                return None;
            }
            let generation = self.generation.fetch_add(1, Ordering::Relaxed);
            row.stream = Some((generation, sender));
            Some(generation)
        })
    }

    /// Closes the GET stream if it is still the one with this generation.
    pub(crate) fn close_stream(&self, id: &str, generation: u64) {
        self.with_row(id, |row| {
            if row.stream.as_ref().is_some_and(|(g, _)| *g == generation) {
                row.stream = None;
                row.last_seen = Instant::now();
            }
        });
    }

    /// Allocates the next event sequence number of a session.
    pub(crate) fn next_event(&self, id: &str) -> Option<u64> {
        self.with_row(id, |row| {
            let n = row.next_event;
            row.next_event += 1;
            n
        })
    }

    fn sweep_shard(&self, shard: &mut HashMap<Arc<str>, Row>) {
        let now = Instant::now();
        let mut removed = Vec::new();
        shard.retain(|id, row| {
            let keep = row.stream.is_some() || now.duration_since(row.last_seen) <= self.idle_ttl;
            if !keep {
                removed.push(Arc::clone(id));
            }
            keep
        });
        if !removed.is_empty() {
            self.count
                .fetch_sub(removed.len() as u64, Ordering::Relaxed);
            self.evicted_ids().extend(removed);
        }
    }

    fn evicted_ids(&self) -> std::sync::MutexGuard<'_, Vec<Arc<str>>> {
        self.evicted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The ids evicted for idleness since the last call (their stored events are to be dropped).
    pub(crate) fn take_evicted(&self) -> Vec<Arc<str>> {
        std::mem::take(&mut *self.evicted_ids())
    }

    /// Evicts every idle row.
    pub(crate) fn sweep(&self) {
        for shard in &self.shards {
            let mut shard = shard
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            self.sweep_shard(&mut shard);
        }
    }
}
