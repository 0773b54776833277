//! [`RedisEventStore`]: a session's SSE events in one Redis stream, so that a client resumes on
//! any node.

use std::time::Duration;

use futures_util::stream::BoxStream;
use phantom::BoxFuture;
use phantom::store::{EventStore, Replay, StoreError, StoredEvent};

use crate::Redis;

/// An [`EventStore`] in Redis: each session's events in one Redis stream,
/// `<prefix>{s:<id>}:events` (in the session's hash slot), capped near
/// [`RedisEventStore::PER_SESSION`] entries with `XADD MAXLEN ~`, and expiring with the session:
/// [`RedisSessionStore`](crate::RedisSessionStore) restarts its TTL with the session's own, and
/// each append sets it to [`RedisEventStore::with_ttl`]'s.
///
/// An event id is `<stream>.<entry id>`, the entry id being the one Redis gave it: unique and
/// ordered within the session whichever node appended it. [`EventStore::follow`] reads the
/// entries after the last one it returned, every 20 ms while it waits (a resumed stream is
/// short-lived: phantom stops it at the request's response).
#[derive(Debug, Clone)]
pub struct RedisEventStore {
    redis: Redis,
    ttl: Duration,
}

/// How long `follow` waits between reads while nothing new is stored.
const FOLLOW_EVERY: Duration = Duration::from_millis(20);

type Entries = Vec<(String, Vec<(String, String)>)>;

impl RedisEventStore {
    /// Entries kept per session (approximately: Redis trims whole nodes of its stream).
    pub const PER_SESSION: usize = 1024;

    /// The TTL a session's events get on append unless [`RedisEventStore::with_ttl`] says
    /// otherwise: phantom's default session idle TTL.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(30 * 60);

    /// Events through `redis`.
    pub fn new(redis: Redis) -> Self {
        Self {
            redis,
            ttl: Self::DEFAULT_TTL,
        }
    }

    /// The TTL of a session's events after an append (use the session idle TTL).
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The key of a session's stream.
    pub fn key(&self, session: &str) -> String {
        crate::sessions::events_key(self.redis.prefix(), session)
    }
}

/// `(stream, entry id)` of an event id; `None` when it is not one of ours.
fn split(id: &str) -> Option<(&str, &str)> {
    let (stream, entry) = id.split_once('.')?;
    let (ms, seq) = entry.split_once('-')?;
    (!stream.is_empty()
        && ms.bytes().all(|b| b.is_ascii_digit())
        && seq.bytes().all(|b| b.is_ascii_digit())
        && !ms.is_empty()
        && !seq.is_empty())
    .then_some((stream, entry))
}

/// The events of `stream` among `entries`.
fn of_stream(entries: Entries, stream: &str) -> Vec<StoredEvent> {
    entries
        .into_iter()
        .filter_map(|(entry, fields)| {
            let mut name = None;
            let mut data = None;
            for (k, v) in fields {
                match k.as_str() {
                    "stream" => name = Some(v),
                    "data" => data = Some(v),
                    _ => {}
                }
            }
            (name.as_deref() == Some(stream)).then(|| StoredEvent {
                id: format!("{stream}.{entry}"),
                data: data.unwrap_or_default(),
            })
        })
        .collect()
}

impl EventStore for RedisEventStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        data: &'a str,
    ) -> BoxFuture<'a, Result<String, StoreError>> {
        Box::pin(async move {
            let key = self.key(session);
            let ms = u64::try_from(self.ttl.as_millis())
                .unwrap_or(u64::MAX)
                .max(1);
            let mut pipe = redis::pipe();
            pipe.atomic()
                .cmd("XADD")
                .arg(&key)
                .arg("MAXLEN")
                .arg("~")
                .arg(Self::PER_SESSION)
                .arg("*")
                .arg("stream")
                .arg(stream)
                .arg("data")
                .arg(data)
                .cmd("PEXPIRE")
                .arg(&key)
                .arg(ms)
                .ignore();
            let (entry,): (String,) = self.redis.pipeline(&pipe).await?;
            Ok(format!("{stream}.{entry}"))
        })
    }

    fn replay<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Replay>, StoreError>> {
        Box::pin(async move {
            let Some((stream, entry)) = split(last_event_id) else {
                return Ok(None);
            };
            let entries: Entries = self
                .redis
                .query(
                    redis::cmd("XRANGE")
                        .arg(self.key(session))
                        .arg(entry)
                        .arg("+"),
                )
                .await?;
            // The named entry must still be there, and be of the stream its id names.
            let named = entries.first().is_some_and(|(id, fields)| {
                id == entry && fields.iter().any(|(k, v)| k == "stream" && v == stream)
            });
            if !named {
                return Ok(None);
            }
            Ok(Some((stream.to_owned(), of_stream(entries, stream))))
        })
    }

    fn follow(
        &self,
        session: &str,
        stream: &str,
        last_event_id: &str,
    ) -> BoxStream<'static, Result<StoredEvent, StoreError>> {
        struct Follow {
            store: RedisEventStore,
            key: String,
            stream: String,
            entry: Option<String>,
            pending: std::collections::VecDeque<StoredEvent>,
        }
        let entry = split(last_event_id).map(|(_, e)| e.to_owned());
        let state = Follow {
            key: self.key(session),
            store: self.clone(),
            stream: stream.to_owned(),
            entry,
            pending: std::collections::VecDeque::new(),
        };
        Box::pin(futures_util::stream::unfold(state, |mut f| async move {
            loop {
                if let Some(event) = f.pending.pop_front() {
                    return Some((Ok(event), f));
                }
                let entry = f.entry.clone()?;
                let read: Result<Entries, StoreError> = f
                    .store
                    .redis
                    .query(
                        redis::cmd("XRANGE")
                            .arg(&f.key)
                            .arg(format!("({entry}"))
                            .arg("+")
                            .arg("COUNT")
                            .arg(256),
                    )
                    .await;
                match read {
                    Err(e) => {
                        f.entry = None;
                        return Some((Err(e), f));
                    }
                    Ok(entries) if entries.is_empty() => {
                        tokio::time::sleep(FOLLOW_EVERY).await;
                    }
                    Ok(entries) => {
                        if let Some((last, _)) = entries.last() {
                            f.entry = Some(last.clone());
                        }
                        f.pending.extend(of_stream(entries, &f.stream));
                    }
                }
            }
        }))
    }

    fn forget<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.redis
                .query::<u64>(redis::cmd("DEL").arg(self.key(session)))
                .await
                .map(|_| ())
        })
    }
}
