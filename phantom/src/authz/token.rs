//! [`AccessToken`]: what phantom's authorization server puts in an access token.

use std::time::Duration;

/// The claims of one access token: who (`sub`), for which resource (`aud`), by which client,
/// with which scopes, and for how long (5 minutes by default). Signed by
/// [`Keyring::issue`](super::Keyring::issue).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessToken {
    pub(super) issuer: String,
    pub(super) audience: String,
    pub(super) subject: String,
    pub(super) client_id: String,
    pub(super) scopes: Vec<String>,
    pub(super) lifetime: Option<Duration>,
    pub(super) claims: serde_json::Map<String, serde_json::Value>,
}

impl AccessToken {
    /// A token `issuer` issues for `audience` (the resource: the MCP endpoint's canonical URL)
    /// to `client_id`, for the user `subject`; no scopes.
    pub fn new(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        subject: impl Into<String>,
        client_id: impl Into<String>,
    ) -> Self {
        Self {
            issuer: issuer.into(),
            audience: audience.into(),
            subject: subject.into(),
            client_id: client_id.into(),
            scopes: Vec::new(),
            lifetime: None,
            claims: serde_json::Map::new(),
        }
    }

    /// The scopes the token grants.
    #[must_use]
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Another claim the token carries (the user's `email` or `name`, say), which handlers read
    /// from [`AuthInfo::claims`](crate::auth::AuthInfo::claims). The registered claims (`iss`,
    /// `sub`, `aud`, `client_id`, `scope`, `iat`, `nbf`, `exp`, `jti`) cannot be replaced.
    #[must_use]
    pub fn claim(mut self, name: impl Into<String>, value: impl Into<serde_json::Value>) -> Self {
        self.claims.insert(name.into(), value.into());
        self
    }

    /// How long the token is valid (default 5 minutes).
    #[must_use]
    pub fn lifetime(mut self, lifetime: Duration) -> Self {
        self.lifetime = Some(lifetime);
        self
    }
}
