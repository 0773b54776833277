//! phantom's authorization server (`phantom::authz`, feature `authz`) over HTTP: its metadata,
//! JWKS and registration served by its router on `127.0.0.1:0`, followed by
//! `JwtVerifier::discover`, and its tokens presented to a phantom server (a scoped tool called,
//! a token for another resource refused).

use http::{Method, StatusCode};
use phantom::auth::{BearerAuth, JwtVerifier, ProtectedResource, TokenVerifier as _};
use phantom::authz::{AccessToken, AuthorizationServer, Keyring, SigningKey, Upstream};
use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::{Value, json};

use crate::bearer::modern_call;
use crate::browser::Browser;
use crate::idp::{Idp, Knobs};
use crate::signin;
use crate::support::TestServer;

const AUDIENCE: &str = "http://127.0.0.1/mcp";

/// The authorization server's router served on its own port; the issuer's URL.
async fn serving() -> (AuthorizationServer, TestServer) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("an address");
    let server = AuthorizationServer::new(
        format!("http://{addr}"),
        Keyring::new(SigningKey::generate()),
    )
    .scopes(["notes:read"]);
    let app = server.router();
    tokio::spawn(async move {
        axum::serve(listener, app).await.expect("serves");
    });
    (server, TestServer::at(addr))
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A server whose one tool needs `notes:read`.
#[derive(Clone)]
struct Notes;

#[mcp_router(name = "notes", version = "1.0.0")]
impl Notes {
    /// The caller's subject.
    #[tool(scopes = ["notes:read"])]
    async fn whoami(&self, session: &Session) -> String {
        session.principal.as_deref().unwrap_or_default().to_owned()
    }
}

#[tokio::test]
async fn the_metadata_and_jwks_are_served_and_followed_by_a_resource_server() {
    let (authz, at) = serving().await;
    let issuer = authz.metadata().issuer().to_owned();
    let metadata = at
        .request(Method::GET)
        .path("/.well-known/oauth-authorization-server")
        .send()
        .await;
    assert_eq!(metadata.status, StatusCode::OK);
    assert_eq!(metadata.header("access-control-allow-origin"), Some("*"));
    let metadata = metadata.json().await;
    assert_eq!(metadata["issuer"], issuer.as_str());
    assert_eq!(metadata["jwks_uri"], format!("{issuer}/jwks.json"));
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(metadata["scopes_supported"], json!(["notes:read"]));
    let jwks = at
        .request(Method::GET)
        .path("/jwks.json")
        .send()
        .await
        .json()
        .await;
    assert_eq!(jwks["keys"][0]["alg"], "ES256");
    assert!(
        jwks["keys"][0].get("d").is_none(),
        "no private part: {jwks}"
    );

    let verifier = JwtVerifier::discover(&issuer, AUDIENCE)
        .await
        .expect("the issuer is followed");
    let token = authz.keyring().issue(
        &AccessToken::new(&issuer, AUDIENCE, "ada", "client-1").scopes(["notes:read"]),
        now(),
    );
    let info = verifier.verify(&token).await.expect("verified");
    assert_eq!(info.subject, "ada");
    let stranger = Keyring::new(SigningKey::generate()).issue(
        &AccessToken::new(&issuer, AUDIENCE, "ada", "client-1"),
        now(),
    );
    assert!(
        verifier.verify(&stranger).await.is_err(),
        "a key the issuer does not publish is refused"
    );
}

#[tokio::test]
async fn its_tokens_call_a_scoped_tool_and_a_token_for_another_resource_is_refused() {
    let (authz, _at) = serving().await;
    let issuer = authz.metadata().issuer().to_owned();
    let verifier = authz.keyring().verifier(&issuer, AUDIENCE);
    let config = phantom::Config::default().with_bearer_auth(BearerAuth::new(verifier));
    let server = TestServer::start_configured(Notes, config, HttpConfig::default()).await;
    let issue = |audience: &str, scopes: &[&str]| {
        authz.keyring().issue(
            &AccessToken::new(&issuer, audience, "ada", "client-1").scopes(scopes.iter().copied()),
            now(),
        )
    };

    let (status, _, body) = modern_call(
        &server,
        Some(&issue(AUDIENCE, &["notes:read"])),
        "whoami",
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "ada");

    let (status, challenge, _) =
        modern_call(&server, Some(&issue(AUDIENCE, &[])), "whoami", json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        challenge.is_some_and(|c| c.contains("insufficient_scope")),
        "a token without the tool's scope"
    );

    let elsewhere = issue("https://other.example/mcp", &["notes:read"]);
    let (status, challenge, _) = modern_call(&server, Some(&elsewhere), "whoami", json!({})).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "a token for another resource"
    );
    assert!(challenge.is_some_and(|c| c.contains("invalid_token")));
}

#[tokio::test]
async fn registration_answers_201_or_the_rfc_error_never_cached() {
    let (_authz, at) = serving().await;
    let register = |body: String| {
        at.request(Method::POST)
            .path("/register")
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let made = register(json!({"redirect_uris": ["http://127.0.0.1:5173/cb"]}).to_string()).await;
    assert_eq!(made.status, StatusCode::CREATED);
    assert_eq!(made.header("cache-control"), Some("no-store"));
    let made = made.json().await;
    assert!(made["client_id"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(made["token_endpoint_auth_method"], "none");

    for (body, error) in [
        (
            json!({"redirect_uris": ["http://evil.example/cb"]}).to_string(),
            "invalid_redirect_uri",
        ),
        ("not json".to_owned(), "invalid_client_metadata"),
        (
            format!(
                r#"{{"redirect_uris":["https://a.example/cb"],"x":"{}"}}"#,
                "x".repeat(20_000)
            ),
            "invalid_client_metadata",
        ),
    ] {
        let refused = register(body).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST);
        assert_eq!(refused.header("cache-control"), Some("no-store"));
        let refused: Value = refused.json().await;
        assert_eq!(refused["error"], error, "{refused}");
        assert!(refused.get("client_id").is_none());
    }
}

#[tokio::test]
async fn served_beside_mcp_on_phantoms_own_listener() {
    let issuer = "http://127.0.0.1";
    let authz = AuthorizationServer::new(issuer, Keyring::new(SigningKey::generate()));
    let verifier = authz.keyring().verifier(issuer, AUDIENCE);
    let config = phantom::Config::default().with_bearer_auth(BearerAuth::new(verifier));
    let http = HttpConfig::default()
        .with_protected_resource(ProtectedResource::new(AUDIENCE, issuer))
        .with_authorization_server(&authz);
    let server = TestServer::start_configured(Notes, config, http).await;
    let get = |path: &'static str| server.request(Method::GET).path(path).send();

    let metadata = get("/.well-known/oauth-authorization-server")
        .await
        .json()
        .await;
    assert_eq!(metadata["issuer"], issuer);
    let resource = get("/.well-known/oauth-protected-resource")
        .await
        .json()
        .await;
    assert_eq!(resource["authorization_servers"], json!([issuer]));
    let jwks = get("/jwks.json").await.json().await;
    assert_eq!(jwks["keys"][0]["kty"], "EC");
    assert_eq!(
        get("/healthz").await.status,
        StatusCode::OK,
        "the probes still answer"
    );
    assert_eq!(get("/elsewhere").await.status, StatusCode::NOT_FOUND);
    let registered = server
        .request(Method::POST)
        .path("/register")
        .header("content-type", "application/json")
        .body(json!({"redirect_uris": ["http://localhost/cb"]}).to_string())
        .send()
        .await;
    assert_eq!(registered.status, StatusCode::CREATED);

    let token = authz.keyring().issue(
        &AccessToken::new(issuer, AUDIENCE, "ada", "client-1").scopes(["notes:read"]),
        now(),
    );
    let (status, _, body) = modern_call(&server, Some(&token), "whoami", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn no_secret_or_token_is_ever_logged() {
    let (captured, _guard) = phantom_tests::logs::Captured::trace();

    let (idp, idp_url) = Idp::start(Knobs::default()).await;
    let upstream = Upstream::oidc(&idp_url, crate::idp::CLIENT_ID, crate::idp::CLIENT_SECRET);
    let node = signin::node(upstream, &signin::Shared::default(), |a| a).await;
    let app = signin::App::register(&node, true).await;
    let browser = Browser::new();

    let consent = signin::signing_in(&browser, &node, &app, "notes:read").await;
    let cookie = consent
        .header("set-cookie")
        .and_then(|c| c.split(';').next())
        .and_then(|c| c.split_once('='))
        .map(|(_, v)| v.to_owned())
        .expect("a consent cookie");
    let form_token = consent.input("token").expect("a form token");
    let back = signin::answer(&browser, &node, &app, &consent, "allow").await;
    let code = signin::code_of(&back, &app, &node);
    let (access, refresh, _) = signin::tokens(&app.redeem(&node, &code).await);
    let reused = app.redeem(&node, &code).await;
    assert_eq!(reused.status, StatusCode::BAD_REQUEST);
    let (status, _) = signin::call(&node, &access, "whoami").await;
    assert_eq!(status, StatusCode::OK);
    let (_, refresh2, _) = signin::tokens(
        &app.token(
            &node,
            &[("grant_type", "refresh_token"), ("refresh_token", &refresh)],
        )
        .await,
    );
    let reuse = app
        .token(
            &node,
            &[("grant_type", "refresh_token"), ("refresh_token", &refresh)],
        )
        .await;
    assert_eq!(reuse.status, StatusCode::BAD_REQUEST, "a reuse, logged");
    let (status, _) = signin::call(&node, "forged.token.here", "whoami").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let started = browser
        .get(&app.authorize_url(&node, "notes:read", &[]))
        .await;
    let callback =
        signin::at_upstream(&browser, &node, &signin::to_upstream(&started, &node)).await;
    idp.stop();
    let down = browser.get(&callback).await;
    assert_eq!(
        down.status,
        StatusCode::FOUND,
        "the upstream's failure, logged"
    );

    let seen = idp.seen();
    let logged = captured.text();
    assert!(!logged.is_empty(), "the run logged something to search");
    let mut secrets: Vec<(&str, String)> = vec![
        ("the client secret", app.secret.clone().expect("a secret")),
        (
            "the upstream client secret",
            crate::idp::CLIENT_SECRET.to_owned(),
        ),
        ("the code", code),
        ("the PKCE verifier", app.verifier.clone()),
        ("the access token", access),
        ("the refresh token", refresh),
        ("the rotated refresh token", refresh2),
        ("the consent form's token", form_token),
        ("the consent cookie", cookie),
        ("the forged token", "forged.token.here".to_owned()),
    ];
    for code in seen.codes {
        secrets.push(("an upstream code", code));
    }
    for asked in seen.token {
        if let Some(verifier) = asked.get("code_verifier") {
            secrets.push(("phantom's upstream PKCE verifier", verifier.clone()));
        }
    }
    for asked in seen.authorize {
        if let Some(state) = asked.get("state") {
            secrets.push(("phantom's upstream state", state.clone()));
        }
    }
    for (what, value) in &secrets {
        assert!(
            !logged.contains(value.as_str()),
            "{what} is in the logs:\n{logged}"
        );
    }
}
