//! OAuth resource-server behaviour of the `notes` example (`examples/notes.rs`) over real HTTP,
//! with real signed JWTs: 401 challenges for missing and refused tokens, 403 `insufficient_scope`
//! for a tool's scopes and for a handler's own decision, and a legacy session bound to the subject
//! that opened it.

use http::StatusCode;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use crate::support::{LEGACY, TestServer, initialize_request, request};

// The example is a binary; its router is compiled here as a module so the tests drive that code.
#[path = "../../examples/notes.rs"]
#[allow(dead_code)]
mod notes;

const ED_KEY: &str = include_str!("../../examples/notes/dev-ed25519.pem");
const RSA_KEY: &str = include_str!("../../examples/notes/dev-rsa.pem");

/// A signing key of the example's authorization server.
#[derive(Clone, Copy)]
enum Key {
    Ed25519,
    Rsa,
}

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

/// Claims of a token of `sub` granting `scope`, valid for ten minutes.
fn claims(sub: &str, scope: &str) -> Value {
    json!({
        "iss": notes::ISSUER, "aud": notes::AUDIENCE, "sub": sub, "scope": scope,
        "iat": now(), "exp": now() + 600,
    })
}

fn sign(key: Key, claims: &Value) -> String {
    let (alg, kid, encoding) = match key {
        Key::Ed25519 => (
            Algorithm::EdDSA,
            "dev-ed25519",
            EncodingKey::from_ed_pem(ED_KEY.as_bytes()).expect("the Ed25519 key"),
        ),
        Key::Rsa => (
            Algorithm::RS256,
            "dev-rsa",
            EncodingKey::from_rsa_pem(RSA_KEY.as_bytes()).expect("the RSA key"),
        ),
    };
    let mut header = Header::new(alg);
    header.kid = Some(kid.into());
    jsonwebtoken::encode(&header, claims, &encoding).expect("a signed token")
}

fn token(sub: &str, scope: &str) -> String {
    sign(Key::Ed25519, &claims(sub, scope))
}

async fn server() -> TestServer {
    TestServer::start_configured(
        notes::Notes::default(),
        notes::config(),
        notes::http_config(),
    )
    .await
}

fn call(id: u64, tool: &str, arguments: &Value) -> Value {
    request(
        id,
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
    )
}

/// A 2026-07-28 `tools/call` with `token`: the status, the challenge, the body.
pub(crate) async fn modern_call(
    server: &TestServer,
    token: Option<&str>,
    tool: &str,
    arguments: Value,
) -> (StatusCode, Option<String>, Value) {
    let mut post = server.post_modern(
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
    );
    if let Some(t) = token {
        post = post.header("authorization", &format!("Bearer {t}"));
    }
    let reply = post.send().await;
    let challenge = reply.header("www-authenticate").map(str::to_owned);
    (reply.status, challenge, reply.json().await)
}

/// Opens a legacy session with `token`; the session id.
async fn open(server: &TestServer, token: &str) -> String {
    let bearer = format!("Bearer {token}");
    let reply = server
        .post(&initialize_request(LEGACY))
        .header("authorization", &bearer)
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK, "initialize");
    let session = reply.session_id().expect("a session id");
    let _ = reply.text().await;
    let done = server
        .post_in(
            &session,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .header("authorization", &bearer)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await;
    assert_eq!(done.status, StatusCode::ACCEPTED);
    session
}

/// A legacy request in `session` with `token`: the status, the challenge, the body.
async fn legacy_call(
    server: &TestServer,
    session: &str,
    token: &str,
    body: &Value,
) -> (StatusCode, Option<String>, Value) {
    let reply = server
        .post_in(session, body)
        .header("authorization", &format!("Bearer {token}"))
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await;
    let challenge = reply.header("www-authenticate").map(str::to_owned);
    let status = reply.status;
    let text = reply.text().await;
    // A 200 may be an SSE stream of one event; its data line is the response.
    let json = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .map_or_else(|| serde_json::from_str(&text), serde_json::from_str)
        .unwrap_or(Value::Null);
    (status, challenge, json)
}

fn invalid_token(description: &str) -> String {
    format!(
        "Bearer error=\"invalid_token\", error_description=\"{description}\", resource_metadata=\"{}\"",
        notes::METADATA
    )
}

fn insufficient(what: &str, scopes: &[&str]) -> String {
    let list = scopes
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "Bearer error=\"insufficient_scope\", error_description=\"{what} needs the scopes {list}\", scope=\"{}\", resource_metadata=\"{}\"",
        scopes.join(" "),
        notes::METADATA
    )
}

#[tokio::test]
async fn a_request_without_a_token_is_challenged_with_the_metadata_url() {
    let server = server().await;
    let bare = format!("Bearer resource_metadata=\"{}\"", notes::METADATA);
    let (status, challenge, body) = modern_call(&server, None, "whoami", json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(challenge.as_deref(), Some(bare.as_str()));
    assert_eq!(body["error"]["code"], -32001);

    let reply = server.post(&initialize_request(LEGACY)).send().await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(reply.header("www-authenticate"), Some(bare.as_str()));
    assert!(reply.session_id().is_none(), "no session without a token");

    // The document the challenge names is served beside the endpoint, to any origin.
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let reply = server.request(http::Method::GET).path(path).send().await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
        let metadata = reply.json().await;
        assert_eq!(metadata["resource"], notes::AUDIENCE);
        assert_eq!(metadata["authorization_servers"], json!([notes::ISSUER]));
        assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
    }
    let other = server
        .request(http::Method::GET)
        .path("/.well-known/other")
        .send()
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn refused_tokens_get_401_invalid_token_with_the_reason_and_never_the_token() {
    let server = server().await;
    let good = claims("ada", "notes:read");
    let with = |key: &str, value: Value| {
        let mut c = good.clone();
        c[key] = value;
        c
    };
    let without = |key: &str| {
        let mut c = good.clone();
        c.as_object_mut().expect("claims").remove(key);
        c
    };
    let tampered = {
        let t = token("ada", "notes:read");
        let (rest, sig) = t.rsplit_once('.').expect("three parts");
        let flipped = if sig.starts_with('A') { "B" } else { "A" };
        format!("{rest}.{flipped}{}", &sig[1..])
    };
    // A token that says it is HMAC-signed, keyed with the RSA public key's text (the classic
    // algorithm confusion), and one that says it is not signed at all.
    let confused = {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("dev-rsa".into());
        let public = include_str!("../../examples/notes/jwks.json");
        let key = EncodingKey::from_secret(public.as_bytes());
        jsonwebtoken::encode(&header, &good, &key).expect("an HMAC token")
    };
    let unsigned = {
        use base64::Engine as _;
        let b64 = |v: &Value| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string().as_bytes())
        };
        format!(
            "{}.{}.",
            b64(&json!({"alg": "none", "typ": "JWT"})),
            b64(&good)
        )
    };
    let unknown_kid = {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some("rotated-away".into());
        let key = EncodingKey::from_ed_pem(ED_KEY.as_bytes()).expect("key");
        jsonwebtoken::encode(&header, &good, &key).expect("a token")
    };
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "expired",
            sign(Key::Ed25519, &with("exp", json!(now() - 300))),
            "the token has expired",
        ),
        (
            "not yet valid",
            sign(Key::Ed25519, &with("nbf", json!(now() + 300))),
            "the token is not valid yet",
        ),
        (
            "another audience",
            sign(
                Key::Ed25519,
                &with("aud", json!("https://other.example/mcp")),
            ),
            "the token was issued for another audience",
        ),
        (
            "no audience",
            sign(Key::Ed25519, &without("aud")),
            "the token is malformed: it has no `aud` claim",
        ),
        (
            "another issuer",
            sign(Key::Rsa, &with("iss", json!("https://evil.example"))),
            "the token was issued by an untrusted issuer",
        ),
        (
            "no subject",
            sign(Key::Ed25519, &without("sub")),
            "the token is malformed: it has no `sub` claim",
        ),
        (
            "no expiry",
            sign(Key::Ed25519, &without("exp")),
            "the token is malformed: it has no `exp` claim",
        ),
        (
            "tampered signature",
            tampered,
            "the token's signature does not verify",
        ),
        (
            "HS256 keyed with the public key",
            confused,
            "the token's signature does not verify",
        ),
        (
            "alg none",
            unsigned,
            "the token is malformed: it is not a signed JWT",
        ),
        (
            "unknown kid",
            unknown_kid,
            "the token's signing key is not trusted",
        ),
        (
            "not a JWT",
            "opaque-guess".into(),
            "the token is malformed: it is not a signed JWT",
        ),
    ];
    for (what, token, reason) in &cases {
        let (status, challenge, body) =
            modern_call(&server, Some(token), "whoami", json!({})).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}");
        assert_eq!(
            challenge.as_deref(),
            Some(invalid_token(reason).as_str()),
            "{what}"
        );
        assert_eq!(body["error"]["code"], -32001, "{what}");
        let text = body.to_string();
        assert!(
            !text.contains(token.as_str())
                && !challenge.unwrap_or_default().contains(token.as_str()),
            "{what}: the answer echoes the token"
        );
    }
    // The server is still healthy, and both keys of the JWKS verify.
    for key in [Key::Ed25519, Key::Rsa] {
        let t = sign(key, &claims("ada", "notes:read"));
        let (status, _, body) = modern_call(&server, Some(&t), "whoami", json!({})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(
            body["result"]["structuredContent"],
            json!({"subject": "ada", "scopes": ["notes:read"]})
        );
    }
}

#[tokio::test]
async fn a_tool_whose_scopes_the_token_lacks_gets_403_insufficient_scope() {
    let server = server().await;
    let reader = token("ada", "notes:read");
    let (status, _, _) = modern_call(&server, Some(&reader), "list_notes", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, challenge, body) =
        modern_call(&server, Some(&reader), "add_note", json!({"text": "hi"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        challenge.as_deref(),
        Some(insufficient("tool `add_note`", &["notes:write"]).as_str())
    );
    assert_eq!(body["error"]["code"], -32001);
    assert_eq!(
        body["error"]["data"],
        json!({"requiredScopes": ["notes:write"]})
    );
    // A token without any scope may still use a tool that needs none.
    let bare = token("ada", "");
    let (status, _, _) = modern_call(&server, Some(&bare), "whoami", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, _) = modern_call(&server, Some(&bare), "list_notes", json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // The same in a legacy session, which nothing is added to.
    let session = open(&server, &reader).await;
    let (status, challenge, body) = legacy_call(
        &server,
        &session,
        &reader,
        &call(2, "add_note", &json!({"text": "x"})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        challenge.as_deref(),
        Some(insufficient("tool `add_note`", &["notes:write"]).as_str())
    );
    let (status, _, body) = legacy_call(
        &server,
        &session,
        &reader,
        &call(3, "list_notes", &json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["structuredContent"], json!({"result": []}));
}

#[tokio::test]
async fn a_handler_decides_that_another_authors_note_needs_notes_admin() {
    let server = server().await;
    let ada = token("ada", "notes:read notes:write");
    let (status, _, body) =
        modern_call(&server, Some(&ada), "add_note", json!({"text": "mine"})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["result"]["structuredContent"]["author"], "ada");

    let bob = token("bob", "notes:write");
    let (status, challenge, body) =
        modern_call(&server, Some(&bob), "delete_note", json!({"id": 1})).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        challenge.as_deref(),
        Some(insufficient("this call", &["notes:admin"]).as_str())
    );
    assert_eq!(
        body["error"]["data"],
        json!({"requiredScopes": ["notes:admin"]})
    );

    let admin = token("bob", "notes:write notes:admin");
    let (status, _, body) =
        modern_call(&server, Some(&admin), "delete_note", json!({"id": 1})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "deleted note 1");
}

#[tokio::test]
async fn a_legacy_session_keeps_its_subject_and_steps_up_with_a_new_token() {
    let server = server().await;
    let reader = token("ada", "notes:read");
    let session = open(&server, &reader).await;

    // Step-up: the same subject, a token with more scopes, the same session.
    let writer = token("ada", "notes:read notes:write");
    let (status, _, body) = legacy_call(
        &server,
        &session,
        &writer,
        &call(2, "add_note", &json!({"text": "stepped up"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["structuredContent"]["author"], "ada");

    // Another subject's valid token cannot use ada's session: it is not found for them.
    let bob = token("bob", "notes:read notes:write");
    let (status, _, body) =
        legacy_call(&server, &session, &bob, &call(3, "list_notes", &json!({}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error"]["code"], -32001);

    // ada's token once expired is refused, and ada's session still works with a fresh one.
    let expired = sign(Key::Ed25519, &{
        let mut c = claims("ada", "notes:read");
        c["exp"] = json!(now() - 300);
        c
    });
    let (status, challenge, _) = legacy_call(
        &server,
        &session,
        &expired,
        &call(4, "list_notes", &json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge.as_deref(),
        Some(invalid_token("the token has expired").as_str())
    );
    let (status, _, body) = legacy_call(
        &server,
        &session,
        &reader,
        &call(5, "list_notes", &json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body["result"]["structuredContent"]["result"][0]["text"],
        "stepped up"
    );
}

/// A verifier with a bug.
struct Panics;

impl phantom::auth::TokenVerifier for Panics {
    async fn verify(
        &self,
        _token: &str,
    ) -> Result<phantom::auth::AuthInfo, phantom::auth::InvalidToken> {
        panic!("a bug in the verifier")
    }
}

#[tokio::test]
async fn a_panicking_verifier_refuses_the_token_and_the_server_goes_on() {
    use phantom::testing::Client;
    use phantom::{auth::WwwAuthenticate, dispatch::Status};

    let config =
        phantom::Config::default().with_bearer_auth(phantom::auth::BearerAuth::new(Panics));
    let mut client = Client::builder(notes::Notes::default())
        .config(config)
        .header("authorization", "Bearer anything")
        .modern();
    for _ in 0..2 {
        let refused = client.call_tool("whoami", json!({})).await;
        assert_eq!(
            refused.status(),
            &Status::Unauthorized(Box::new(
                WwwAuthenticate::bearer()
                    .error("invalid_token")
                    .error_description("the token could not be verified")
            ))
        );
        refused.assert_error(-32001);
        assert!(
            !refused
                .error()
                .to_string()
                .contains("a bug in the verifier")
        );
    }
}
