//! Legacy-era HTTP sessions: rows in a sharded, bounded map with idle eviction. No task or channel
//! per session; a GET stream, while open, holds one sender in its row.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::kernel::Locked as _;
use crate::session::Session;

const SHARDS: usize = 16;

/// One session's row.
pub(crate) struct Row {
    pub(crate) session: Arc<Session>,
    last_seen: Instant,
    /// The open GET stream, if any: its generation, and a sender the stream watches: when the
    /// row drops it (the session deleted or evicted, another stream opened), the stream ends.
    pub(crate) stream: Option<(u64, oneshot::Sender<()>)>,
    /// The address of the peer that opened it (counted against a per-peer cap).
    peer: Option<IpAddr>,
    /// Requests of this session in flight.
    in_flight: usize,
    /// The revision of the shared record this row was made from (`0` without a session store).
    pub(crate) revision: u64,
}

impl Row {
    /// Idle rows are evicted: no open stream, no request in flight, not seen for `ttl`.
    fn idle(&self, now: Instant, ttl: Duration) -> bool {
        self.stream.is_none() && self.in_flight == 0 && now.duration_since(self.last_seen) > ttl
    }
}

/// Why a session could not be opened.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The table holds `max_sessions` live sessions.
    Full,
    /// The peer holds `max_sessions_per_peer` live sessions.
    PeerFull,
}

/// Why a session could not be used.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// No such session: never existed, terminated, or evicted (HTTP 404).
    Unknown,
}

/// One shard: its rows, and when an insert next sweeps it.
struct Shard {
    rows: HashMap<Arc<str>, Row, ahash::RandomState>,
    next_sweep: Instant,
}

/// The session table.
pub(crate) struct Sessions {
    shards: Vec<Mutex<Shard>>,
    count: AtomicU64,
    cap: usize,
    idle_ttl: Duration,
    /// How often an insert sweeps its shard: the background sweep's period.
    sweep_every: Duration,
    /// When the table was made: the epoch of `refusal_sweep`.
    created: Instant,
    /// When (ms after `created`) a refused insert may next sweep the whole table.
    refusal_sweep: AtomicU64,
    generation: AtomicU64,
    /// Ids evicted for idleness whose stored events the transport still has to drop.
    evicted: Mutex<Vec<Arc<str>>>,
    /// With a per-peer cap: the live sessions of each peer address.
    peers: Option<(usize, Mutex<HashMap<IpAddr, usize>>)>,
}

fn shard_of(id: &str) -> usize {
    // Ids are random, so their last byte spreads evenly.
    id.as_bytes().last().map_or(0, |b| usize::from(*b) % SHARDS)
}

/// A fresh session id: 256 random bits, base64url (visible ASCII).
pub(crate) fn new_session_id() -> Arc<str> {
    crate::kernel::random_id::<32>().into()
}

impl Sessions {
    pub(crate) fn new(cap: usize, idle_ttl: Duration, per_peer: Option<usize>) -> Self {
        let sweep_every = Self::sweep_period(idle_ttl);
        let first = Instant::now() + sweep_every;
        Self {
            shards: (0..SHARDS)
                .map(|_| {
                    Mutex::new(Shard {
                        rows: HashMap::default(),
                        next_sweep: first,
                    })
                })
                .collect(),
            count: AtomicU64::new(0),
            cap,
            idle_ttl,
            sweep_every,
            created: Instant::now(),
            refusal_sweep: AtomicU64::new(0),
            generation: AtomicU64::new(0),
            evicted: Mutex::new(Vec::new()),
            peers: per_peer.map(|max| (max, Mutex::new(HashMap::new()))),
        }
    }

    /// How often idle rows are swept: every half TTL, at least every second and at most every
    /// minute.
    pub(crate) fn sweep_period(idle_ttl: Duration) -> Duration {
        (idle_ttl / 2).clamp(Duration::from_secs(1), Duration::from_secs(60))
    }

    /// How often the background sweep runs ([`Sessions::sweep_period`] of the idle TTL).
    pub(crate) fn sweep_every(&self) -> Duration {
        self.sweep_every
    }

    fn peers(&self) -> Option<(usize, std::sync::MutexGuard<'_, HashMap<IpAddr, usize>>)> {
        let (max, peers) = self.peers.as_ref()?;
        Some((*max, peers.locked()))
    }

    /// Counts removed rows off their peers and the total; `idle` says why idle rows went
    /// (`expired` or `evicted`, for the metrics).
    fn forget_rows<'r>(&self, rows: impl IntoIterator<Item = &'r Row>, idle: Option<&'static str>) {
        let mut n = 0;
        let mut peers = self.peers();
        for row in rows {
            n += 1;
            if let (Some((_, peers)), Some(peer)) = (peers.as_mut(), row.peer)
                && let Some(count) = peers.get_mut(&peer)
            {
                *count -= 1;
                if *count == 0 {
                    peers.remove(&peer);
                }
            }
        }
        self.count.fetch_sub(n, Ordering::Relaxed);
        crate::telemetry::metrics::sessions_removed(n, idle);
    }

    fn shard(&self, id: &str) -> std::sync::MutexGuard<'_, Shard> {
        self.shards[shard_of(id)].locked()
    }

    /// Number of live sessions.
    pub(crate) fn len(&self) -> usize {
        usize::try_from(self.count.load(Ordering::Relaxed)).unwrap_or(usize::MAX)
    }

    /// Inserts a new session opened by `peer`; evicts idle rows first when the table is full.
    pub(crate) fn insert(&self, session: Session, peer: Option<IpAddr>) -> Result<(), Refused> {
        self.insert_at(session, peer, 0)?;
        crate::telemetry::metrics::session_created();
        Ok(())
    }

    /// Holds a session another node opened (read from the shared store at `revision`): replaces
    /// the session of its row if this node has one (keeping its stream), inserts a row otherwise.
    pub(crate) fn adopt(&self, session: Session, revision: u64) -> Result<Arc<Session>, Refused> {
        let Some(id) = session.id.clone() else {
            return Err(Refused::Full);
        };
        let session = Arc::new(session);
        let replaced = self.with_row(&id, |row| {
            row.session = Arc::clone(&session);
            row.revision = revision;
            row.last_seen = Instant::now();
        });
        if replaced.is_none() {
            self.insert_at(Session::clone(&session), None, revision)?;
        }
        Ok(session)
    }

    /// The revision of the shared record a row holds.
    pub(crate) fn revision(&self, id: &str) -> Option<u64> {
        self.with_row(id, |row| row.revision)
    }

    /// Records the revision a shared update moved the record to.
    pub(crate) fn set_revision(&self, id: &str, revision: u64) {
        self.with_row(id, |row| row.revision = revision);
    }

    fn insert_at(
        &self,
        session: Session,
        peer: Option<IpAddr>,
        revision: u64,
    ) -> Result<(), Refused> {
        let Some(id) = session.id.clone() else {
            return Err(Refused::Full);
        };
        if self.len() >= self.cap {
            self.sweep_when_refusing();
            if self.len() >= self.cap {
                return Err(Refused::Full);
            }
        }
        let peer = peer.filter(|_| self.peers.is_some());
        if let (Some((max, mut peers)), Some(addr)) = (self.peers(), peer) {
            let count = peers.entry(addr).or_insert(0);
            if *count >= max {
                drop(peers);
                // Idle rows of this peer may be holding the places.
                self.sweep_when_refusing();
                let (_, mut peers) = self.peers().expect("the cap is set");
                let count = peers.entry(addr).or_insert(0);
                if *count >= max {
                    return Err(Refused::PeerFull);
                }
                *count += 1;
            } else {
                *count += 1;
            }
        }
        let now = Instant::now();
        let row = Row {
            session: Arc::new(session),
            last_seen: now,
            stream: None,
            peer,
            in_flight: 0,
            revision,
        };
        let mut shard = self.shard(&id);
        // A shard is swept on insert at most once per sweep period, not on every insert: a
        // scan of every row per new session would make opening n sessions cost n² / 16.
        if now >= shard.next_sweep {
            shard.next_sweep = now + self.sweep_every;
            self.sweep_shard(&mut shard, "expired");
        }
        let replaced = shard.rows.insert(id, row);
        drop(shard);
        self.count.fetch_add(1, Ordering::Relaxed);
        crate::telemetry::metrics::session_held();
        if let Some(old) = replaced {
            self.forget_rows([&old], None);
        }
        Ok(())
    }

    /// Counts a request of session `id` in flight: `false` when it already has `max`.
    pub(crate) fn begin_request(&self, id: &str, max: usize) -> bool {
        self.with_row(id, |row| {
            let room = row.in_flight < max;
            row.in_flight += usize::from(room);
            room
        })
        .unwrap_or(true)
    }

    /// The end of a request counted by [`Sessions::begin_request`].
    pub(crate) fn end_request(&self, id: &str) {
        self.with_row(id, |row| {
            row.in_flight = row.in_flight.saturating_sub(1);
            row.last_seen = Instant::now();
        });
    }

    /// [`get`](Self::get) and [`begin_request`](Self::begin_request) in one lookup: the session,
    /// and whether the request was counted (`false`: `max` are in flight already).
    pub(crate) fn get_and_begin(
        &self,
        id: &str,
        max: usize,
    ) -> Result<(Arc<Session>, bool), Lookup> {
        {
            let mut shard = self.shard(id);
            let now = Instant::now();
            if let Some(row) = shard.rows.get_mut(id)
                && !row.idle(now, self.idle_ttl)
            {
                row.last_seen = now;
                let room = row.in_flight < max;
                row.in_flight += usize::from(room);
                return Ok((Arc::clone(&row.session), room));
            }
        }
        // Unknown, or idle past the TTL (evicted there).
        let session = self.get(id)?;
        Ok((session, self.begin_request(id, max)))
    }

    /// The session, touching its idle timer. Rows idle past the TTL are evicted here.
    pub(crate) fn get(&self, id: &str) -> Result<Arc<Session>, Lookup> {
        let mut shard = self.shard(id);
        let now = Instant::now();
        let expired = match shard.rows.get_mut(id) {
            None => return Err(Lookup::Unknown),
            Some(row) if row.idle(now, self.idle_ttl) => true,
            Some(row) => {
                row.last_seen = now;
                return Ok(Arc::clone(&row.session));
            }
        };
        if expired && let Some((key, row)) = shard.rows.remove_entry(id) {
            drop(shard);
            self.forget_rows([&row], Some("expired"));
            self.evicted_ids().push(key);
        }
        Err(Lookup::Unknown)
    }

    /// Replaces the session of a row (after `connect` or `logging/setLevel` changed it).
    pub(crate) fn update(&self, session: Arc<Session>) {
        let Some(id) = session.id.clone() else { return };
        if let Some(row) = self.shard(&id).rows.get_mut(&id) {
            row.session = session;
        }
    }

    /// Removes a session (DELETE or eviction). Returns it if it existed.
    pub(crate) fn remove(&self, id: &str) -> Option<Arc<Session>> {
        let row = self.shard(id).rows.remove(id)?;
        self.forget_rows([&row], None);
        Some(row.session)
    }

    /// Runs `f` on a row, if it exists.
    pub(crate) fn with_row<T>(&self, id: &str, f: impl FnOnce(&mut Row) -> T) -> Option<T> {
        self.shard(id).rows.get_mut(id).map(f)
    }

    /// Opens the session's GET stream: `None` if one is already open.
    pub(crate) fn open_stream(&self, id: &str, sender: oneshot::Sender<()>) -> Option<Option<u64>> {
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

    /// Ends every open GET stream (the server is shutting down): each row drops its stream's
    /// sender, which the stream watches.
    pub(crate) fn close_streams(&self) {
        for shard in &self.shards {
            for row in shard.locked().rows.values_mut() {
                if row.stream.take().is_some() {
                    row.last_seen = Instant::now();
                }
            }
        }
    }

    fn sweep_shard(&self, shard: &mut Shard, why: &'static str) {
        let now = Instant::now();
        let idle: Vec<Arc<str>> = shard
            .rows
            .iter()
            .filter(|(_, row)| row.idle(now, self.idle_ttl))
            .map(|(id, _)| Arc::clone(id))
            .collect();
        if idle.is_empty() {
            return;
        }
        let rows: Vec<Row> = idle.iter().filter_map(|id| shard.rows.remove(id)).collect();
        self.forget_rows(&rows, Some(why));
        self.evicted_ids().extend(idle);
    }

    fn evicted_ids(&self) -> std::sync::MutexGuard<'_, Vec<Arc<str>>> {
        self.evicted.locked()
    }

    /// The ids evicted for idleness since the last call (their stored events are to be dropped).
    pub(crate) fn take_evicted(&self) -> Vec<Arc<str>> {
        std::mem::take(&mut *self.evicted_ids())
    }

    /// Evicts every idle row before refusing a session, at most once a second: a client that
    /// keeps knocking on a full table must not make each knock scan every row under the locks.
    fn sweep_when_refusing(&self) {
        const EVERY_MS: u64 = 1000;
        let now = u64::try_from(self.created.elapsed().as_millis()).unwrap_or(u64::MAX);
        let due = self.refusal_sweep.load(Ordering::Relaxed);
        if now >= due
            && self
                .refusal_sweep
                .compare_exchange(due, now + EVERY_MS, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.sweep_all("evicted");
        }
    }

    /// Evicts every idle row.
    pub(crate) fn sweep(&self) {
        self.sweep_all("expired");
    }

    /// Evicts every idle row, counted as `why` (`expired`: their time ran out; `evicted`: to
    /// make room).
    fn sweep_all(&self, why: &'static str) {
        for shard in &self.shards {
            let mut shard = shard.locked();
            self.sweep_shard(&mut shard, why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ProtocolVersion;

    fn session() -> Session {
        Session::new(Some(new_session_id()), ProtocolVersion::LATEST_LEGACY)
    }

    #[test]
    fn a_full_table_is_swept_for_a_refused_session_at_most_once_a_second() {
        let table = Sessions::new(1, Duration::from_millis(50), None);
        table.insert(session(), None).expect("room for one");
        // Full, and the one row is not idle yet: the sweep finds nothing.
        assert!(matches!(table.insert(session(), None), Err(Refused::Full)));
        std::thread::sleep(Duration::from_millis(120));
        // The row is idle now, but the last refusal swept less than a second ago.
        assert!(matches!(table.insert(session(), None), Err(Refused::Full)));
        std::thread::sleep(Duration::from_millis(1000));
        table
            .insert(session(), None)
            .expect("a second later a refusal sweeps again and evicts the idle row");
        assert_eq!(table.len(), 1);
    }
}
