//! The two seams of change: [`NotificationBus`] carries a [`Change`] to every node that serves
//! clients, and [`SubscriptionStore`] keeps which resources each legacy session subscribed to.
//! Both speak serializable values, so a networked backend can implement them; the in-memory
//! ones serve one process.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use futures_util::stream::BoxStream;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::StoreError;
use crate::kernel::BoxFuture;
use crate::kernel::Locked as _;

/// Something that changed, as published by a [`Notifier`](crate::Notifier) and delivered to
/// every open stream that may hear of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Change {
    /// The tool list changed: the tools named (empty: not said), for sessions' allow-lists.
    ToolsChanged {
        /// The tools added, removed or changed; empty when unknown.
        #[serde(default)]
        names: Vec<String>,
    },
    /// The prompt list changed.
    PromptsChanged {
        /// The prompts added, removed or changed; empty when unknown.
        #[serde(default)]
        names: Vec<String>,
    },
    /// The resource list changed.
    ResourcesChanged {
        /// The resource templates (by name) added, removed or changed; empty when unknown.
        #[serde(default)]
        names: Vec<String>,
    },
    /// These resources were updated: subscribers hear of each one they may see.
    ResourcesUpdated {
        /// The concrete URIs.
        uris: Vec<String>,
    },
    /// A 2025-11-25 URL elicitation's flow ended (`notifications/elicitation/complete`), for the
    /// one session that was asked.
    ElicitationComplete {
        /// The session's id.
        session: String,
        /// The `elicitationId` the request carried.
        elicitation_id: String,
    },
    /// A task changed (the Tasks extension): listens that follow it hear its new state
    /// (`notifications/tasks`), fetched again for each listen so revoked access applies at once.
    TaskUpdated {
        /// The task's id.
        task_id: String,
    },
    /// Answers to a running task's input requests (`tasks/update`) arrived on a node that is
    /// not running the task: the node that is hands them to the handler.
    TaskInput {
        /// The task's id.
        task_id: String,
        /// The `inputResponses`, by key.
        responses: serde_json::Map<String, serde_json::Value>,
    },
    /// A 2025-11-25 client cancelled a request (`notifications/cancelled`) on a node that is not
    /// handling it: the node that is stops it.
    RequestCancelled {
        /// The session's id.
        session: String,
        /// The cancelled request's JSON-RPC id, as text (`7`, `"abc"`).
        request_id: String,
    },
}

impl Change {
    /// The variant's wire tag (`tools_changed`, `resources_updated`, …), for logs.
    pub fn name(&self) -> &'static str {
        match self {
            Self::ToolsChanged { .. } => "tools_changed",
            Self::PromptsChanged { .. } => "prompts_changed",
            Self::ResourcesChanged { .. } => "resources_changed",
            Self::ResourcesUpdated { .. } => "resources_updated",
            Self::ElicitationComplete { .. } => "elicitation_complete",
            Self::TaskUpdated { .. } => "task_updated",
            Self::TaskInput { .. } => "task_input",
            Self::RequestCancelled { .. } => "request_cancelled",
        }
    }
}

/// What a subscription to a [`NotificationBus`] hears.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BusEvent {
    /// A change, published on this node or another.
    Change(Change),
    /// Changes may have been missed here (a connection to the bus was lost and is back, or this
    /// subscriber fell behind). A served router then tells every open stream that all its lists
    /// may have changed (`list_changed` of tools, prompts and resources).
    Gap,
}

/// Carries changes between the code that makes them and the nodes whose clients listen.
///
/// A change published reaches every subscriber at most once, in the order it was published
/// from one node; a subscriber that may have missed some hears [`BusEvent::Gap`] instead of
/// silence (a networked bus loses what is published while a node is disconnected).
pub trait NotificationBus: Send + Sync + 'static {
    /// Publishes a change to every subscriber (this node's included).
    fn publish<'a>(&'a self, change: &'a Change) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The changes published from now on, and the gaps. A served router subscribes once, the
    /// first time a client opens a stream (or has a request in flight, with a bus that is not
    /// in process).
    fn subscribe(&self) -> BoxStream<'static, BusEvent>;
}

/// The default [`NotificationBus`]: a broadcast channel in process memory.
#[derive(Debug)]
pub struct MemoryBus {
    tx: broadcast::Sender<Change>,
}

impl MemoryBus {
    /// Changes a slow subscriber may fall behind by before it skips some (and logs it).
    pub const CAPACITY: usize = 1024;

    /// A bus without subscribers.
    pub fn new() -> Self {
        Self {
            tx: broadcast::channel(Self::CAPACITY).0,
        }
    }
}

impl Default for MemoryBus {
    fn default() -> Self {
        Self::new()
    }
}

impl NotificationBus for MemoryBus {
    fn publish<'a>(&'a self, change: &'a Change) -> BoxFuture<'a, Result<(), StoreError>> {
        // No subscriber yet is not an error: nobody listens, so nobody misses it.
        let _ = self.tx.send(change.clone());
        Box::pin(std::future::ready(Ok(())))
    }

    fn subscribe(&self) -> BoxStream<'static, BusEvent> {
        let rx = self.tx.subscribe();
        Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
            match rx.recv().await {
                Ok(change) => Some((BusEvent::Change(change), rx)),
                Err(broadcast::error::RecvError::Lagged(skipped)) => {
                    tracing::warn!(skipped, "notification bus: changes skipped (slow fan-out)");
                    Some((BusEvent::Gap, rx))
                }
                Err(broadcast::error::RecvError::Closed) => None,
            }
        }))
    }
}

/// Which resources each legacy session subscribed to (`resources/subscribe`). The subscription
/// may arrive on one node and the session's stream be open on another, so it is stored, not
/// held by the stream.
pub trait SubscriptionStore: Send + Sync + 'static {
    /// Subscribes `session` to `uri` (again: no change).
    fn add<'a>(&'a self, session: &'a str, uri: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Unsubscribes; `Ok(false)` when it was not subscribed.
    fn remove<'a>(
        &'a self,
        session: &'a str,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Which of `uris` `session` is subscribed to, in their order.
    fn subscribed<'a>(
        &'a self,
        session: &'a str,
        uris: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<String>, StoreError>>;

    /// Forgets a session's subscriptions (DELETE, eviction).
    fn forget<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// For each of `sessions`, which of `uris` it is subscribed to, in one call: `uris.len()`
    /// flags per session, in the order of `sessions` (session `s`, URI `u` at
    /// `s * uris.len() + u`).
    ///
    /// A change reaches every legacy stream open on a node, so the node asks this once per
    /// change instead of [`subscribed`](Self::subscribed) once per stream. The provided
    /// implementation asks `subscribed` for each session in turn; a networked store answers
    /// it in one round trip.
    fn subscribed_each<'a>(
        &'a self,
        sessions: &'a [&'a str],
        uris: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<bool>, StoreError>> {
        Box::pin(async move {
            let mut flags = Vec::with_capacity(sessions.len() * uris.len());
            for session in sessions {
                let found = self.subscribed(session, uris).await?;
                flags.extend(uris.iter().map(|u| found.contains(u)));
            }
            Ok(flags)
        })
    }
}

/// The default [`SubscriptionStore`]: a set per session, in process memory.
#[derive(Debug, Default)]
pub struct MemorySubscriptions {
    /// aHash: a change is looked up in every session's set, once per stream it reaches.
    sessions: Mutex<HashMap<String, Uris, ahash::RandomState>>,
}

type Uris = HashSet<String, ahash::RandomState>;

impl MemorySubscriptions {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Uris, ahash::RandomState>> {
        self.sessions.locked()
    }
}

impl SubscriptionStore for MemorySubscriptions {
    fn add<'a>(&'a self, session: &'a str, uri: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.sessions()
            .entry(session.to_owned())
            .or_default()
            .insert(uri.to_owned());
        Box::pin(std::future::ready(Ok(())))
    }

    fn remove<'a>(
        &'a self,
        session: &'a str,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut sessions = self.sessions();
        let removed = sessions.get_mut(session).is_some_and(|set| set.remove(uri));
        if sessions.get(session).is_some_and(HashSet::is_empty) {
            sessions.remove(session);
        }
        Box::pin(std::future::ready(Ok(removed)))
    }

    fn subscribed<'a>(
        &'a self,
        session: &'a str,
        uris: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        let found = self.sessions().get(session).map_or_else(Vec::new, |set| {
            uris.iter().filter(|u| set.contains(*u)).cloned().collect()
        });
        Box::pin(std::future::ready(Ok(found)))
    }

    fn forget<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.sessions().remove(session);
        Box::pin(std::future::ready(Ok(())))
    }

    fn subscribed_each<'a>(
        &'a self,
        sessions: &'a [&'a str],
        uris: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<bool>, StoreError>> {
        let mut flags = Vec::with_capacity(sessions.len() * uris.len());
        let all = self.sessions();
        for session in sessions {
            match all.get(*session) {
                Some(set) => flags.extend(uris.iter().map(|u| set.contains(u))),
                None => flags.resize(flags.len() + uris.len(), false),
            }
        }
        drop(all);
        Box::pin(std::future::ready(Ok(flags)))
    }
}

impl<T: NotificationBus + ?Sized> NotificationBus for std::sync::Arc<T> {
    fn publish<'a>(&'a self, change: &'a Change) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).publish(change)
    }

    fn subscribe(&self) -> BoxStream<'static, BusEvent> {
        (**self).subscribe()
    }
}

impl<T: SubscriptionStore + ?Sized> SubscriptionStore for std::sync::Arc<T> {
    fn add<'a>(&'a self, session: &'a str, uri: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).add(session, uri)
    }

    fn remove<'a>(
        &'a self,
        session: &'a str,
        uri: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).remove(session, uri)
    }

    fn subscribed<'a>(
        &'a self,
        session: &'a str,
        uris: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        (**self).subscribed(session, uris)
    }

    fn forget<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).forget(session)
    }

    fn subscribed_each<'a>(
        &'a self,
        sessions: &'a [&'a str],
        uris: &'a [String],
    ) -> BoxFuture<'a, Result<Vec<bool>, StoreError>> {
        (**self).subscribed_each(sessions, uris)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_round_trip_as_json() {
        let change = Change::ResourcesUpdated {
            uris: vec!["test://a".into()],
        };
        let text = serde_json::to_string(&change).unwrap();
        assert_eq!(
            text,
            r#"{"change":"resources_updated","uris":["test://a"]}"#
        );
        assert_eq!(serde_json::from_str::<Change>(&text).unwrap(), change);
        let tools: Change = serde_json::from_str(r#"{"change":"tools_changed"}"#).unwrap();
        assert_eq!(tools, Change::ToolsChanged { names: vec![] });
    }

    #[tokio::test]
    async fn memory_subscriptions() {
        let store = MemorySubscriptions::new();
        store.add("s1", "test://a").await.unwrap();
        store.add("s1", "test://b").await.unwrap();
        let asked = [
            "test://b".to_owned(),
            "test://c".to_owned(),
            "test://a".to_owned(),
        ];
        assert_eq!(
            store.subscribed("s1", &asked).await.unwrap(),
            ["test://b", "test://a"]
        );
        assert!(store.subscribed("s2", &asked).await.unwrap().is_empty());
        assert!(store.remove("s1", "test://b").await.unwrap());
        assert!(!store.remove("s1", "test://b").await.unwrap());
        store.forget("s1").await.unwrap();
        assert!(store.subscribed("s1", &asked).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn memory_bus_delivers_in_order() {
        use futures_util::StreamExt as _;
        let bus = MemoryBus::new();
        let mut changes = bus.subscribe();
        for names in [vec![], vec!["a".to_owned()]] {
            bus.publish(&Change::ToolsChanged { names }).await.unwrap();
        }
        assert_eq!(
            changes.next().await,
            Some(BusEvent::Change(Change::ToolsChanged { names: vec![] }))
        );
        assert_eq!(
            changes.next().await,
            Some(BusEvent::Change(Change::ToolsChanged {
                names: vec!["a".into()]
            }))
        );
    }

    #[tokio::test]
    async fn a_subscriber_that_falls_behind_hears_a_gap() {
        use futures_util::StreamExt as _;
        let bus = MemoryBus::new();
        let mut changes = bus.subscribe();
        for _ in 0..=MemoryBus::CAPACITY {
            bus.publish(&Change::ToolsChanged { names: vec![] })
                .await
                .unwrap();
        }
        assert_eq!(changes.next().await, Some(BusEvent::Gap));
        assert!(matches!(changes.next().await, Some(BusEvent::Change(_))));
    }
}
