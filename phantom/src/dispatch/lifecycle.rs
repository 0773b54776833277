//! A node's life as an operator sees it: its `requestState` keyring checked against the other
//! nodes' and kept published, and the steps of its shutdown (drain, listens closed, tasks
//! finished).

use std::sync::Arc;

use super::{Dispatcher, Inner};
use crate::server::Server;

/// How long a node's key tags stay published without being published again.
const KEYRING_TTL: std::time::Duration = std::time::Duration::from_secs(30);

/// Publishes this node's key tags every third of [`KEYRING_TTL`] while its dispatcher lives; a
/// keyring the others no longer share is logged (the node keeps serving).
async fn renew_keyring<S: Server>(
    inner: std::sync::Weak<Inner<S>>,
    store: Arc<dyn crate::store::KeyringStore>,
) {
    let every = KEYRING_TTL / 3;
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        tick.tick().await;
        let Some(tags) = inner.upgrade().map(|inner| inner.config.state_key.tags()) else {
            return;
        };
        match store.publish(&tags, KEYRING_TTL).await {
            Ok(crate::store::Published::Accepted) => {}
            Ok(crate::store::Published::Disjoint(_)) => {
                tracing::error!(
                    "this node's `requestState` key no longer matches the other nodes' keys: their input rounds fail here"
                );
            }
            Err(error) => {
                tracing::debug!(%error, "this node's state key tags could not be published");
            }
        }
    }
}

impl<S: Server> Dispatcher<S> {
    /// Ends every `subscriptions/listen` stream open on this node (each gets
    /// `notifications/cancelled` and its final result): the server is shutting down.
    pub fn close_listens(&self) {
        self.inner.node.hub.close();
    }

    /// Compares this node's `requestState` keyring ([`Config::state_key`](crate::server::Config::state_key)) with the keys the
    /// other nodes sharing its backend hold ([`Config::keyring_store`](crate::server::Config::keyring_store); nothing to compare
    /// without one), and keeps this node's published while the dispatcher lives.
    ///
    /// A keyring that shares no key with the others is an `Err` saying what to set: every
    /// 2026-07-28 input round sealed on one node would fail on the other. A keyring that shares
    /// one is accepted, so [`StateKey::rotated_from`](crate::input::StateKey::rotated_from)
    /// rotates keys node by node. When the store cannot be reached the node starts unchecked
    /// (logged), as it serves requests that need nothing shared. `serve_dispatcher` calls it
    /// before it accepts; call it before serving a dispatcher otherwise (mounted in your own
    /// server, or over stdio).
    pub async fn check_state_key(&self) -> std::io::Result<()> {
        use crate::store::Published;
        let Some(store) = self.inner.config.keyring_store.clone() else {
            return Ok(());
        };
        let key = &self.inner.config.state_key;
        match store.publish(&key.tags(), KEYRING_TTL).await {
            Ok(Published::Accepted) => {}
            Ok(Published::Disjoint(others)) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "this node's `requestState` key (id {}) shares no key with the {} published by the nodes on this backend: a 2026-07-28 input round sealed on one node would fail on the other\n  help: give every node the key the others hold (`Config::with_state_key`; the examples read `PHANTOM_STATE_KEY`), or rotate node by node with `StateKey::rotated_from(old, grace)`; the key of nodes that all stopped stops counting 30 s after the last one",
                        key.id(),
                        others.len()
                    ),
                ));
            }
            Err(error) => {
                tracing::warn!(%error, "the other nodes' state keys could not be read; starting unchecked");
            }
        }
        if !self
            .inner
            .keyring_renewed
            .swap(true, std::sync::atomic::Ordering::AcqRel)
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(renew_keyring(Arc::downgrade(&self.inner), store));
        }
        Ok(())
    }

    /// Marks this node as shutting down: from now on its readiness probe answers `503`
    /// ([`http::probes`](crate::http::probes()), and `/readyz` on phantom's own listener), so that
    /// a load balancer sends it no new work; requests keep being served. The HTTP server calls
    /// it as its shutdown begins; an app that mounts phantom in its own server calls it when
    /// its own shutdown begins. It cannot be undone.
    pub fn drain(&self) {
        self.inner
            .node
            .draining
            .store(true, std::sync::atomic::Ordering::Release);
        crate::telemetry::metrics::draining(true);
    }

    /// The last step of a shutdown for the tasks running on this node: from the call on, the
    /// node starts no new task (a task-augmented `tools/call` is answered `-32603`, "send the
    /// call again"); it waits up to `within` for the running handlers to end; those still
    /// running then are stopped and stored `failed`, with a message saying the node shut down,
    /// and their leases released, so that every node reports them so at once. A node that is
    /// only [draining](Self::drain) starts tasks as it serves every request: a balancer may
    /// still send it some before it sees the readiness turn `503`. The HTTP server calls it with
    /// its grace period once the listener closed; an app that mounts phantom in its own server
    /// calls it when it stops accepting.
    pub async fn finish_tasks(&self, within: std::time::Duration) {
        crate::tasks::finish(self, within).await;
    }

    /// Whether a task's handler runs on this node (a task-augmented `tools/call` answered here
    /// whose handler has not ended).
    pub fn runs_tasks(&self) -> bool {
        crate::tasks::running(self)
    }

    /// Waits until no task's handler runs on this node; at once when none does. A host that
    /// must not leave handlers running after a request (a serverless function, frozen between
    /// invocations) waits for it before it ends the request, bounded by its own deadline, then
    /// calls [`fail_tasks`](Self::fail_tasks).
    pub async fn tasks_finished(&self) {
        crate::tasks::finished(self).await;
    }

    /// Stops every task handler running on this node and stores each of those tasks `failed`,
    /// its `statusMessage` and its error's message (`-32603`) both `reason` (say why: "the
    /// invocation ended before the task finished"), and their leases released, so that every
    /// node reports them so at once. Tasks still start here afterwards (unlike
    /// [`finish_tasks`](Self::finish_tasks)).
    pub async fn fail_tasks(&self, reason: &str) {
        crate::tasks::fail_all(self, reason).await;
    }

    /// Whether this node is shutting down ([`drain`](Self::drain)).
    pub fn draining(&self) -> bool {
        self.inner
            .node
            .draining
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// The flag [`drain`](Self::drain) sets, for the readiness probe.
    #[cfg(feature = "http")]
    pub(crate) fn drain_flag(&self) -> Arc<std::sync::atomic::AtomicBool> {
        Arc::clone(&self.inner.node.draining)
    }

    /// The streams open on this node that hear of changes (legacy GET streams, stdio, listens).
    #[cfg(feature = "http")]
    pub(crate) fn open_listeners(&self) -> usize {
        self.inner.node.hub.len()
    }
}
