//! The event seam: the SSE events of legacy sessions, kept so that a client whose stream broke
//! resumes it with `Last-Event-ID` on any node.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering, fence};
use std::sync::{Arc, Mutex};

use futures_util::stream::BoxStream;
use tokio::sync::Notify;

use super::StoreError;
use crate::kernel::BoxFuture;
use crate::kernel::Locked as _;

/// One stored SSE event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// The SSE `id` the store issued: unique in its session, whichever node appended it.
    pub id: String,
    /// The JSON-RPC message text (empty for a stream's priming event).
    pub data: String,
}

/// What [`EventStore::replay`] finds: the stream's name and its events from the named one on.
pub type Replay = (String, Vec<StoredEvent>);

/// Where SSE events live until a client may need them again.
///
/// A session has several streams (its GET stream, one per resumable POST), each named by the
/// transport. The store issues every event's id, so two nodes appending to one session cannot
/// issue the same one, and from an id it knows the stream: [`EventStore::replay`] returns what
/// followed on that stream, and [`EventStore::follow`] goes on with what is appended next — by
/// whichever node runs the request. Events are bounded per session and expire with it.
///
/// Any implementation runs the contract suite,
/// [`testing::contract::event_store`](crate::testing::contract::event_store).
pub trait EventStore: Send + Sync + 'static {
    /// Stores an event of `stream` in `session`: its id.
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        data: &'a str,
    ) -> BoxFuture<'a, Result<String, StoreError>>;

    /// The stream `last_event_id` belongs to and that stream's events from it on: the named
    /// event first (so the caller sees whether it ended its stream), then those after it;
    /// `None` when the id is unknown (never issued, of another session, or already dropped).
    fn replay<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Replay>, StoreError>>;

    /// The events of `stream` after `last_event_id`, as they are appended, until the caller
    /// drops the stream (the transport stops at the request's response, or after a while). An
    /// error ends it.
    fn follow(
        &self,
        session: &str,
        stream: &str,
        last_event_id: &str,
    ) -> BoxStream<'static, Result<StoredEvent, StoreError>>;

    /// Forgets a session's events (DELETE, eviction).
    fn forget<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;
}

impl<T: EventStore + ?Sized> EventStore for Arc<T> {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        data: &'a str,
    ) -> BoxFuture<'a, Result<String, StoreError>> {
        (**self).append(session, stream, data)
    }

    fn replay<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Replay>, StoreError>> {
        (**self).replay(session, last_event_id)
    }

    fn follow(
        &self,
        session: &str,
        stream: &str,
        last_event_id: &str,
    ) -> BoxStream<'static, Result<StoredEvent, StoreError>> {
        (**self).follow(session, stream, last_event_id)
    }

    fn forget<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).forget(session)
    }
}

/// One session's events: the last [`MemoryEventStore::PER_SESSION`], with their streams.
#[derive(Debug, Default)]
struct Log {
    events: VecDeque<Kept>,
}

/// One stored event: its id is `<stream>.<n>`, written when it is read (a [`StoredEvent`]).
#[derive(Debug)]
struct Kept {
    /// Shared by the events of one stream (and of one fan-out, see [`Logs::name`]).
    stream: Arc<str>,
    n: u64,
    data: Box<str>,
}

impl Kept {
    fn id(&self) -> String {
        event_id(&self.stream, self.n)
    }

    fn stored(&self) -> StoredEvent {
        StoredEvent {
            id: self.id(),
            data: self.data.to_string(),
        }
    }
}

/// `<stream>.<n>`.
fn event_id(stream: &str, n: u64) -> String {
    let mut digits = itoa::Buffer::new();
    let n = digits.format(n);
    let mut id = String::with_capacity(stream.len() + 1 + n.len());
    id.push_str(stream);
    id.push('.');
    id.push_str(n);
    id
}

#[derive(Debug, Default)]
struct Logs {
    sessions: HashMap<String, Log, ahash::RandomState>,
    /// The stream name of the last event appended, in any session: a change heard by every
    /// session's GET stream names the same stream in each, so their events share one name
    /// (which stays in the cache) instead of each log's own.
    name: Option<Arc<str>>,
}

#[derive(Debug, Default)]
struct Shared {
    logs: Mutex<Logs>,
    /// The last sequence number issued, in any session.
    issued: AtomicU64,
    appended: Notify,
    /// Open [`EventStore::follow`] streams: an append wakes followers only when there are
    /// some (the fan-out of a change appends to every session's GET stream, which nobody
    /// follows).
    followers: AtomicUsize,
}

/// Counts one follower while it lives.
struct Following(Arc<Shared>);

impl Following {
    fn new(shared: &Arc<Shared>) -> Self {
        shared.followers.fetch_add(1, Ordering::SeqCst);
        // Paired with the fence in `append`: either the append sees this follower and wakes
        // it, or the follower's first read of the log (after this) sees the appended event.
        fence(Ordering::SeqCst);
        Self(Arc::clone(shared))
    }
}

impl Drop for Following {
    fn drop(&mut self) {
        self.0.followers.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Shared {
    /// The events of `from`'s stream in `session`, `from` first: `None` when `from` is unknown.
    fn from(&self, session: &str, from: &str) -> Option<Replay> {
        let logs = self.logs.locked();
        let log = logs.sessions.get(session)?;
        let (stream, n) = from.rsplit_once('.')?;
        let n: u64 = n.parse().ok()?;
        let at = log
            .events
            .iter()
            .position(|e| e.n == n && *e.stream == *stream)?;
        let first = &log.events[at];
        if first.id() != from {
            // The number written otherwise (`g.007`): not an id this store issued.
            return None;
        }
        let events = log
            .events
            .iter()
            .skip(at)
            .filter(|e| e.stream == first.stream)
            .map(Kept::stored)
            .collect();
        Some((first.stream.to_string(), events))
    }
}

/// The default [`EventStore`]: a bounded buffer per session, in process memory. Ids are
/// `<stream>.<n>`, `n` counting the store's events.
#[derive(Debug, Default)]
pub struct MemoryEventStore {
    shared: Arc<Shared>,
}

impl MemoryEventStore {
    /// Events kept per session.
    pub const PER_SESSION: usize = 256;

    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl EventStore for MemoryEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        data: &'a str,
    ) -> BoxFuture<'a, Result<String, StoreError>> {
        let id = {
            let mut logs = self.shared.logs.locked();
            let Logs { sessions, name } = &mut *logs;
            // The session's key is copied once, when its first event comes.
            if !sessions.contains_key(session) {
                sessions.insert(session.to_owned(), Log::default());
            }
            let Some(log) = sessions.get_mut(session) else {
                unreachable!("the session's log was inserted above")
            };
            if log.events.len() == Self::PER_SESSION {
                log.events.pop_front();
            }
            let n = self.shared.issued.fetch_add(1, Ordering::Relaxed) + 1;
            // A stream's events come one after another: the name is copied once per stream.
            let shared = match (&*name, log.events.back()) {
                (Some(last), _) if **last == *stream => Arc::clone(last),
                (_, Some(last)) if *last.stream == *stream => Arc::clone(&last.stream),
                _ => Arc::from(stream),
            };
            *name = Some(Arc::clone(&shared));
            log.events.push_back(Kept {
                stream: shared,
                n,
                data: data.into(),
            });
            event_id(stream, n)
        };
        fence(Ordering::SeqCst);
        if self.shared.followers.load(Ordering::Relaxed) > 0 {
            self.shared.appended.notify_waiters();
        }
        Box::pin(std::future::ready(Ok(id)))
    }

    fn replay<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Replay>, StoreError>> {
        Box::pin(std::future::ready(Ok(self
            .shared
            .from(session, last_event_id))))
    }

    fn follow(
        &self,
        session: &str,
        stream: &str,
        last_event_id: &str,
    ) -> BoxStream<'static, Result<StoredEvent, StoreError>> {
        struct Follow {
            shared: Following,
            session: String,
            stream: String,
            last: String,
            pending: VecDeque<StoredEvent>,
            done: bool,
        }
        let state = Follow {
            shared: Following::new(&self.shared),
            session: session.to_owned(),
            stream: stream.to_owned(),
            last: last_event_id.to_owned(),
            pending: VecDeque::new(),
            done: false,
        };
        Box::pin(futures_util::stream::unfold(state, |mut f| async move {
            loop {
                if f.done {
                    return None;
                }
                if let Some(event) = f.pending.pop_front() {
                    f.last.clone_from(&event.id);
                    return Some((Ok(event), f));
                }
                let shared = Arc::clone(&f.shared.0);
                let appended = shared.appended.notified();
                tokio::pin!(appended);
                appended.as_mut().enable();
                match shared.from(&f.session, &f.last) {
                    Some((stream, events)) if stream == f.stream => {
                        if events.len() <= 1 {
                            appended.await;
                        } else {
                            f.pending.extend(events.into_iter().skip(1));
                        }
                    }
                    // The id dropped out of the buffer (or the session was forgotten).
                    _ => {
                        f.done = true;
                        return Some((
                            Err(StoreError::not_found(format!(
                                "event {} is no longer stored",
                                f.last
                            ))),
                            f,
                        ));
                    }
                }
            }
        }))
    }

    fn forget<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.shared.logs.locked().sessions.remove(session);
        self.shared.appended.notify_waiters();
        Box::pin(std::future::ready(Ok(())))
    }
}

#[cfg(test)]
mod tests {
    use super::{EventStore as _, MemoryEventStore};

    #[tokio::test]
    async fn only_an_id_as_the_store_wrote_it_is_found() {
        let store = MemoryEventStore::new();
        let first = store.append("s", "p.1", "one").await.expect("append");
        let second = store.append("s", "p.1", "two").await.expect("append");
        assert_eq!(
            first, "p.1.1",
            "<stream>.<n>, whatever the stream's name holds"
        );
        let (stream, events) = store
            .replay("s", &first)
            .await
            .expect("replay")
            .expect("a known id");
        assert_eq!(stream, "p.1");
        let read: Vec<(&str, &str)> = events
            .iter()
            .map(|e| (e.id.as_str(), e.data.as_str()))
            .collect();
        assert_eq!(read, [(first.as_str(), "one"), (second.as_str(), "two")]);
        for unknown in [
            "p.1.01",
            "p.1.+1",
            "p.2.1",
            "p.1",
            "1",
            "",
            "p.1.18446744073709551616",
        ] {
            assert_eq!(
                store.replay("s", unknown).await.expect("replay"),
                None,
                "{unknown:?} was not issued"
            );
        }
        assert_eq!(
            store.replay("t", &first).await.expect("replay"),
            None,
            "another session's id"
        );
    }
}
