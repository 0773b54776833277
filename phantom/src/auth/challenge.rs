//! The RFC 9728 protected-resource metadata, and the raw bearer token as a handler parameter.

use std::fmt;

/// RFC 9728 protected-resource metadata, served by
/// [`http::protected_resource`](crate::http::protected_resource) at
/// `/.well-known/oauth-protected-resource[/<path>]`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProtectedResource {
    /// The canonical URL of the MCP server (`https://mcp.example.com/mcp`), the audience of its
    /// tokens.
    pub resource: String,
    /// Authorization servers that issue tokens for it (at least one).
    pub authorization_servers: Vec<String>,
    /// Scopes the server understands.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes_supported: Vec<String>,
    /// How tokens are presented: `["header"]` (never in the query string).
    pub bearer_methods_supported: Vec<String>,
    /// A human name of the resource.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
}

impl ProtectedResource {
    /// Metadata for `resource`, issued by `authorization_server`, tokens in the header.
    pub fn new(resource: impl Into<String>, authorization_server: impl Into<String>) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: vec![authorization_server.into()],
            scopes_supported: Vec::new(),
            bearer_methods_supported: vec!["header".into()],
            resource_name: None,
        }
    }

    /// Sets the supported scopes.
    #[must_use]
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }
}

/// The bearer token of the request (`Authorization: Bearer <token>`).
///
/// A handler parameter of this type receives the token; a call without one is a tool error (reject
/// unauthenticated requests earlier, in `connect`, with [`Connect::Unauthorized`](crate::Connect)).
/// In `connect`, read it with [`Bearer::from_request`].
#[derive(Clone, PartialEq, Eq)]
pub struct Bearer(pub String);

impl Bearer {
    /// The token of a request, if it has one.
    pub fn from_request(request: &crate::Request) -> Option<Self> {
        request.bearer().map(|t| Self(t.to_owned()))
    }

    /// The token.
    pub fn token(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Bearer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Bearer(<redacted>)")
    }
}
