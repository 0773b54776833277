//! DPoP (RFC 9449, feature `oauth`) against the scripted servers: a proof on the token request
//! and on each MCP request, signed by the client's key, `Authorization: DPoP`, and the nonces
//! both servers ask for; none of the proofs logged.

use base64::Engine as _;
use phantom::client::OAuth;
use serde_json::{Value, json};
use sha2::Digest as _;

use crate::oauth::Captured;
use crate::scripted::{MACHINE, REDIRECT, Script, TOKEN, claims, connect, servers};

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

#[tokio::test]
async fn a_token_issued_as_bearer_is_sent_as_bearer_without_a_proof() {
    // An authorization server without DPoP ignores the proof and answers `token_type`
    // `Bearer` (RFC 9449 §5): the token is bound to nothing, and the server wants it as a
    // bearer token.
    let (base, script) = servers(Script::default()).await;
    let client = connect(&base, OAuth::new(REDIRECT).dpop())
        .await
        .expect("connects with the bearer token");
    let result = client.call_tool("echo", json!({})).await.expect("call");
    assert_eq!(result.text_content(), "authorized");
    let script = script.lock().unwrap();
    assert!(
        script
            .seen
            .iter()
            .skip(1)
            .all(|a| a == &format!("Bearer {TOKEN}")),
        "{:?}",
        script.seen
    );
    assert_eq!(script.unauthorized, 1, "only the request before the flow");
}

#[tokio::test]
async fn the_servers_next_nonce_is_taken_from_any_answer_not_only_a_refusal() {
    let (base, script) = servers(Script {
        dpop: true,
        dpop_nonce: Some("the-nonce"),
        dpop_next_nonce: Some("next-nonce"),
        ..Script::default()
    })
    .await;
    let client = connect(&base, OAuth::new(REDIRECT).dpop())
        .await
        .expect("connects");
    client.list_tools(None).await.expect("tools");
    client.call_tool("echo", json!({})).await.expect("call");
    let script = script.lock().unwrap();
    let nonces: Vec<Value> = script
        .proofs
        .iter()
        .map(|p| claims(p)["nonce"].clone())
        .collect();
    // Refused once for want of a nonce; then the first served answer gave the next one, which
    // every later proof carries: no second refusal.
    assert_eq!(nonces[..2], [Value::Null, json!("the-nonce")], "{nonces:?}");
    assert!(nonces.len() >= 4, "{nonces:?}");
    assert!(nonces[2..].iter().all(|n| n == "next-nonce"), "{nonces:?}");
}

#[tokio::test]
async fn a_grant_without_a_user_gets_a_dpop_bound_token_too() {
    let (base, script) = servers(Script {
        dpop: true,
        ..Script::default()
    })
    .await;
    let client = connect(&base, OAuth::client_credentials(MACHINE, "a-secret").dpop())
        .await
        .expect("connects with a DPoP-bound token");
    let result = client.call_tool("echo", json!({})).await.expect("call");
    assert_eq!(result.text_content(), "authorized");
    let script = script.lock().unwrap();
    assert_eq!(script.machine_grants, 1);
    assert_eq!(
        script.token_proofs.len(),
        1,
        "a proof with the token request"
    );
    let proof = verified(&script.token_proofs[0]);
    assert_eq!(proof["htu"], format!("{base}/token"));
    assert!(
        script
            .seen
            .iter()
            .skip(1)
            .all(|a| a == &format!("DPoP {TOKEN}")),
        "{:?}",
        script.seen
    );
    assert!(!script.proofs.is_empty());
}
