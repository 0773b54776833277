//! [`JwtVerifier`]: bearer tokens that are JWTs, verified with `jsonwebtoken` against the keys of
//! a JWKS (the `jwt` feature).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::{AuthInfo, InvalidToken, TokenVerifier};

/// Verifies JWT access tokens: the signature against a key of the authorization server's JWKS
/// (chosen by the token's `kid`), the audience (which must be this server: RFC 8707, a MUST for
/// MCP servers), the issuer when one is set, `exp` and `nbf` (with a leeway, 60 s by default).
///
/// The token's `sub` becomes [`AuthInfo::subject`], its `scope` (space-separated) or `scp` (a list)
/// its scopes, `client_id` or `azp` its client. Only asymmetric keys are trusted (RSA, EC,
/// Ed25519), and a key that names its `alg` accepts only that algorithm, so a token cannot choose
/// a weaker one. The keys can be replaced while serving ([`set_jwks`](Self::set_jwks)) when the
/// authorization server rotates them; fetching the JWKS (from its `jwks_uri`) is left to the
/// application's HTTP client.
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
    keys: ArcSwap<Vec<Key>>,
    audiences: Vec<String>,
    issuers: Vec<String>,
    leeway: u64,
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
            .finish()
    }
}

impl JwtVerifier {
    /// Trusts the keys of `jwks` for tokens issued for `audience` (this server's canonical URL).
    pub fn new(jwks: &JwkSet, audience: impl Into<String>) -> Result<Self, InvalidJwks> {
        Ok(Self {
            keys: ArcSwap::from_pointee(keys_of(jwks)?),
            audiences: vec![audience.into()],
            issuers: Vec::new(),
            leeway: 60,
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

    fn check(&self, token: &str) -> Result<AuthInfo, InvalidToken> {
        let header = jsonwebtoken::decode_header(token).map_err(refusal)?;
        let keys = self.keys.load();
        let key = match &header.kid {
            Some(kid) => keys.iter().find(|k| k.kid.as_deref() == Some(kid)),
            None if keys.len() == 1 => keys.first(),
            None => None,
        }
        .ok_or_else(|| InvalidToken::Other("the token's signing key is not trusted".into()))?;
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
}

impl TokenVerifier for JwtVerifier {
    async fn verify(&self, token: &str) -> Result<AuthInfo, InvalidToken> {
        self.check(token)
    }
}

/// The keys of a JWKS, each with the algorithms it may verify.
fn keys_of(jwks: &JwkSet) -> Result<Vec<Key>, InvalidJwks> {
    let mut keys = Vec::with_capacity(jwks.keys.len());
    for jwk in &jwks.keys {
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
        keys.push(Key {
            kid: jwk.common.key_id.clone(),
            key,
            algorithms,
        });
    }
    if keys.is_empty() {
        return Err(InvalidJwks("it has no keys".into()));
    }
    Ok(keys)
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
