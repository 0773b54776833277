//! [`SessionSlot`]: where a transport hands a legacy session to the dispatcher and gets it back.

use std::sync::Arc;

use super::Session;

/// A transport's legacy-era session slot: empty until `initialize` fills it. The dispatcher marks
/// it changed whenever it hands the session out for writing, so a transport stores every change.
#[derive(Debug, Default)]
pub struct SessionSlot {
    session: Option<Session>,
    changed: bool,
    /// The id `initialize` gives the session it opens (the transport chose it).
    pub(crate) id: Option<Arc<str>>,
    /// Legacy stateless mode: no session outlives its request.
    pub(crate) stateless: bool,
}

impl SessionSlot {
    /// A slot holding `session` (or none yet), unchanged.
    pub fn new(session: Option<Session>) -> Self {
        Self {
            session,
            ..Self::default()
        }
    }

    /// An empty slot whose `initialize` opens a session with this id, so `connect` sees the id.
    pub fn opening(id: Arc<str>) -> Self {
        Self {
            id: Some(id),
            ..Self::default()
        }
    }

    /// A slot for legacy stateless mode: `initialize` opens nothing that lasts, and every other
    /// request gets a fresh session that knows no client capabilities.
    pub fn stateless() -> Self {
        Self {
            stateless: true,
            ..Self::default()
        }
    }

    /// The session, if there is one.
    pub fn get(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// Whether the dispatcher changed (or filled) the session since the slot was made.
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// The session, for storing.
    pub fn into_session(self) -> Option<Session> {
        self.session
    }

    pub(crate) fn get_mut(&mut self) -> Option<&mut Session> {
        self.changed |= self.session.is_some();
        self.session.as_mut()
    }

    pub(crate) fn fill(&mut self, session: Session) {
        self.session = Some(session);
        self.changed = true;
    }
}
