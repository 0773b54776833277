//! The `WWW-Authenticate` challenge of RFC 6750 / RFC 9728, the protected-resource metadata, and
//! the raw bearer token as a handler parameter.

use std::fmt;

/// A `WWW-Authenticate: Bearer …` challenge, built per RFC 9728 (`resource_metadata`, `scope`,
/// `error`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WwwAuthenticate {
    /// URL of the protected-resource metadata document.
    pub resource_metadata: Option<String>,
    /// Space-separated scopes the client should ask for.
    pub scope: Option<String>,
    /// An OAuth error code such as `invalid_token` or `insufficient_scope`.
    pub error: Option<String>,
    /// A human description of the error.
    pub error_description: Option<String>,
}

impl WwwAuthenticate {
    /// A bare `Bearer` challenge.
    pub fn bearer() -> Self {
        Self::default()
    }

    /// Sets `resource_metadata`.
    #[must_use]
    pub fn resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(url.into());
        self
    }

    /// Sets `scope`.
    #[must_use]
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// Sets `error`.
    #[must_use]
    pub fn error(mut self, error: impl Into<String>) -> Self {
        self.error = Some(error.into());
        self
    }

    /// Sets `error_description`.
    #[must_use]
    pub fn error_description(mut self, description: impl Into<String>) -> Self {
        self.error_description = Some(description.into());
        self
    }

    /// The RFC 6750 §3.1 challenge of a token that lacks scopes: `error="insufficient_scope"`
    /// and the scopes the request needs, space-separated.
    pub fn insufficient_scope<I: IntoIterator<Item = S>, S: AsRef<str>>(scopes: I) -> Self {
        let scope = scopes
            .into_iter()
            .map(|s| s.as_ref().to_owned())
            .collect::<Vec<_>>()
            .join(" ");
        Self::bearer().error("insufficient_scope").scope(scope)
    }
}

impl fmt::Display for WwwAuthenticate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Bearer")?;
        let params = [
            ("error", &self.error),
            ("error_description", &self.error_description),
            ("scope", &self.scope),
            ("resource_metadata", &self.resource_metadata),
        ];
        let mut first = true;
        for (key, value) in params {
            if let Some(value) = value {
                let sep = if first { " " } else { ", " };
                first = false;
                let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
                write!(f, "{sep}{key}=\"{escaped}\"")?;
            }
        }
        Ok(())
    }
}

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
