//! The token-verifier seam: [`TokenVerifier`], what it finds ([`AuthInfo`]) or why it refuses
//! ([`InvalidToken`]), [`BearerAuth`], and the check phantom runs before `connect`.

use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::WwwAuthenticate;
use crate::kernel::{Failure, Status};
use crate::protocol::{ErrorObject, codes};
use crate::session::{Request, Session, Transport};

/// What a verified token says: who holds it and what it grants.
///
/// A plain, serializable value (no token text: the secret is not kept), so a session store on
/// another node can hold it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuthInfo {
    /// The subject (`sub`): the principal of the session.
    pub subject: String,
    /// The scopes the token grants.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The OAuth client the token was issued to (`client_id` or `azp`), when the token says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// When the token expires, in seconds since the Unix epoch, when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// Every claim of the token, for what the fields above do not carry.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub claims: Map<String, Value>,
}

impl AuthInfo {
    /// A token of `subject` that grants nothing yet.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            scopes: Vec::new(),
            client_id: None,
            expires_at: None,
            claims: Map::new(),
        }
    }

    /// Grants `scopes`.
    #[must_use]
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// The scopes of `needed` the token does not grant, in order.
    pub fn missing<'n>(&self, needed: &[&'n str]) -> Vec<&'n str> {
        needed
            .iter()
            .copied()
            .filter(|s| !self.has_scope(s))
            .collect()
    }
}

/// Why a token was refused. Its text goes to the client as the challenge's `error_description`,
/// so it never contains the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidToken {
    /// Past its `exp`.
    #[error("the token has expired")]
    Expired,
    /// Before its `nbf`.
    #[error("the token is not valid yet")]
    Immature,
    /// Issued for another resource (its audience is not this server).
    #[error("the token was issued for another audience")]
    WrongAudience,
    /// Issued by an authorization server this server does not trust.
    #[error("the token was issued by an untrusted issuer")]
    WrongIssuer,
    /// Its signature does not verify, or no trusted key signed it.
    #[error("the token's signature does not verify")]
    BadSignature,
    /// Not a token this verifier can read.
    #[error("the token is malformed: {0}")]
    Malformed(String),
    /// A token this verifier does not know.
    #[error("the token is not known")]
    Unknown,
    /// Another reason, in words.
    #[error("{0}")]
    Other(String),
}

/// Turns the bearer token of a request into what it grants.
///
/// Implement it for an introspection client, a session lookup, or anything else; phantom ships
/// [`StaticTokens`] and, with the `jwt` feature, `JwtVerifier`. A panic
/// in `verify` refuses the request as an invalid token.
pub trait TokenVerifier: Send + Sync + 'static {
    /// Verifies `token` (without the `Bearer ` prefix).
    fn verify(&self, token: &str) -> impl Future<Output = Result<AuthInfo, InvalidToken>> + Send;
}

type Verified<'a> = crate::kernel::BoxFuture<'a, Result<AuthInfo, InvalidToken>>;

/// [`TokenVerifier`], object-safe.
trait DynVerifier: Send + Sync {
    fn verify_boxed<'a>(&'a self, token: &'a str) -> Verified<'a>;
}

impl<T: TokenVerifier> DynVerifier for T {
    fn verify_boxed<'a>(&'a self, token: &'a str) -> Verified<'a> {
        Box::pin(self.verify(token))
    }
}

/// Bearer-token authorization of a server: the verifier, the URL of the protected-resource
/// metadata named in every challenge, and the scopes every request needs.
///
/// ```
/// use phantom::auth::{AuthInfo, BearerAuth, StaticTokens};
///
/// let tokens = StaticTokens::new()
///     .token("s3cr3t-reader", AuthInfo::new("ada").scopes(["notes:read"]));
/// let config = phantom::Config::default().with_bearer_auth(
///     BearerAuth::new(tokens)
///         .resource_metadata("https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
///         .required_scopes(["notes:read"]),
/// );
/// # drop(config);
/// ```
#[derive(Clone)]
pub struct BearerAuth {
    verifier: Arc<dyn DynVerifier>,
    resource_metadata: Option<String>,
    required: Arc<[String]>,
}

impl fmt::Debug for BearerAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerAuth")
            .field("resource_metadata", &self.resource_metadata)
            .field("required", &self.required)
            .finish_non_exhaustive()
    }
}

impl BearerAuth {
    /// Verifies the bearer token of every request but stdio ones with `verifier` (HTTP, and the
    /// in-process test client, which speaks as HTTP by default).
    pub fn new(verifier: impl TokenVerifier) -> Self {
        Self {
            verifier: Arc::new(verifier),
            resource_metadata: None,
            required: Arc::from([]),
        }
    }

    /// Names the protected-resource metadata document (RFC 9728) in every challenge, so that a
    /// client finds the authorization server. Serve the document with
    /// [`http::protected_resource`](crate::http::protected_resource).
    #[must_use]
    pub fn resource_metadata(mut self, url: impl Into<String>) -> Self {
        self.resource_metadata = Some(url.into());
        self
    }

    /// Scopes every request needs; the 401 challenge names them, and a token without one of
    /// them is answered 403.
    #[must_use]
    pub fn required_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scopes: I,
    ) -> Self {
        self.required = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The URL of the protected-resource metadata, if set.
    pub fn metadata_url(&self) -> Option<&str> {
        self.resource_metadata.as_deref()
    }

    /// A bare challenge naming the metadata document.
    fn challenge(&self) -> WwwAuthenticate {
        WwwAuthenticate {
            resource_metadata: self.resource_metadata.clone(),
            ..WwwAuthenticate::bearer()
        }
    }

    /// Verifies the request's token before `connect`: on success the session's principal is the
    /// token's subject and `session.auth` what the verifier found. stdio requests carry no
    /// headers and are left to `connect`.
    pub(crate) async fn authenticate(
        &self,
        session: &mut Session,
        request: &Request,
    ) -> Result<(), Failure> {
        if request.transport == Transport::Stdio {
            return Ok(());
        }
        let unauthorized = |challenge: WwwAuthenticate| {
            Failure::from(ErrorObject::new(codes::CONNECT_REJECTED, "Unauthorized"))
                .with_status(Status::Unauthorized(Box::new(challenge)))
        };
        let Some(token) = request.bearer() else {
            let mut challenge = self.challenge();
            if !self.required.is_empty() {
                challenge.scope = Some(self.required.join(" "));
            }
            return Err(unauthorized(challenge));
        };
        let verified = AssertUnwindSafe(self.verifier.verify_boxed(token))
            .catch_unwind()
            .await
            .unwrap_or_else(|_| {
                crate::kernel::exception("token verifier", "verify");
                Err(InvalidToken::Other(
                    "the token could not be verified".into(),
                ))
            });
        let info = match verified {
            Ok(info) => info,
            Err(why) => {
                tracing::debug!(reason = %why, "a bearer token was refused");
                return Err(unauthorized(
                    self.challenge()
                        .error("invalid_token")
                        .error_description(why.to_string()),
                ));
            }
        };
        let required: Vec<&str> = self.required.iter().map(String::as_str).collect();
        if !info.missing(&required).is_empty() {
            return Err(insufficient_scope(&required, "this server"));
        }
        session.principal = Some(Arc::from(info.subject.as_str()));
        session.auth = Some(Arc::new(info));
        Ok(())
    }
}

/// Whether the session's verified token grants every scope of `needed` (fail closed: a session
/// without a verified token grants none).
pub(crate) fn grants<N: AsRef<str>>(session: &Session, needed: &[N]) -> bool {
    needed.is_empty()
        || session
            .auth
            .as_ref()
            .is_some_and(|auth| needed.iter().all(|s| auth.has_scope(s.as_ref())))
}

/// Refuses `what` (`tool `add``, `resource `notes``) when the session's token does not grant
/// every scope of `needed`: the same 403 for every kind of entry.
pub(crate) fn check_scopes<N: AsRef<str>>(
    session: &Session,
    needed: &[N],
    what: impl FnOnce() -> String,
) -> Result<(), Failure> {
    if grants(session, needed) {
        return Ok(());
    }
    let needed: Vec<&str> = needed.iter().map(AsRef::as_ref).collect();
    Err(insufficient_scope(&needed, &what()))
}

/// The 403 of a request whose token lacks `scopes` (all that `what` needs): JSON-RPC `-32001`
/// with `data.requiredScopes`, and the `insufficient_scope` challenge (the dispatcher adds the
/// metadata URL).
pub(crate) fn insufficient_scope(scopes: &[&str], what: &str) -> Failure {
    let list = scopes
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let challenge = WwwAuthenticate::insufficient_scope(scopes)
        .error_description(format!("{what} needs the scopes {list}"));
    Failure::from(
        ErrorObject::new(
            codes::CONNECT_REJECTED,
            format!("Insufficient scope: {what} needs {list}"),
        )
        .with_data(json!({ "requiredScopes": scopes })),
    )
    .with_status(Status::InsufficientScope(Box::new(challenge)))
}

/// A fixed table of opaque bearer tokens, for development, tests and service accounts.
///
/// Tokens are kept as SHA-256 digests, and a presented token is compared with every entry in
/// constant time (no early exit, no length leak), so response timing tells nothing about how
/// much of a guess was right.
#[derive(Clone, Default)]
pub struct StaticTokens {
    entries: Vec<([u8; 32], AuthInfo)>,
}

impl fmt::Debug for StaticTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticTokens")
            .field("tokens", &self.entries.len())
            .finish()
    }
}

impl StaticTokens {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Accepts `token` as `info`.
    #[must_use]
    pub fn token(mut self, token: impl AsRef<str>, info: AuthInfo) -> Self {
        self.entries.push((digest(token.as_ref()), info));
        self
    }

    /// The entry of `token`, looked up in constant time.
    fn find(&self, token: &str) -> Option<&AuthInfo> {
        let presented = digest(token);
        let mut found = None;
        for (known, info) in &self.entries {
            if bool::from(known.ct_eq(&presented)) {
                found = Some(info);
            }
        }
        found
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl TokenVerifier for StaticTokens {
    async fn verify(&self, token: &str) -> Result<AuthInfo, InvalidToken> {
        self.find(token).cloned().ok_or(InvalidToken::Unknown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_tokens_find_exactly_their_own() {
        let tokens = StaticTokens::new()
            .token("alpha", AuthInfo::new("a"))
            .token("beta", AuthInfo::new("b"));
        assert_eq!(tokens.find("alpha").map(|i| i.subject.as_str()), Some("a"));
        assert_eq!(tokens.find("beta").map(|i| i.subject.as_str()), Some("b"));
        for guess in ["", "alph", "alphaa", "ALPHA", "beta "] {
            assert!(tokens.find(guess).is_none(), "{guess:?}");
        }
        assert!(!format!("{tokens:?}").contains("alpha"));
    }

    #[test]
    fn missing_scopes_keep_their_order() {
        let info = AuthInfo::new("a").scopes(["notes:read"]);
        assert_eq!(
            info.missing(&["notes:write", "notes:read", "notes:admin"]),
            ["notes:write", "notes:admin"]
        );
        assert!(info.missing(&["notes:read"]).is_empty());
    }

    #[test]
    fn an_insufficient_scope_challenge_names_the_scopes() {
        let f = insufficient_scope(&["notes:write", "notes:admin"], "tool `add`");
        let Status::InsufficientScope(challenge) = &f.status else {
            panic!("{:?}", f.status)
        };
        assert_eq!(
            challenge.to_string(),
            "Bearer error=\"insufficient_scope\", error_description=\"tool `add` needs the scopes `notes:write`, `notes:admin`\", scope=\"notes:write notes:admin\""
        );
        assert_eq!(f.error.code, codes::CONNECT_REJECTED);
    }
}
