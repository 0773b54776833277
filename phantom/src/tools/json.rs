//! [`Json`]: a value sent as JSON, from a tool or a resource.

/// JSON output of a tool (`structuredContent` + `outputSchema` + a text copy) or a resource
/// (`application/json` text).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);
