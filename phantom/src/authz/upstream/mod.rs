//! The identity provider phantom signs users in through ([`Upstream`]), with the team's fixed
//! credentials: a generic OpenID Connect provider found by discovery, or a preset.
// `start` and `finish` are called by the authorization endpoints.
#![allow(dead_code)]

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

#[cfg(feature = "tls")]
use crate::kernel::Trust;

/// The identity provider phantom signs users in through, with the team's fixed credentials
/// (the client registered with it once, by hand).
///
/// Its `Debug` never shows the client secret.
#[derive(Clone)]
pub struct Upstream {
    provider: Provider,
    client_id: String,
    client_secret: Arc<str>,
    scopes: Vec<String>,
    #[cfg(feature = "tls")]
    trust: Trust,
}

/// Where the provider's endpoints come from.
#[derive(Clone, Debug)]
enum Provider {
    /// OpenID Connect, by discovery of this issuer.
    Oidc { issuer: String },
    /// GitHub: OAuth 2 and its user API.
    GitHub,
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upstream")
            .field("provider", &self.provider)
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl Upstream {
    /// An OpenID Connect provider found by discovery (`/.well-known/openid-configuration` of
    /// `issuer`), discovered on first use and cached; scopes `openid email profile`.
    pub fn oidc(
        issuer: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Self::with(
            Provider::Oidc {
                issuer: issuer.into(),
            },
            client_id.into(),
            client_secret.into(),
        )
    }

    /// Google (OpenID Connect, issuer `https://accounts.google.com`).
    pub fn google(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self::oidc("https://accounts.google.com", client_id, client_secret)
    }

    /// GitHub: OAuth 2 and its user API (`https://api.github.com/user`, `/user/emails`), not
    /// OpenID Connect.
    pub fn github(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self::with(Provider::GitHub, client_id.into(), client_secret.into())
    }

    fn with(provider: Provider, client_id: String, client_secret: String) -> Self {
        let scopes = match provider {
            Provider::Oidc { .. } => vec!["openid".into(), "email".into(), "profile".into()],
            Provider::GitHub => vec!["read:user".into(), "user:email".into()],
        };
        Self {
            provider,
            client_id,
            client_secret: client_secret.into(),
            scopes,
            #[cfg(feature = "tls")]
            trust: Trust::default(),
        }
    }

    /// The scopes asked of the provider, in place of the preset's.
    #[must_use]
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Trusts the certificates of `pem` as roots too, for a provider behind a private CA.
    ///
    /// # Errors
    ///
    /// Why the PEM does not read.
    #[cfg(feature = "tls")]
    pub fn root_certificate(mut self, pem: &[u8]) -> Result<Self, String> {
        self.trust.add_pem(pem)?;
        Ok(self)
    }

    /// Starts a sign-in: phantom's own PKCE (S256) verifier and, for OpenID Connect, a nonce;
    /// the URL to send the browser to, carrying `state` and `redirect_uri`.
    #[allow(clippy::unused_async)]
    pub(crate) async fn start(
        &self,
        redirect_uri: &str,
        state: &str,
    ) -> Result<Started, UpstreamError> {
        let _ = (redirect_uri, state);
        Err(UpstreamError::new(
            Step::Discovery,
            "",
            "not implemented yet",
            false,
        ))
    }

    /// Finishes a sign-in at the callback: exchanges `code` (with the verifier and the fixed
    /// credentials), checks the ID token or reads the user API, and returns who signed in.
    #[allow(clippy::unused_async)]
    pub(crate) async fn finish(
        &self,
        redirect_uri: &str,
        code: &str,
        started: &Started,
    ) -> Result<Identity, UpstreamError> {
        let _ = (redirect_uri, code, started);
        Err(UpstreamError::new(
            Step::Token,
            "",
            "not implemented yet",
            false,
        ))
    }
}

/// A sign-in under way: the URL the browser is sent to and what finishing it needs (kept with
/// the pending authorization, never shown).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Started {
    pub(crate) url: String,
    pub(crate) verifier: String,
    pub(crate) nonce: Option<String>,
}

/// Who signed in upstream: a stable subject (scoped to the provider, e.g. GitHub's numeric id)
/// and the provider's claims.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Identity {
    subject: String,
    claims: Map<String, Value>,
}

impl Identity {
    /// An identity of `subject` with `claims`: for an application's tests.
    pub fn new(subject: impl Into<String>, claims: Map<String, Value>) -> Self {
        Self {
            subject: subject.into(),
            claims,
        }
    }

    /// The provider's stable id of the user.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The user's email address, when the provider vouches for it.
    pub fn email(&self) -> Option<&str> {
        self.claims.get("email").and_then(Value::as_str)
    }

    /// The user's name, when the provider gives one.
    pub fn name(&self) -> Option<&str> {
        self.claims.get("name").and_then(Value::as_str)
    }

    /// One claim of the provider, by name.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// Every claim of the provider.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }
}

/// A step of a sign-in at the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Discovery,
    Token,
}

impl Step {
    fn name(self) -> &'static str {
        match self {
            Self::Discovery => "discovery",
            Self::Token => "token",
        }
    }
}

/// Why a sign-in could not go on at the provider: the step, the URL, the problem; never a
/// secret, code or token.
#[derive(Debug, Clone)]
pub struct UpstreamError {
    step: Step,
    url: String,
    problem: String,
    unreachable: bool,
}

impl UpstreamError {
    fn new(step: Step, url: &str, problem: impl Into<String>, unreachable: bool) -> Self {
        Self {
            step,
            url: url.to_owned(),
            problem: problem.into(),
            unreachable,
        }
    }

    /// The step that failed: `discovery`, `token`, `id token` or `user API`.
    pub fn step(&self) -> &'static str {
        self.step.name()
    }

    /// The URL that failed (without its query).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether the provider could not be reached (down, timed out, a 5xx), rather than
    /// refusing.
    pub fn is_unreachable(&self) -> bool {
        self.unreachable
    }
}

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the identity provider's {}: {}: {}",
            self.step.name(),
            self.url,
            self.problem
        )
    }
}

impl std::error::Error for UpstreamError {}
