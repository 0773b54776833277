//! [`Replies`]: server-to-client requests waiting for the client's answers (2025-11-25 and
//! earlier), over the configured [`ReplyBus`](crate::store::ReplyBus).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

pub(crate) use crate::store::ClientAnswer;
use crate::store::{ReplyBus, StoreError, Waiter};

/// The dispatcher's side of the reply bus: request ids and the bus itself.
pub(crate) struct Replies {
    bus: Arc<dyn ReplyBus>,
    prefix: String,
    counter: AtomicU64,
    timeout: Duration,
}

impl std::fmt::Debug for Replies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replies")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Replies {
    pub(crate) fn new(bus: Arc<dyn ReplyBus>, timeout: Duration) -> Self {
        let prefix = crate::kernel::random_id::<6>();
        Self {
            bus,
            prefix: format!("phantom-{prefix}"),
            counter: AtomicU64::new(1),
            timeout,
        }
    }

    /// How long a handler waits for one answer ([`Config::reply_timeout`](crate::Config)).
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// A request id no other request of this process (or, by its random prefix, of another node)
    /// has.
    pub(crate) fn next_id(&self) -> String {
        super::exchange::next_request_id(&self.prefix, &self.counter)
    }

    pub(crate) async fn expect(&self, session: &str, id: &str) -> Result<Waiter, StoreError> {
        self.bus.expect(session, id, self.timeout).await
    }

    pub(crate) async fn forget(&self, session: &str, id: &str) {
        self.bus.forget(session, id).await;
    }

    /// Hands a client's answer to the handler waiting for it; `false` when none waits on this
    /// session for this id.
    pub(crate) async fn deliver(&self, session: &str, id: &str, answer: ClientAnswer) -> bool {
        match self.bus.deliver(session, id, answer).await {
            Ok(delivered) => delivered,
            Err(e) => {
                crate::telemetry::metrics::store_error("replies");
                tracing::warn!(error = %e, "could not deliver a client answer");
                false
            }
        }
    }
}
