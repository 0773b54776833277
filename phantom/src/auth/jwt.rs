//! [`JwtVerifier`]: bearer tokens that are JWTs, verified with `jsonwebtoken` against the keys of
//! a JWKS (the `jwt` feature), given or discovered from the issuer and fetched again when a token
//! names a key it does not have.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::PublicKeyUse;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey, Header, Validation};
use serde_json::{Map, Value};

use super::discover::{self, DiscoveryError};
use super::{AuthInfo, InvalidToken, TokenVerifier};
use crate::kernel::{Fetch, Trust};

/// The least time between two fetches of a discovered JWKS, by default.
const REFETCH_INTERVAL: Duration = Duration::from_secs(60);

/// Verifies JWT access tokens: the signature against a key of the authorization server's JWKS
/// (chosen by the token's `kid`), the audience (which must be this server: RFC 8707, a MUST for
/// MCP servers), the issuer when one is set, `exp` and `nbf` (with a leeway, 60 s by default).
///
/// The token's `sub` becomes [`AuthInfo::subject`], its `scope` (space-separated) or `scp` (a list)
/// its scopes, `client_id` or `azp` its client. Only asymmetric keys are trusted (RSA, EC,
/// Ed25519), and a key that names its `alg` accepts only that algorithm, so a token cannot choose
/// a weaker one.
///
/// The keys come from one of two places:
///
/// - **the issuer** ([`discover`](Self::discover)): its authorization server metadata names its
///   `jwks_uri`, the JWKS there is fetched, and only tokens whose `iss` is that issuer are
///   accepted. When a token names a `kid` the keys do not have (the issuer rotated its keys),
///   the JWKS is fetched again, at most once per [`refetch_interval`](Self::refetch_interval)
///   (60 s by default) and once for all the verifications waiting for it; a token whose key is
///   still unknown is refused. If the issuer cannot be reached then, the keys fetched before
///   stay trusted and a warning is logged.
/// - **the application** ([`new`](Self::new), [`from_jwks_json`](Self::from_jwks_json)): a JWKS
///   it read itself, replaced while serving with [`set_jwks`](Self::set_jwks) when the
///   authorization server rotates its keys.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use phantom::auth::{BearerAuth, JwtVerifier};
///
/// let jwks = r#"{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","alg":"EdDSA",
///     "x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#;
/// let verifier = JwtVerifier::from_jwks_json(jwks, "https://mcp.example.com/mcp")?
///     .issuer("https://auth.example.com");
/// let config = phantom::Config::default().with_bearer_auth(BearerAuth::new(verifier));
/// # drop(config);
/// # Ok(()) }
/// ```
pub struct JwtVerifier {
    /// Shared with a refetch in flight, which stores what it fetched.
    keys: Arc<ArcSwap<Vec<Key>>>,
    audiences: Vec<String>,
    issuers: Vec<String>,
    leeway: u64,
    /// Where discovered keys are fetched again; `None` for keys the application gave.
    source: Option<Arc<Source>>,
    refetch_interval: Duration,
}

/// The JWKS of a discovered issuer, and when it was last fetched again.
struct Source {
    fetch: Fetch,
    jwks_uri: String,
    /// When the JWKS was last fetched again; held for the whole of a refetch, so the
    /// verifications that need one share it.
    refetched: Arc<tokio::sync::Mutex<Option<Instant>>>,
}

/// One trusted key: its id, the decoding key, the algorithms it verifies.
struct Key {
    kid: Option<String>,
    key: DecodingKey,
    algorithms: Vec<Algorithm>,
}

/// A JWKS that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid JWKS: {0}")]
pub struct InvalidJwks(String);

impl fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("keys", &self.keys.load().len())
            .field("audiences", &self.audiences)
            .field("issuers", &self.issuers)
            .field("leeway", &self.leeway)
            .field("jwks_uri", &self.source.as_ref().map(|s| &s.jwks_uri))
            .field("refetch_interval", &self.refetch_interval)
            .finish()
    }
}

impl JwtVerifier {
    /// Trusts the keys of `jwks` for tokens issued for `audience` (this server's canonical URL).
    pub fn new(jwks: &JwkSet, audience: impl Into<String>) -> Result<Self, InvalidJwks> {
        Ok(Self {
            keys: Arc::new(ArcSwap::from_pointee(keys_of(jwks)?)),
            audiences: vec![audience.into()],
            issuers: Vec::new(),
            leeway: 60,
            source: None,
            refetch_interval: REFETCH_INTERVAL,
        })
    }

    /// Trusts the keys `issuer` publishes, for tokens `issuer` issued for `audience` (this
    /// server's canonical URL).
    ///
    /// The issuer's metadata is looked for where MCP clients look: for an issuer with a path
    /// (`http://auth.example/tenant1`), at `/.well-known/oauth-authorization-server/tenant1`
    /// (RFC 8414), `/.well-known/openid-configuration/tenant1`, then
    /// `/tenant1/.well-known/openid-configuration` (OpenID Connect Discovery); for one without,
    /// at `/.well-known/oauth-authorization-server` then `/.well-known/openid-configuration`.
    /// The first document found must name `issuer` exactly as given; its `jwks_uri` is fetched.
    /// Each GET must be answered within 10 s, with at most 1 MiB. Keys of the JWKS that cannot
    /// verify signatures (encryption keys, shared secrets, unknown types) are passed over.
    ///
    /// `https://` issuers and `jwks_uri`s need the feature `tls` (rustls, the platform's trusted
    /// roots, as the client's requests); without it they fail with an error saying so.
    ///
    /// # Errors
    ///
    /// [`DiscoveryError`], naming the URL that failed: the issuer is not an HTTP URL, cannot be
    /// reached, publishes no metadata, names another issuer or no `jwks_uri`, or its JWKS
    /// cannot be read or has no usable key.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), phantom::auth::DiscoveryError> {
    /// use std::time::Duration;
    /// use phantom::auth::{BearerAuth, JwtVerifier};
    ///
    /// let verifier = JwtVerifier::discover("http://auth.internal:8080/realms/mcp", "http://mcp.internal/mcp")
    ///     .await?
    ///     .refetch_interval(Duration::from_secs(300));
    /// let config = phantom::Config::default().with_bearer_auth(BearerAuth::new(verifier));
    /// # drop(config);
    /// # Ok(()) }
    /// ```
    pub fn discover(
        issuer: &str,
        audience: impl Into<String>,
    ) -> impl Future<Output = Result<Self, DiscoveryError>> + Send + 'static {
        let issuer = issuer.to_owned();
        let audience = audience.into();
        async move {
            let fetch = Fetch::new(&Trust::default())
                .map_err(|problem| DiscoveryError::new(&issuer, &issuer, problem))?;
            let jwks_uri = discover::jwks_uri(&fetch, &issuer).await?;
            Self::following(fetch, &jwks_uri, issuer.clone(), audience)
                .await
                .map_err(|problem| DiscoveryError::new(&issuer, &jwks_uri, problem))
        }
    }

    /// Trusts the keys of the JWKS at `jwks_uri`, read with `fetch` now and again when a token
    /// names a key it does not know, for tokens `issuer` issued for `audience`; why the JWKS
    /// cannot be used.
    pub(crate) async fn following(
        fetch: Fetch,
        jwks_uri: &str,
        issuer: String,
        audience: String,
    ) -> Result<Self, String> {
        let source = Source {
            fetch,
            jwks_uri: jwks_uri.to_owned(),
            refetched: Arc::default(),
        };
        let keys = source.keys().await?;
        Ok(Self {
            keys: Arc::new(ArcSwap::from_pointee(keys)),
            audiences: vec![audience],
            issuers: vec![issuer],
            leeway: 60,
            source: Some(Arc::new(source)),
            refetch_interval: REFETCH_INTERVAL,
        })
    }

    /// [`new`](Self::new) from the JWKS document's JSON text.
    pub fn from_jwks_json(jwks: &str, audience: impl Into<String>) -> Result<Self, InvalidJwks> {
        let set: JwkSet =
            serde_json::from_str(jwks).map_err(|e| InvalidJwks(format!("not a JWKS: {e}")))?;
        Self::new(&set, audience)
    }

    /// Also accepts tokens issued for `audience`.
    #[must_use]
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// Accepts only tokens whose `iss` is `issuer` (or another issuer given this way).
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuers.push(issuer.into());
        self
    }

    /// How far `exp` and `nbf` may be off (clock skew), at most; 60 s by default.
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway.as_secs();
        self
    }

    /// The least time between two fetches of a [discovered](Self::discover) JWKS for tokens
    /// naming an unknown key; 60 s by default. A token whose key is unknown within that time of
    /// the last refetch is refused without a request to the issuer, so tokens with made-up key
    /// ids cannot make this server flood its issuer. No effect on keys the application gave.
    #[must_use]
    pub fn refetch_interval(mut self, interval: Duration) -> Self {
        self.refetch_interval = interval;
        self
    }

    /// Replaces the trusted keys (the authorization server rotated them); requests being
    /// verified finish with the keys they started with.
    pub fn set_jwks(&self, jwks: &JwkSet) -> Result<(), InvalidJwks> {
        self.keys.store(Arc::new(keys_of(jwks)?));
        Ok(())
    }

    fn validation(&self, algorithm: Algorithm) -> Validation {
        let mut v = Validation::new(algorithm);
        v.leeway = self.leeway;
        v.validate_nbf = true;
        v.set_audience(&self.audiences);
        let mut required = vec!["exp", "sub", "aud"];
        if !self.issuers.is_empty() {
            v.set_issuer(&self.issuers);
            required.push("iss");
        }
        v.set_required_spec_claims(&required);
        v
    }

    fn check(&self, key: &Key, header: &Header, token: &str) -> Result<AuthInfo, InvalidToken> {
        if !key.algorithms.contains(&header.alg) {
            return Err(InvalidToken::BadSignature);
        }
        let data = jsonwebtoken::decode::<Map<String, Value>>(
            token,
            &key.key,
            &self.validation(header.alg),
        )
        .map_err(refusal)?;
        info_of(data.claims)
    }

    /// The keys after fetching the JWKS again for a token whose key is not in `seen`: one
    /// fetch at a time, shared by the verifications waiting for it, and none within the
    /// refetch interval of the last one; the keys as they are when the fetch is not made or
    /// fails. The fetch runs as a task of its own, holding the lock: a verification dropped
    /// while it waits (its client went away) neither stops it nor lets a second one start.
    async fn refetched(&self, source: &Arc<Source>, seen: &Arc<Vec<Key>>) -> Arc<Vec<Key>> {
        let mut last = Arc::clone(&source.refetched).lock_owned().await;
        let current = self.keys.load_full();
        if !Arc::ptr_eq(&current, seen) {
            // Fetched (or set) while this verification waited.
            return current;
        }
        if last.is_some_and(|at| at.elapsed() < self.refetch_interval) {
            return current;
        }
        *last = Some(Instant::now());
        let (source, keys) = (Arc::clone(source), Arc::clone(&self.keys));
        let refetch = tokio::spawn(async move {
            let _held = last;
            match source.keys().await {
                Ok(fetched) => {
                    tracing::debug!(jwks_uri = %source.jwks_uri, keys = fetched.len(), "JWKS fetched again");
                    keys.store(Arc::new(fetched));
                }
                Err(problem) => tracing::warn!(
                    jwks_uri = %source.jwks_uri,
                    %problem,
                    "the JWKS could not be fetched again; the keys fetched before stay trusted"
                ),
            }
        });
        // A panic in the task is a failed fetch: the keys stay as they were.
        let _ = refetch.await;
        self.keys.load_full()
    }
}

impl TokenVerifier for JwtVerifier {
    async fn verify(&self, token: &str) -> Result<AuthInfo, InvalidToken> {
        let header = jsonwebtoken::decode_header(token).map_err(refusal)?;
        let keys = self.keys.load_full();
        if let Some(key) = find(&keys, &header) {
            return self.check(key, &header, token);
        }
        let (Some(source), Some(_)) = (&self.source, &header.kid) else {
            return Err(untrusted());
        };
        let keys = self.refetched(source, &keys).await;
        let key = find(&keys, &header).ok_or_else(untrusted)?;
        self.check(key, &header, token)
    }
}

impl Source {
    /// The usable keys of the JWKS at `jwks_uri`, fetched now.
    async fn keys(&self) -> Result<Vec<Key>, String> {
        let document = self
            .fetch
            .json(&self.jwks_uri)
            .await?
            .ok_or("no JWKS there (HTTP 4xx)")?;
        let listed = document["keys"]
            .as_array()
            .ok_or("the answer is not a JWKS (no `keys` list)")?;
        let mut keys = Vec::with_capacity(listed.len());
        for entry in listed {
            let usable = serde_json::from_value::<Jwk>(entry.clone())
                .map_err(|e| InvalidJwks(format!("key {}: {e}", entry["kid"])))
                .and_then(|jwk| match jwk.common.public_key_use {
                    Some(PublicKeyUse::Encryption) => Err(InvalidJwks(format!(
                        "key {:?} is for encryption",
                        jwk.common.key_id
                    ))),
                    _ => key_of(&jwk),
                });
            match usable {
                Ok(key) => keys.push(key),
                Err(why) => {
                    tracing::debug!(jwks_uri = %self.jwks_uri, %why, "a JWKS key passed over");
                }
            }
        }
        if keys.is_empty() {
            return Err("the JWKS has no key that verifies signatures".into());
        }
        Ok(keys)
    }
}

/// The key of `keys` that signed a token with `header`: the one its `kid` names, or the only
/// one when it names none.
fn find<'k>(keys: &'k [Key], header: &Header) -> Option<&'k Key> {
    match &header.kid {
        Some(kid) => keys.iter().find(|k| k.kid.as_deref() == Some(kid)),
        None if keys.len() == 1 => keys.first(),
        None => None,
    }
}

fn untrusted() -> InvalidToken {
    InvalidToken::Other("the token's signing key is not trusted".into())
}

/// The keys of a JWKS, each with the algorithms it may verify.
fn keys_of(jwks: &JwkSet) -> Result<Vec<Key>, InvalidJwks> {
    let keys = jwks
        .keys
        .iter()
        .map(key_of)
        .collect::<Result<Vec<_>, _>>()?;
    if keys.is_empty() {
        return Err(InvalidJwks("it has no keys".into()));
    }
    Ok(keys)
}

/// One key of a JWKS, with the algorithms it may verify.
fn key_of(jwk: &Jwk) -> Result<Key, InvalidJwks> {
    let family = family_of(jwk)?;
    let algorithms = match jwk.common.key_algorithm {
        None => family.to_vec(),
        Some(declared) => {
            let alg = algorithm_of(declared)
                .filter(|a| family.contains(a))
                .ok_or_else(|| {
                    InvalidJwks(format!(
                        "key {:?}: algorithm {declared} does not suit its key type",
                        jwk.common.key_id
                    ))
                })?;
            vec![alg]
        }
    };
    let key = DecodingKey::from_jwk(jwk)
        .map_err(|e| InvalidJwks(format!("key {:?}: {e}", jwk.common.key_id)))?;
    Ok(Key {
        kid: jwk.common.key_id.clone(),
        key,
        algorithms,
    })
}

/// The signature algorithms of a key's type; shared secrets (`oct`) are refused.
fn family_of(jwk: &Jwk) -> Result<&'static [Algorithm], InvalidJwks> {
    use Algorithm::{ES256, ES384, EdDSA, PS256, PS384, PS512, RS256, RS384, RS512};
    match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Ok(&[RS256, RS384, RS512, PS256, PS384, PS512]),
        AlgorithmParameters::EllipticCurve(_) => Ok(&[ES256, ES384]),
        AlgorithmParameters::OctetKeyPair(_) => Ok(&[EdDSA]),
        AlgorithmParameters::OctetKey(_) => Err(InvalidJwks(format!(
            "key {:?} is a shared secret (`oct`); an authorization server's JWKS publishes public keys",
            jwk.common.key_id
        ))),
    }
}

fn algorithm_of(declared: KeyAlgorithm) -> Option<Algorithm> {
    declared.to_string().parse().ok()
}

/// The reason a client is told; never the token, never a claim's value.
fn refusal(e: jsonwebtoken::errors::Error) -> InvalidToken {
    match e.into_kind() {
        ErrorKind::ExpiredSignature => InvalidToken::Expired,
        ErrorKind::ImmatureSignature => InvalidToken::Immature,
        ErrorKind::InvalidAudience => InvalidToken::WrongAudience,
        ErrorKind::InvalidIssuer => InvalidToken::WrongIssuer,
        ErrorKind::InvalidSignature
        | ErrorKind::InvalidAlgorithm
        | ErrorKind::InvalidEcdsaKey
        | ErrorKind::InvalidEddsaKey
        | ErrorKind::InvalidRsaKey(_) => InvalidToken::BadSignature,
        ErrorKind::MissingRequiredClaim(claim) => {
            InvalidToken::Malformed(format!("it has no `{claim}` claim"))
        }
        ErrorKind::InvalidClaimFormat(claim) => {
            InvalidToken::Malformed(format!("its `{claim}` claim has the wrong type"))
        }
        _ => InvalidToken::Malformed("it is not a signed JWT".into()),
    }
}

/// What the claims of a verified token grant.
fn info_of(claims: Map<String, Value>) -> Result<AuthInfo, InvalidToken> {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let subject = text("sub")
        .filter(|s| !s.is_empty())
        .ok_or_else(|| InvalidToken::Malformed("its `sub` claim is not a string".into()))?;
    let scopes = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(s)), _) | (None, Some(Value::String(s))) => {
            s.split_whitespace().map(str::to_owned).collect()
        }
        (None, Some(Value::Array(list))) => list
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                InvalidToken::Malformed("its `scp` claim is not a list of strings".into())
            })?,
        (None, None) => Vec::new(),
        _ => {
            return Err(InvalidToken::Malformed(
                "its `scope` claim is not a string".into(),
            ));
        }
    };
    let mut info = AuthInfo::new(subject).scopes(scopes);
    info.client_id = text("client_id").or_else(|| text("azp"));
    info.expires_at = claims.get("exp").and_then(Value::as_u64);
    info.claims = claims;
    Ok(info)
}
