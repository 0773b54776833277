//! Which router callbacks an `#[mcp_router]` impl overrides: rooms ask before calling one.

/// The twelve router callbacks, as flags: which ones an `#[mcp_router]` impl overrides.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Callback {
    Connect,
    Disconnect,
    Terminate,
    Instructions,
    ServerInfo,
    ListResources,
    ListSkills,
    AuthorizeResourceSubscriptions,
    AuthorizeTaskSubscriptions,
    GetTask,
    UpdateTask,
    CancelTask,
}

/// The set of overridden callbacks, built once per router.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Overrides(u16);

impl Overrides {
    pub(crate) fn of(callbacks: &[Callback]) -> Self {
        Self(callbacks.iter().fold(0, |bits, &c| bits | 1 << c as u16))
    }

    pub(crate) fn contains(self, callback: Callback) -> bool {
        self.0 & (1 << callback as u16) != 0
    }
}
