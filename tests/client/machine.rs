//! The OAuth grants without a user (feature `oauth`) against the scripted authorization server:
//! client credentials with a secret and with a signed assertion (`private_key_jwt`), and the
//! JWT bearer grant with the application's assertion or with an ID-JAG from an identity
//! provider's token exchange; none of their secrets logged.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use std::sync::Arc;

use phantom::client::{AuthStep, ClientError, MemoryTokenStore, OAuth, TokenStore as _, Tokens};
use serde_json::{Value, json};

use crate::oauth::Captured;
use crate::scripted::{
    ID_JAG, MACHINE, REFRESH, REFRESHED, Script, Shared, TOKEN, connect, servers,
};

/// An EC P-256 key for these tests only, and its public half.
const PRIVATE_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQguKLDYQ18wkUfiQdA
+/F40KLAn/k11iUWi2Wf7+0ltCWhRANCAASMiy7V5odXvQovr73b7bdmQfvJ270u
aepmIctoh5b+SEq7QjyisH8XWwxW+uqZAd+6Nrff9RE8UdFQymYFkdty
-----END PRIVATE KEY-----
";
const PUBLIC_KEY: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEjIsu1eaHV70KL6+92+23ZkH7ydu9
LmnqZiHLaIeW/khKu0I8orB/F1sMVvrqmQHfuja33/URPFHRUMpmBZHbcg==
-----END PUBLIC KEY-----
";

const SECRET: &str = "the-client-secret";

/// Connects with `oauth`, lists the tools, then calls one after the server stopped taking the
/// first token (so the client refreshes).
async fn run_then_refresh(base: &str, script: &Shared, oauth: OAuth) {
    let client = connect(base, oauth).await.expect("connects with a token");
    client.list_tools(None).await.expect("tools");
    script.lock().unwrap().valid = Some(REFRESHED);
    let result = client.call_tool("echo", json!({})).await.expect("call");
    assert_eq!(result.text_content(), "authorized");
    let script = script.lock().unwrap();
    let counts = [
        script.authorizations,
        script.registrations,
        script.refreshes,
    ];
    assert_eq!(
        counts,
        [0, 0, 1],
        "no authorization, no registration, one refresh"
    );
}

/// An unsigned JWT with `claims` (the scripted server does not check the assertion's
/// signature: the application's identity provider signed it).
fn workload_jwt(claims: &Value) -> String {
    format!(
        "{}.{}.c2lnbmF0dXJl",
        URL_SAFE_NO_PAD.encode(br#"{"alg":"ES256","typ":"JWT"}"#),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    )
}

fn in_a_minute() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 60
}

#[tokio::test]
async fn two_machine_clients_sharing_a_store_ask_once_for_the_token_that_expired() {
    let (base, script) = servers(Script::default()).await;
    script.lock().unwrap().machine_without_refresh = true;
    let resource = format!("{base}/mcp");
    let store = Arc::new(MemoryTokenStore::new());
    store
        .save(&resource, Tokens::new("expired-token").with_expires_at(1))
        .await
        .expect("save");
    let oauth = || OAuth::client_credentials(MACHINE, SECRET).token_store(Arc::clone(&store));
    let (a, b) = tokio::join!(connect(&base, oauth()), connect(&base, oauth()));
    let (a, b) = (a.expect("a connects"), b.expect("b connects"));
    a.call_tool("echo", json!({})).await.expect("a calls");
    b.call_tool("echo", json!({})).await.expect("b calls");
    let kept = store.load(&resource).await.expect("load").expect("kept");
    assert_eq!(kept.access_token, TOKEN);
    assert_eq!(kept.refresh_token, None);
    let script = script.lock().unwrap();
    assert_eq!(
        (script.machine_grants, script.unauthorized),
        (1, 0),
        "one grant between the two clients, before any request (none refused)"
    );
    // No refresh token is asked for a grant without a user.
    let token = script.token.as_ref().expect("a token request");
    assert!(
        !token
            .get("scope")
            .is_some_and(|s| s.contains("offline_access")),
        "{token:?}"
    );
}

#[tokio::test]
async fn client_credentials_get_a_token_with_basic_auth_and_the_resource() {
    let (base, script) = servers(Script::default()).await;
    run_then_refresh(&base, &script, OAuth::client_credentials(MACHINE, SECRET)).await;
    let script = script.lock().unwrap();
    let token = script.token.as_ref().expect("a token request");
    assert_eq!(token["grant_type"], "client_credentials");
    assert_eq!(token["resource"], format!("{base}/mcp"));
    assert!(!token.contains_key("client_secret"), "{token:?}");
    assert_eq!(
        script.token_authorization.as_deref(),
        Some(format!("Basic {}", STANDARD.encode(format!("{MACHINE}:{SECRET}"))).as_str())
    );
}

#[tokio::test]
async fn private_key_jwt_signs_a_client_assertion_for_the_issuer() {
    let (base, script) = servers(Script::default()).await;
    run_then_refresh(
        &base,
        &script,
        OAuth::private_key_jwt(MACHINE, PRIVATE_KEY, "ES256"),
    )
    .await;
    let script = script.lock().unwrap();
    let token = script.token.as_ref().expect("a token request");
    assert_eq!(token["grant_type"], "client_credentials");
    assert_eq!(
        token["client_assertion_type"],
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    );
    assert!(script.token_authorization.is_none(), "no secret sent");
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    validation.set_audience(&[&base]);
    validation.set_issuer(&[MACHINE]);
    let claims = jsonwebtoken::decode::<Value>(
        &token["client_assertion"],
        &jsonwebtoken::DecodingKey::from_ec_pem(PUBLIC_KEY.as_bytes()).unwrap(),
        &validation,
    )
    .expect("an assertion signed with the key, for the issuer")
    .claims;
    assert_eq!(claims["sub"], MACHINE);
    assert!(claims["jti"].as_str().is_some_and(|j| !j.is_empty()));
    assert!(claims["exp"].as_u64().unwrap() <= in_a_minute());
}

#[tokio::test]
async fn a_key_that_does_not_fit_names_the_token_step() {
    let (base, script) = servers(Script::default()).await;
    match connect(&base, OAuth::private_key_jwt(MACHINE, "not a key", "ES256")).await {
        Err(ClientError::Auth {
            step: AuthStep::Token,
            message,
        }) => assert!(message.contains("not a ES256 key"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert!(script.lock().unwrap().token.is_none(), "nothing sent");
}

#[tokio::test]
async fn the_jwt_bearer_grant_sends_the_applications_assertion_each_time() {
    let (base, script) = servers(Script::default()).await;
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (b, a) = (base.clone(), std::sync::Arc::clone(&asked));
    let oauth = OAuth::jwt_bearer(MACHINE, move || {
        a.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let jwt = workload_jwt(&json!({"aud": b, "exp": in_a_minute(), "sub": "workload"}));
        async move { Ok(jwt) }
    });
    run_then_refresh(&base, &script, oauth).await;
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1);
    let script = script.lock().unwrap();
    let token = script.token.as_ref().expect("a token request");
    assert_eq!(
        token["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert!(token["assertion"].starts_with("eyJ"), "{token:?}");
    assert_eq!(token["client_id"], MACHINE);
}

/// The user's ID token at the scripted identity provider.
const ID_TOKEN: &str = "the-users-id-token";

fn enterprise_managed(base: &str) -> OAuth {
    OAuth::enterprise_managed(
        MACHINE,
        Some(SECRET),
        &format!("{base}/idp/token"),
        "idp-client",
        || async { Ok(ID_TOKEN.to_owned()) },
    )
}

#[tokio::test]
async fn enterprise_managed_exchanges_the_id_token_for_an_id_jag_and_sends_it() {
    let (base, script) = servers(Script::default()).await;
    run_then_refresh(&base, &script, enterprise_managed(&base)).await;
    let script = script.lock().unwrap();
    let exchange = script.exchange.as_ref().expect("a token exchange");
    let resource = format!("{base}/mcp");
    for (name, value) in [
        (
            "grant_type",
            "urn:ietf:params:oauth:grant-type:token-exchange",
        ),
        ("subject_token", ID_TOKEN),
        (
            "subject_token_type",
            "urn:ietf:params:oauth:token-type:id_token",
        ),
        (
            "requested_token_type",
            "urn:ietf:params:oauth:token-type:id-jag",
        ),
        ("audience", &base),
        ("resource", &resource),
        ("client_id", "idp-client"),
    ] {
        assert_eq!(exchange[name], value, "{name}");
    }
    let token = script.token.as_ref().expect("a token request");
    assert_eq!(
        token["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(token["assertion"], ID_JAG);
    assert!(
        script
            .token_authorization
            .as_deref()
            .is_some_and(|a| a.starts_with("Basic "))
    );
}

#[tokio::test]
async fn an_expired_assertion_or_one_for_another_server_is_not_sent() {
    for (claims, why) in [
        (json!({"exp": 1}), "expired"),
        (
            json!({"aud": "https://wrong.example", "exp": in_a_minute()}),
            "not for the authorization server",
        ),
    ] {
        let (base, script) = servers(Script::default()).await;
        let mut claims = claims;
        if claims.get("aud").is_none() {
            claims["aud"] = json!(base);
        }
        let jwt = workload_jwt(&claims);
        let oauth = OAuth::jwt_bearer(MACHINE, move || {
            let jwt = jwt.clone();
            async move { Ok(jwt) }
        });
        match connect(&base, oauth).await {
            Err(ClientError::Auth {
                step: AuthStep::Token,
                message,
            }) => assert!(message.contains(why), "{message}"),
            other => panic!("{claims}: {other:?}"),
        }
        assert!(script.lock().unwrap().token.is_none(), "nothing sent");
    }
}

#[tokio::test]
async fn no_secret_key_or_assertion_of_the_machine_grants_is_logged_even_at_trace() {
    let (captured, _guard) = Captured::trace();
    let mut sent = Vec::new();
    for oauth in [
        OAuth::client_credentials(MACHINE, SECRET),
        OAuth::private_key_jwt(MACHINE, PRIVATE_KEY, "ES256"),
    ] {
        assert!(
            !format!("{oauth:?}").contains(SECRET) && !format!("{oauth:?}").contains("MIGH"),
            "{oauth:?}"
        );
        let (base, script) = servers(Script::default()).await;
        run_then_refresh(&base, &script, oauth).await;
        let token = script
            .lock()
            .unwrap()
            .token
            .clone()
            .expect("a token request");
        sent.extend(token.get("client_assertion").cloned());
    }
    let (base, script) = servers(Script::default()).await;
    let jwt = workload_jwt(&json!({"aud": base, "exp": in_a_minute()}));
    let j = jwt.clone();
    let oauth = OAuth::jwt_bearer(MACHINE, move || {
        let jwt = j.clone();
        async move { Ok(jwt) }
    });
    run_then_refresh(&base, &script, oauth).await;
    let (base, script) = servers(Script::default()).await;
    run_then_refresh(&base, &script, enterprise_managed(&base)).await;
    let log = captured.text();
    assert!(log.contains("tokens received"), "the flow logged: {log}");
    let key_line = PRIVATE_KEY.lines().nth(1).unwrap();
    for secret in [
        TOKEN, REFRESHED, REFRESH, SECRET, key_line, &jwt, ID_TOKEN, ID_JAG,
    ]
    .into_iter()
    .chain(sent.iter().map(String::as_str))
    {
        assert!(!log.contains(secret), "`{secret}` is in the log:\n{log}");
    }
}
