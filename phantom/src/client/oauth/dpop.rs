//! DPoP (RFC 9449): the client's key pair, made once per client and never stored, and the proof
//! JWT it signs for each token request and each request to the server.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::ecdsa::SigningKey;
use serde_json::json;

use crate::kernel::es256;
use sha2::Digest as _;

use crate::kernel::Locked as _;

/// A DPoP key pair (ES256); its `Debug` shows the public key only.
pub(super) struct DpopKey {
    key: SigningKey,
    /// The public key as a JWK, for the proofs' `jwk` header.
    jwk: serde_json::Value,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("private", &"<redacted>")
            .field("jwk", &self.jwk)
            .finish()
    }
}

impl DpopKey {
    /// A new key pair from the system's random source.
    pub(super) fn new() -> Self {
        let key = es256::new_key();
        let jwk = es256::public_jwk(&key);
        Self { key, jwk }
    }

    /// A proof for a `method` request to `url` (its query and fragment left out), with the
    /// server's `nonce` and, for a request that carries it, the access token's hash (`ath`).
    pub(super) fn proof(
        &self,
        method: &str,
        url: &str,
        nonce: Option<&str>,
        access_token: Option<&str>,
    ) -> String {
        let htu = url.split(['?', '#']).next().unwrap_or(url);
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk});
        let mut claims = json!({
            "jti": crate::kernel::random_id::<16>(),
            "htm": method,
            "htu": htu,
            "iat": super::now(),
        });
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        if let Some(token) = access_token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(token.as_bytes())));
        }
        es256::sign(&self.key, &header, &claims)
    }
}

/// Whether an answer asks for a DPoP nonce (RFC 9449 §8 at the token endpoint, §9 at the
/// resource): its `DPoP-Nonce`, when it does.
pub(super) fn nonce_asked(headers: &http::HeaderMap, error: Option<&str>) -> Option<String> {
    let asked = error == Some("use_dpop_nonce")
        || headers
            .get_all(http::header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.contains("use_dpop_nonce"));
    asked.then(|| headers.get("dpop-nonce")?.to_str().ok().map(str::to_owned))?
}

/// DPoP for one client: its key and the nonces its authorization server and its MCP server
/// gave last (RFC 9449 §8, §9).
#[derive(Debug)]
pub(super) struct Dpop {
    key: DpopKey,
    token_nonce: std::sync::Mutex<Option<String>>,
    resource_nonce: std::sync::Mutex<Option<String>>,
}

impl Dpop {
    pub(super) fn new() -> Self {
        Self {
            key: DpopKey::new(),
            token_nonce: std::sync::Mutex::default(),
            resource_nonce: std::sync::Mutex::default(),
        }
    }

    /// A proof for a token request.
    pub(super) fn proof_for_token(&self, method: &str, url: &str) -> String {
        let nonce = self.token_nonce.locked().clone();
        self.key.proof(method, url, nonce.as_deref(), None)
    }

    /// A proof for a request to the server carrying `access_token`.
    pub(super) fn proof_for_resource(&self, method: &str, url: &str, access_token: &str) -> String {
        let nonce = self.resource_nonce.locked().clone();
        self.key
            .proof(method, url, nonce.as_deref(), Some(access_token))
    }

    /// Keeps the nonce a token endpoint's answer gives, asked for or not (RFC 9449 §8.2: the
    /// next nonce may come with any answer): whether the answer asked for one (a refusal to
    /// send again).
    pub(super) fn token_nonce(&self, headers: &http::HeaderMap, error: Option<&str>) -> bool {
        keep(&self.token_nonce, headers);
        nonce_asked(headers, error).is_some()
    }

    /// Keeps the nonce the server's answer gives, asked for or not (RFC 9449 §9): whether the
    /// answer asked for one.
    pub(super) fn resource_nonce(&self, headers: &http::HeaderMap) -> bool {
        keep(&self.resource_nonce, headers);
        nonce_asked(headers, None).is_some()
    }
}

/// Keeps in `nonce` the `DPoP-Nonce` of `headers`, if there is one.
fn keep(nonce: &std::sync::Mutex<Option<String>>, headers: &http::HeaderMap) {
    if let Some(given) = headers.get("dpop-nonce").and_then(|v| v.to_str().ok()) {
        *nonce.locked() = Some(given.to_owned());
    }
}
