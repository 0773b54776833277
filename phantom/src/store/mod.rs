//! Storage traits shared by transports, with in-memory implementations.
//!
//! Every seam a node shares with the others is here, as a trait over serializable values with an
//! in-memory implementation (the default) and a contract suite
//! ([`testing::contract`](crate::testing::contract)): [`SessionStore`], [`EventStore`],
//! [`ReplyBus`], [`NotificationBus`], [`SubscriptionStore`], [`TaskStore`], [`RegistryStore`],
//! [`KeyringStore`] (which `requestState` keys the nodes hold), and the middleware's
//! [`RateStore`] and [`CacheStore`], and the authorization server's [`ClientStore`],
//! [`GrantStore`], [`RefreshStore`] and [`ConsentStore`]. The `phantom-redis` crate implements
//! every one before the authorization server's on Redis.

use crate::kernel::Locked as _;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::kernel::BoxFuture;
mod authz;
mod backend;
mod bus;
mod cache;
mod events;
mod keyring;
pub(crate) mod notifier;

mod rates;
mod registry;
mod sessions;
mod tasks;

pub use authz::{
    ClientStore, ConsentStore, GrantStore, MemoryClientStore, MemoryConsentStore, MemoryGrantStore,
    MemoryRefreshStore, RefreshStore, Rotated, USED_TOKENS,
};
pub use backend::Backend;
pub use bus::{
    BusEvent, Change, MemoryBus, MemorySubscriptions, NotificationBus, SubscriptionStore,
};
pub use cache::{CacheStore, Cached, MemoryCacheStore};
pub use events::{EventStore, MemoryEventStore, Replay, StoredEvent};
pub use keyring::{KeyringStore, MemoryKeyringStore, Published};
pub use rates::{Bucket, MemoryRateStore, RateStore};
pub use registry::{MemoryRegistryStore, RegistryStore};
pub use sessions::{MemorySessionStore, SessionRecord, SessionStore};
pub use tasks::{MemoryTaskStore, Owner, StoredTask, TaskStore, new_task_id};

/// An error of a networked store or bus (the in-memory ones fail only on invalid input): what
/// kind it is, so the runtime can answer it (an unavailable backend is HTTP 503), a message, and
/// the backend's own error when there is one.
#[derive(Debug, Clone, thiserror::Error)]
#[error("store error ({kind}): {message}")]
pub struct StoreError {
    kind: StoreErrorKind,
    message: String,
    #[source]
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

/// What went wrong in a store or bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StoreErrorKind {
    /// The backend cannot be reached now (a connection refused or lost, a timeout); retrying
    /// later may succeed.
    Unavailable,
    /// A compare-and-set lost: the record changed since it was read.
    Conflict,
    /// The record does not exist (or expired).
    NotFound,
    /// Anything else: invalid input, a value the backend refused, a bug.
    Other,
}

impl std::fmt::Display for StoreErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Unavailable => "unavailable",
            Self::Conflict => "conflict",
            Self::NotFound => "not found",
            Self::Other => "other",
        })
    }
}

impl StoreError {
    /// An error of this kind.
    pub fn new(kind: StoreErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// The backend's own error, kept as the [`source`](std::error::Error::source).
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// [`StoreErrorKind::Unavailable`].
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(StoreErrorKind::Unavailable, message)
    }

    /// [`StoreErrorKind::Conflict`].
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StoreErrorKind::Conflict, message)
    }

    /// [`StoreErrorKind::NotFound`].
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StoreErrorKind::NotFound, message)
    }

    /// [`StoreErrorKind::Other`].
    pub fn other(message: impl Into<String>) -> Self {
        Self::new(StoreErrorKind::Other, message)
    }

    /// What kind of error it is.
    pub fn kind(&self) -> StoreErrorKind {
        self.kind
    }

    /// The message, without the kind.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Equal when kind and message are (sources are not compared).
impl PartialEq for StoreError {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl Eq for StoreError {}

/// A client's answer to a server-to-client request: the JSON text of its `result` or `error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientAnswer {
    /// The `result` member.
    Result(String),
    /// The `error` member.
    Error(String),
}

/// What a waiting handler receives its answer on.
pub type Waiter = tokio::sync::oneshot::Receiver<ClientAnswer>;

/// Where server-to-client requests (elicitation, sampling, roots on 2025-11-25 sessions) wait
/// for the client's answer. The answer comes in a later POST that a load balancer may send to
/// another node, so a networked bus carries it (by session and request id, as text) to the node
/// whose handler waits.
pub trait ReplyBus: Send + Sync + 'static {
    /// Starts waiting for the answer to request `id` sent on `session`. The handler gives up
    /// after `deadline` (dropping the [`Waiter`]); a bus may forget the wait from then on (a
    /// networked one expires what it stored for it).
    fn expect<'a>(
        &'a self,
        session: &'a str,
        id: &'a str,
        deadline: Duration,
    ) -> BoxFuture<'a, Result<Waiter, StoreError>>;

    /// Delivers a client's answer: `Ok(true)` when a handler waited for it, `Ok(false)` when none
    /// does (an unknown id, an id of another session, an answer already given).
    fn deliver<'a>(
        &'a self,
        session: &'a str,
        id: &'a str,
        answer: ClientAnswer,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Stops waiting (the handler ended first).
    fn forget<'a>(&'a self, session: &'a str, id: &'a str) -> BoxFuture<'a, ()>;
}

/// The default [`ReplyBus`]: waiting handlers in process memory.
#[derive(Debug, Default)]
pub struct MemoryReplyBus {
    waiting: Mutex<HashMap<(String, String), tokio::sync::oneshot::Sender<ClientAnswer>>>,
}

impl MemoryReplyBus {
    /// An empty bus.
    pub fn new() -> Self {
        Self::default()
    }

    fn waiting(
        &self,
    ) -> std::sync::MutexGuard<
        '_,
        HashMap<(String, String), tokio::sync::oneshot::Sender<ClientAnswer>>,
    > {
        self.waiting.locked()
    }
}

impl ReplyBus for MemoryReplyBus {
    fn expect<'a>(
        &'a self,
        session: &'a str,
        id: &'a str,
        _deadline: Duration,
    ) -> BoxFuture<'a, Result<Waiter, StoreError>> {
        // A handler past its deadline drops its receiver: the sweep below removes its sender.
        let (tx, rx) = tokio::sync::oneshot::channel();
        let mut waiting = self.waiting();
        // Handlers that were dropped while waiting leave closed senders behind; sweep them.
        waiting.retain(|_, tx| !tx.is_closed());
        waiting.insert((session.to_owned(), id.to_owned()), tx);
        Box::pin(std::future::ready(Ok(rx)))
    }

    fn deliver<'a>(
        &'a self,
        session: &'a str,
        id: &'a str,
        answer: ClientAnswer,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let tx = self.waiting().remove(&(session.to_owned(), id.to_owned()));
        let delivered = tx.is_some_and(|tx| tx.send(answer).is_ok());
        Box::pin(std::future::ready(Ok(delivered)))
    }

    fn forget<'a>(&'a self, session: &'a str, id: &'a str) -> BoxFuture<'a, ()> {
        self.waiting().remove(&(session.to_owned(), id.to_owned()));
        Box::pin(std::future::ready(()))
    }
}

impl<T: ReplyBus + ?Sized> ReplyBus for Arc<T> {
    fn expect<'a>(
        &'a self,
        session: &'a str,
        id: &'a str,
        deadline: Duration,
    ) -> BoxFuture<'a, Result<Waiter, StoreError>> {
        (**self).expect(session, id, deadline)
    }

    fn deliver<'a>(
        &'a self,
        session: &'a str,
        id: &'a str,
        answer: ClientAnswer,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).deliver(session, id, answer)
    }

    fn forget<'a>(&'a self, session: &'a str, id: &'a str) -> BoxFuture<'a, ()> {
        (**self).forget(session, id)
    }
}
