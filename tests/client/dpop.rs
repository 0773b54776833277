//! DPoP (RFC 9449, feature `oauth`) against the scripted servers: a proof on the token request
//! and on each MCP request, signed by the client's key, `Authorization: DPoP`, and the nonces
//! both servers ask for; none of the proofs logged.

use base64::Engine as _;
use phantom::client::OAuth;
use serde_json::{Value, json};
use sha2::Digest as _;

use crate::oauth::Captured;
use crate::scripted::{REDIRECT, Script, TOKEN, claims, connect, servers};

/// The proof's claims, its signature checked with the key in its own header.
fn verified(proof: &str) -> Value {
    let header = jsonwebtoken::decode_header(proof).expect("a JWT header");
    assert_eq!(header.typ.as_deref(), Some("dpop+jwt"));
    let jwk = header.jwk.expect("the public key in the header");
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    validation.validate_aud = false;
    let key = jsonwebtoken::DecodingKey::from_jwk(&jwk).expect("an EC key");
    jsonwebtoken::decode::<Value>(proof, &key, &validation)
        .expect("signed with the key it names")
        .claims
}

#[tokio::test]
async fn proofs_go_with_the_token_request_and_each_request_with_the_nonces_asked() {
    let (captured, _guard) = Captured::trace();
    let (base, script) = servers(Script {
        dpop: true,
        dpop_nonce: Some("the-nonce"),
        ..Script::default()
    })
    .await;
    let client = connect(&base, OAuth::new(REDIRECT).dpop())
        .await
        .expect("connects with a DPoP-bound token");
    client.list_tools(None).await.expect("tools");
    let result = client.call_tool("echo", json!({})).await.expect("call");
    assert_eq!(result.text_content(), "authorized");
    let script = script.lock().unwrap();

    // The token request: refused for want of the nonce, then sent again with it.
    assert_eq!(script.token_proofs.len(), 2, "{:?}", script.token_proofs);
    let nonces: Vec<Value> = script
        .token_proofs
        .iter()
        .map(|p| claims(p)["nonce"].clone())
        .collect();
    assert_eq!(nonces, [Value::Null, json!("the-nonce")]);
    for proof in &script.token_proofs {
        let claims = verified(proof);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], format!("{base}/token"));
        assert!(claims.get("ath").is_none(), "no token yet: {claims}");
    }

    // The MCP requests: the first refused for want of the nonce, every one with a fresh proof
    // bound to the token.
    let ath = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(TOKEN));
    let all: Vec<Value> = script.proofs.iter().map(|p| verified(p)).collect();
    assert!(all.len() >= 4, "{all:?}");
    assert!(all[0].get("nonce").is_none());
    let mut jtis = std::collections::HashSet::new();
    for claims in &all {
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], format!("{base}/mcp"));
        assert_eq!(claims["ath"], ath);
        assert!(claims["iat"].as_u64().is_some());
        assert!(jtis.insert(claims["jti"].to_string()), "a jti used twice");
    }
    assert!(all[1..].iter().all(|c| c["nonce"] == "the-nonce"));

    let log = captured.text();
    for proof in script.token_proofs.iter().chain(&script.proofs) {
        assert!(
            !log.contains(proof.as_str()),
            "a proof is in the log:\n{log}"
        );
    }
}
