//! [`InFlight`]: the requests of legacy sessions being handled now, by session and request id:
//! what `notifications/cancelled` stops, and what a reused request id is checked against.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::kernel::Locked as _;
use tokio::sync::Notify;

/// The session's key and the request id's text (both shared: the table and the running request
/// each hold the key, and a string id is already an `Arc<str>`).
type Key = (Arc<str>, Arc<str>);

/// Requests in flight on legacy sessions.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    requests: Mutex<HashMap<Key, Arc<Notify>, ahash::RandomState>>,
}

/// A request registered in flight; unregistered when dropped.
pub(crate) struct Running<'a> {
    inflight: &'a InFlight,
    key: Key,
    pub(crate) cancelled: Arc<Notify>,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.inflight.lock().remove(&self.key);
    }
}

impl InFlight {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Arc<Notify>, ahash::RandomState>> {
        self.requests.locked()
    }

    /// Registers request `id` of `session`; `None` when a request with that id is already in
    /// flight there.
    pub(crate) fn start(&self, session: Arc<str>, id: Arc<str>) -> Option<Running<'_>> {
        let cancelled = Arc::new(Notify::new());
        let mut requests = self.lock();
        match requests.entry((session, id)) {
            std::collections::hash_map::Entry::Occupied(_) => None,
            std::collections::hash_map::Entry::Vacant(slot) => {
                let key = slot.key().clone();
                slot.insert(Arc::clone(&cancelled));
                Some(Running {
                    inflight: self,
                    key,
                    cancelled,
                })
            }
        }
    }

    pub(crate) fn cancel(&self, session: Arc<str>, id: &str) -> bool {
        match self.lock().get(&(session, Arc::from(id))) {
            Some(notify) => {
                notify.notify_one();
                true
            }
            None => false,
        }
    }
}
