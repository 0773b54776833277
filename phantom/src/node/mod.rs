//! What stays inside one process: the state of this node that no store or bus can hold, because
//! it is made of live handles — the streams open here, the legacy requests in flight here, the
//! server-to-client requests whose handlers wait here, and the tasks whose handlers run here.
//!
//! Everything else a request needs crosses a seam of [`store`](crate::store) as data, so that a
//! networked backend can share it between nodes; this room is what such a backend leaves alone.

mod inflight;

use std::sync::Arc;
use std::time::Duration;

pub(crate) use inflight::{IdText, InFlight};

use crate::input::Replies;
use crate::store::ReplyBus;
use crate::subscriptions::Hub;
use crate::tasks::Running;

/// The live state of one served instance on this node.
pub(crate) struct Node {
    /// Server-to-client requests waiting for the client's answers (2025-11-25).
    pub(crate) replies: Arc<Replies>,
    /// Requests in flight on legacy sessions: cancellation, duplicate ids.
    pub(crate) inflight: InFlight,
    /// The streams open on this node that hear of changes.
    pub(crate) hub: Hub,
    /// The tasks running on this node.
    pub(crate) running: Running,
    /// Set once this node began to shut down (`Dispatcher::drain`): its readiness answers 503.
    pub(crate) draining: Arc<std::sync::atomic::AtomicBool>,
}

impl Node {
    /// An empty node whose waiting requests hear their answers over `reply_bus`, for at most
    /// `reply_timeout` each.
    pub(crate) fn new(reply_bus: Arc<dyn ReplyBus>, reply_timeout: Duration) -> Self {
        Self {
            replies: Arc::new(Replies::new(reply_bus, reply_timeout)),
            inflight: InFlight::default(),
            hub: Hub::default(),
            running: Running::default(),
            draining: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        }
    }
}
