//! The `WWW-Authenticate` challenge of RFC 6750 / RFC 9728 that a 401 or 403 reply carries.

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
