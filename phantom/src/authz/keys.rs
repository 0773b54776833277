//! The signing keyring: ES256 keys, one signing, all published.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::AccessToken;
use crate::auth::JwtVerifier;
use crate::kernel::es256;

/// A key that cannot be used: its secret is not 32 bytes of base64url, or not a P-256 scalar;
/// its id is empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid signing key `{kid}`: {why}")]
pub struct InvalidKey {
    kid: String,
    why: &'static str,
}

/// One ES256 (P-256) signing key and its id (`kid`). Its `Debug` shows the id and the public
/// key only.
#[derive(Clone)]
pub struct SigningKey {
    kid: String,
    key: p256::ecdsa::SigningKey,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .field("private", &"<redacted>")
            .field("jwk", &self.jwk())
            .finish()
    }
}

impl SigningKey {
    /// A new key from the system's random source, with a random id: for one node, or for a
    /// test. Nodes that share the work must share their keys ([`from_base64url`](Self::from_base64url)).
    pub fn generate() -> Self {
        Self {
            kid: crate::kernel::random_id::<9>(),
            key: es256::new_key(),
        }
    }

    /// The key `kid` whose secret is `secret`: 32 bytes (a P-256 scalar) in base64url without
    /// padding, as `openssl rand 32 | basenc --base64url | tr -d =` prints (a random string of
    /// 32 bytes is a valid scalar but for a chance of about 2^-128). The same `kid` and secret on
    /// every node make them one issuer.
    ///
    /// # Errors
    ///
    /// [`InvalidKey`] when `kid` is empty or the secret is not such a scalar.
    pub fn from_base64url(kid: impl Into<String>, secret: &str) -> Result<Self, InvalidKey> {
        let kid = kid.into();
        let invalid = |why| InvalidKey {
            kid: kid.clone(),
            why,
        };
        if kid.is_empty() {
            return Err(invalid("the key id is empty"));
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(secret.trim().trim_end_matches('='))
            .map_err(|_| invalid("the secret is not base64url"))?;
        let bytes: [u8; 32] = bytes
            .try_into()
            .map_err(|_| invalid("the secret is not 32 bytes"))?;
        let key = p256::ecdsa::SigningKey::from_bytes(&bytes.into())
            .map_err(|_| invalid("the secret is not a P-256 scalar"))?;
        Ok(Self { kid, key })
    }

    /// The key's id.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The public key as a JWK (`kty` EC, `crv` P-256, `alg` ES256, `use` sig, `kid`).
    fn jwk(&self) -> Value {
        let mut jwk = es256::public_jwk(&self.key);
        jwk["alg"] = json!("ES256");
        jwk["use"] = json!("sig");
        jwk["kid"] = json!(self.kid);
        jwk
    }

    /// A compact JWS of `claims` with header `typ`, signed with this key.
    fn sign(&self, typ: &str, claims: &Value) -> String {
        let header = json!({"alg": "ES256", "typ": typ, "kid": self.kid});
        es256::sign(&self.key, &header, claims)
    }
}

/// The keys phantom's authorization server signs with: the current key signs every token, and
/// the keys it replaced are still published, so tokens they signed verify until they expire.
///
/// Every node of one app is given the same keyring by configuration. To rotate: add the new key
/// as [`previous`](Self::previous) on every node (it is published, and resource servers that
/// cache the JWKS learn it), then make it [`new`](Self::new)'s key and the old one a previous
/// key, and drop the old one once the longest token lifetime has passed.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use phantom::authz::{Keyring, SigningKey};
///
/// let current = SigningKey::from_base64url("2026-12", "qOkS1Ve5QTnE5dBf5R3rdf2zHzM2P7-Nnl2bUO-7BPg")?;
/// let keyring = Keyring::new(current);
/// assert!(keyring.jwks().contains(r#""kid":"2026-12""#));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Keyring {
    current: SigningKey,
    previous: Vec<SigningKey>,
}

impl Keyring {
    /// A keyring whose `current` key signs.
    pub fn new(current: SigningKey) -> Self {
        Self {
            current,
            previous: Vec::new(),
        }
    }

    /// A key that is published but does not sign: one the current key replaced, or the next one
    /// announced before it signs.
    #[must_use]
    pub fn previous(mut self, key: SigningKey) -> Self {
        if key.kid != self.current.kid && self.previous.iter().all(|k| k.kid != key.kid) {
            self.previous.push(key);
        }
        self
    }

    /// The JWKS the keyring publishes: the current key, then the previous ones.
    pub fn jwks(&self) -> String {
        let keys: Vec<Value> = std::iter::once(&self.current)
            .chain(&self.previous)
            .map(SigningKey::jwk)
            .collect();
        json!({ "keys": keys }).to_string()
    }

    /// A verifier of the tokens this keyring signs for `audience` (the MCP endpoint's
    /// canonical URL) as `issuer`: the same app's resource-server side, with no JWKS to fetch.
    pub fn verifier(&self, issuer: &str, audience: &str) -> JwtVerifier {
        JwtVerifier::from_jwks_json(&self.jwks(), audience)
            .expect("a keyring's JWKS holds only ES256 keys it made")
            .issuer(issuer)
    }

    /// `token` signed with the current key, as issued at `now` (seconds since the Unix epoch):
    /// an RFC 9068 JWT (`typ` `at+jwt`) with `iss`, `sub`, `aud`, `client_id`, `scope`, `iat`,
    /// `nbf`, `exp` and a random `jti`.
    pub fn issue(&self, token: &AccessToken, now: u64) -> String {
        let lifetime = token.lifetime.unwrap_or(Duration::from_secs(300)).as_secs();
        let mut claims = json!({
            "iss": token.issuer,
            "sub": token.subject,
            "aud": token.audience,
            "client_id": token.client_id,
            "scope": token.scopes.join(" "),
            "iat": now,
            "nbf": now,
            "exp": now + lifetime,
            "jti": crate::kernel::random_id::<16>(),
        });
        if let Value::Object(registered) = &mut claims {
            for (name, value) in &token.claims {
                registered
                    .entry(name.clone())
                    .or_insert_with(|| value.clone());
            }
        }
        self.current.sign("at+jwt", &claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::TokenVerifier as _;

    fn now() -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }

    fn token(audience: &str) -> AccessToken {
        AccessToken::new("https://mcp.example", audience, "alice", "client-1")
            .scopes(["notes:read", "notes:write"])
    }

    #[tokio::test]
    async fn a_token_verifies_with_the_keyrings_own_verifier() {
        let keyring = Keyring::new(SigningKey::generate());
        let issued = keyring.issue(&token("https://mcp.example/mcp"), now());
        let info = keyring
            .verifier("https://mcp.example", "https://mcp.example/mcp")
            .verify(&issued)
            .await
            .expect("verified");
        assert_eq!(info.subject, "alice");
        assert_eq!(info.client_id.as_deref(), Some("client-1"));
        assert!(info.has_scope("notes:read") && info.has_scope("notes:write"));
    }

    #[tokio::test]
    async fn a_token_for_another_resource_or_issuer_is_refused() {
        let keyring = Keyring::new(SigningKey::generate());
        let issued = keyring.issue(&token("https://other.example/mcp"), now());
        let verifier = keyring.verifier("https://mcp.example", "https://mcp.example/mcp");
        assert!(verifier.verify(&issued).await.is_err(), "another audience");
        let ours = keyring.issue(&token("https://mcp.example/mcp"), now());
        let elsewhere = keyring.verifier("https://evil.example", "https://mcp.example/mcp");
        assert!(elsewhere.verify(&ours).await.is_err(), "another issuer");
    }

    #[tokio::test]
    async fn an_expired_token_is_refused() {
        let keyring = Keyring::new(SigningKey::generate());
        let issued = keyring.issue(
            &token("https://mcp.example/mcp").lifetime(Duration::from_secs(60)),
            now() - 3600,
        );
        let verifier = keyring.verifier("https://mcp.example", "https://mcp.example/mcp");
        assert!(verifier.verify(&issued).await.is_err());
    }

    #[tokio::test]
    async fn a_rotated_keyring_still_verifies_what_the_old_key_signed() {
        let old = SigningKey::generate();
        let new = SigningKey::generate();
        let before = Keyring::new(old.clone()).issue(&token("https://mcp.example/mcp"), now());
        let rotated = Keyring::new(new).previous(old);
        let after = rotated.issue(&token("https://mcp.example/mcp"), now());
        let verifier = rotated.verifier("https://mcp.example", "https://mcp.example/mcp");
        assert!(
            verifier.verify(&before).await.is_ok(),
            "the old key's token"
        );
        assert!(verifier.verify(&after).await.is_ok(), "the new key's token");
        let stranger =
            Keyring::new(SigningKey::generate()).issue(&token("https://mcp.example/mcp"), now());
        assert!(
            verifier.verify(&stranger).await.is_err(),
            "a key the keyring does not hold"
        );
    }

    #[test]
    fn configured_keys_are_one_issuer_on_every_node() {
        let secret = "qOkS1Ve5QTnE5dBf5R3rdf2zHzM2P7-Nnl2bUO-7BPg";
        let a = SigningKey::from_base64url("k1", secret).expect("key");
        let b = SigningKey::from_base64url("k1", secret).expect("key");
        assert_eq!(Keyring::new(a).jwks(), Keyring::new(b).jwks());
    }

    #[test]
    fn a_bad_secret_names_the_key_and_why() {
        let short = SigningKey::from_base64url("k1", "c2hvcnQ").expect_err("short");
        assert_eq!(
            short.to_string(),
            "invalid signing key `k1`: the secret is not 32 bytes"
        );
        let text = SigningKey::from_base64url("k2", "not base64!").expect_err("text");
        assert_eq!(
            text.to_string(),
            "invalid signing key `k2`: the secret is not base64url"
        );
        let zero = SigningKey::from_base64url("k3", &URL_SAFE_NO_PAD.encode([0u8; 32]));
        assert_eq!(
            zero.expect_err("zero").to_string(),
            "invalid signing key `k3`: the secret is not a P-256 scalar"
        );
        let unnamed = SigningKey::from_base64url("", "x").expect_err("no kid");
        assert_eq!(
            unnamed.to_string(),
            "invalid signing key ``: the key id is empty"
        );
    }

    #[test]
    fn debug_shows_no_secret() {
        let secret = "qOkS1Ve5QTnE5dBf5R3rdf2zHzM2P7-Nnl2bUO-7BPg";
        let key = SigningKey::from_base64url("k1", secret).expect("key");
        let shown = format!("{:?}", Keyring::new(key));
        assert!(
            !shown.contains(secret) && shown.contains("<redacted>"),
            "{shown}"
        );
    }
}
