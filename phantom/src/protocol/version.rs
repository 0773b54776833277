use std::fmt;

/// The protocol revisions phantom speaks. Everything up to 2025-11-25 is the legacy (session) era;
/// 2026-07-28 is the modern (stateless) era.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// `2024-11-05`
    V2024_11_05,
    /// `2025-03-26`
    V2025_03_26,
    /// `2025-06-18`
    V2025_06_18,
    /// `2025-11-25`
    V2025_11_25,
    /// `2026-07-28`
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every supported revision, newest first (the order of `supportedVersions`).
    pub const ALL: [Self; 5] = [
        Self::V2026_07_28,
        Self::V2025_11_25,
        Self::V2025_06_18,
        Self::V2025_03_26,
        Self::V2024_11_05,
    ];
    /// The newest revision.
    pub const LATEST: Self = Self::V2026_07_28;
    /// The newest legacy (session-based) revision.
    pub const LATEST_LEGACY: Self = Self::V2025_11_25;

    /// The wire string.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a wire string; `None` for revisions phantom does not speak.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Whether this is the stateless (2026-07-28+) era.
    pub const fn is_modern(self) -> bool {
        matches!(self, Self::V2026_07_28)
    }

    /// The legacy version `initialize` answers for a requested string: the same one when it is a
    /// supported legacy revision, otherwise the newest legacy revision older than the request, or the
    /// newest legacy one (the spec's "answer with another version you support").
    pub fn negotiate_legacy(requested: &str) -> Self {
        match Self::parse(requested) {
            Some(v) if !v.is_modern() => v,
            _ => Self::ALL
                .into_iter()
                .filter(|v| !v.is_modern())
                .find(|v| v.as_str() <= requested)
                .unwrap_or(Self::LATEST_LEGACY),
        }
    }

    /// Strings of every supported version, newest first.
    pub fn supported_strings() -> Vec<&'static str> {
        Self::ALL.iter().map(|v| v.as_str()).collect()
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
