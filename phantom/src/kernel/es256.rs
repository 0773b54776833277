//! ES256 (P-256) keys as JOSE uses them: a key made at random, its public half as a JWK, and a
//! compact JWS signed with it. Shared by the client's DPoP proofs and the authorization server's
//! tokens.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{Value, json};

/// A new key from the system's random source.
pub(crate) fn new_key() -> SigningKey {
    loop {
        // A random scalar is a valid key but for a chance of about 2^-128.
        if let Ok(key) = SigningKey::from_bytes(&super::random_bytes::<32>().into()) {
            return key;
        }
    }
}

/// The public half of `key` as a JWK: `kty`, `crv`, `x`, `y`.
pub(crate) fn public_jwk(key: &SigningKey) -> Value {
    let point = key.verifying_key().to_encoded_point(false);
    let coordinate = |c: Option<&p256::FieldBytes>| {
        URL_SAFE_NO_PAD.encode(c.map(|c| c.as_slice()).unwrap_or_default())
    };
    json!({
        "kty": "EC",
        "crv": "P-256",
        "x": coordinate(point.x()),
        "y": coordinate(point.y()),
    })
}

/// The compact JWS of `claims` under `header`, signed with `key`.
pub(crate) fn sign(key: &SigningKey, header: &Value, claims: &Value) -> String {
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature: Signature = key.sign(input.as_bytes());
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
}
