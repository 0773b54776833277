//! [`CacheScope`]: who may reuse a 2026-07-28 result.

/// `cacheScope` of modern list, read and discover results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheScope {
    /// Any client may reuse the result.
    Public,
    /// Reuse only under the same authorization (the default: `connect` may vary what is listed).
    #[default]
    Private,
}

impl CacheScope {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Private => "private",
        }
    }
}
