//! [`InFlight`]: the requests of legacy sessions being handled now, by session and request id:
//! what `notifications/cancelled` stops, and what a reused request id is checked against.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::kernel::Locked as _;
use crate::protocol::RequestId;
use tokio::sync::Notify;

/// The session's key and the request id's text (the table and the running request each hold
/// the key).
type Key = (Arc<str>, IdText);

/// A request id's text, as the table keys it (an integer id and a string id with the same text
/// are the same request, as a cancellation passed between nodes names it): short text held
/// inline, longer text shared. An integer id's digits always fit, and a string id is already an
/// `Arc<str>`: neither allocates.
#[derive(Debug, Clone)]
pub(crate) enum IdText {
    Inline { len: u8, bytes: [u8; 20] },
    Shared(Arc<str>),
}

impl IdText {
    /// The text of `id`, as [`RequestId`]'s `Display` writes it.
    pub(crate) fn of(id: &RequestId) -> Self {
        match id {
            RequestId::Number(n) => Self::from_text(itoa::Buffer::new().format(*n)),
            RequestId::String(s) => Self::Shared(Arc::clone(s)),
        }
    }

    fn from_text(text: &str) -> Self {
        let mut bytes = [0; 20];
        match (bytes.get_mut(..text.len()), u8::try_from(text.len())) {
            (Some(head), Ok(len)) => {
                head.copy_from_slice(text.as_bytes());
                Self::Inline { len, bytes }
            }
            _ => Self::Shared(Arc::from(text)),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Self::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Self::Shared(text) => text.as_bytes(),
        }
    }
}

impl PartialEq for IdText {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for IdText {}

impl std::hash::Hash for IdText {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

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
    pub(crate) fn start(&self, session: Arc<str>, id: IdText) -> Option<Running<'_>> {
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
        match self.lock().get(&(session, IdText::from_text(id))) {
            Some(notify) => {
                notify.notify_one();
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{IdText, InFlight};
    use crate::protocol::RequestId;

    #[test]
    fn a_request_is_keyed_by_its_id_text_and_cancelled_by_it() {
        let inflight = InFlight::default();
        let session: Arc<str> = Arc::from("s");
        let long = "a string id longer than twenty bytes";
        let number = inflight.start(Arc::clone(&session), IdText::of(&RequestId::Number(-7)));
        let string = inflight.start(
            Arc::clone(&session),
            IdText::of(&RequestId::String(Arc::from(long))),
        );
        assert!(number.is_some() && string.is_some());
        // The same text is the same request, whatever the id's type.
        let again = RequestId::String(Arc::from("-7"));
        assert!(
            inflight
                .start(Arc::clone(&session), IdText::of(&again))
                .is_none()
        );
        assert!(inflight.cancel(Arc::clone(&session), "-7"));
        assert!(inflight.cancel(Arc::clone(&session), long));
        assert!(!inflight.cancel(Arc::clone(&session), "7"));
        drop(number);
        assert!(!inflight.cancel(session, "-7"), "unregistered when dropped");
    }
}
