//! `JwtVerifier::discover`: a resource server that follows its issuer. A small authorization
//! server (axum, on `127.0.0.1:0`) serves metadata and a JWKS the tests rotate, counting the
//! JWKS requests; tokens are signed with the `notes` example's development keys under key ids
//! the tests choose.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode as AxumStatus, Uri};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use phantom::auth::{BearerAuth, InvalidToken, JwtVerifier, TokenVerifier as _};
use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::{Value, json};

use crate::bearer::modern_call;
use crate::support::TestServer;
use crate::telemetry::{Collect, Fields};

const AUDIENCE: &str = "http://127.0.0.1/mcp";
const ED_KEY: &str = include_str!("../../examples/notes/dev-ed25519.pem");
const RSA_KEY: &str = include_str!("../../examples/notes/dev-rsa.pem");
const PUBLIC: &str = include_str!("../../examples/notes/jwks.json");

/// The longest a verification may take here; a refetch against a stopped issuer must not hang.
const BOUND: Duration = Duration::from_secs(5);

/// What the authorization server serves, and how often its JWKS was read.
#[derive(Default)]
struct Published {
    /// Documents by path (metadata, and a JWKS at `/jwks`).
    documents: Mutex<HashMap<String, Value>>,
    /// How long the JWKS takes to answer.
    delay: Mutex<Duration>,
    /// Requests for `/jwks`.
    jwks_hits: AtomicUsize,
}

/// A running authorization server.
struct Issuer {
    base: String,
    published: Arc<Published>,
    serving: tokio::task::JoinHandle<()>,
}

async fn answer(State(published): State<Arc<Published>>, uri: Uri) -> Response {
    if uri.path() == "/jwks" {
        published.jwks_hits.fetch_add(1, Ordering::SeqCst);
        let delay = *published.delay.lock().unwrap();
        tokio::time::sleep(delay).await;
    }
    let document = published.documents.lock().unwrap().get(uri.path()).cloned();
    match document {
        Some(document) => (
            [(http::header::CONTENT_TYPE, "application/json")],
            document.to_string(),
        )
            .into_response(),
        None => AxumStatus::NOT_FOUND.into_response(),
    }
}

impl Issuer {
    async fn start() -> Self {
        let published = Arc::new(Published::default());
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&published));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let serving = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("serves");
        });
        Self {
            base,
            published,
            serving,
        }
    }

    /// An issuer at its origin, with RFC 8414 metadata and the key `k1`; a verifier of it.
    async fn serving_k1() -> (Self, JwtVerifier) {
        let server = Self::start().await;
        server.metadata("/.well-known/oauth-authorization-server", &server.base);
        server.keys(&["k1"]);
        let verifier = discover(&server.base).await;
        (server, verifier)
    }

    /// Serves `document` at `path`.
    fn publish(&self, path: &str, document: Value) {
        self.published
            .documents
            .lock()
            .unwrap()
            .insert(path.to_owned(), document);
    }

    /// Metadata at `path` naming `issuer` and the JWKS at `/jwks`.
    fn metadata(&self, path: &str, issuer: &str) {
        let jwks_uri = format!("{}/jwks", self.base);
        self.publish(path, json!({"issuer": issuer, "jwks_uri": jwks_uri}));
    }

    /// The JWKS, with the Ed25519 key under each of `kids`.
    fn keys(&self, kids: &[&str]) {
        let keys: Vec<Value> = kids.iter().map(|kid| jwk("OKP", kid)).collect();
        self.publish("/jwks", json!({ "keys": keys }));
    }

    fn jwks_hits(&self) -> usize {
        self.published.jwks_hits.load(Ordering::SeqCst)
    }

    /// Stops listening: every later request is refused.
    async fn stop(&mut self) {
        self.serving.abort();
        let _ = (&mut self.serving).await;
    }
}

/// The public key of the example's JWKS of type `kty`, under `kid`.
fn jwk(kty: &str, kid: &str) -> Value {
    let set: Value = serde_json::from_str(PUBLIC).expect("the example's JWKS");
    let mut key = set["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .find(|k| k["kty"] == kty)
        .expect("a key of that type")
        .clone();
    key["kid"] = json!(kid);
    key
}

/// The fields of every warning logged on the test's thread.
#[derive(Clone, Default)]
struct Warnings(Arc<Mutex<Vec<Fields>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Warnings {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        if *event.metadata().level() == tracing::Level::WARN {
            let mut fields = Fields::new();
            event.record(&mut Collect(&mut fields));
            self.0.lock().unwrap().push(fields);
        }
    }
}

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

/// A token of `ada` from `issuer` for [`AUDIENCE`], signed with the Ed25519 key named `kid`.
fn token(issuer: &str, kid: &str) -> String {
    sign(kid, &claims(issuer))
}

fn claims(issuer: &str) -> Value {
    json!({"iss": issuer, "aud": AUDIENCE, "sub": "ada", "scope": "notes:read", "exp": now() + 600})
}

fn sign(kid: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(kid.into());
    let key = EncodingKey::from_ed_pem(ED_KEY.as_bytes()).expect("the Ed25519 key");
    jsonwebtoken::encode(&header, claims, &key).expect("a signed token")
}

fn untrusted() -> InvalidToken {
    InvalidToken::Other("the token's signing key is not trusted".into())
}

/// The subject a token verifies as, within [`BOUND`].
async fn verify(verifier: &JwtVerifier, token: &str) -> Result<String, InvalidToken> {
    tokio::time::timeout(BOUND, verifier.verify(token))
        .await
        .expect("a verification ends")
        .map(|info| info.subject)
}

/// The subject a token of `server` signed under `kid` verifies as.
async fn signed_by(
    verifier: &JwtVerifier,
    server: &Issuer,
    kid: &str,
) -> Result<String, InvalidToken> {
    verify(verifier, &token(&server.base, kid)).await
}

fn ada() -> Result<String, InvalidToken> {
    Ok("ada".into())
}

/// Asserts that discovering `issuer` fails at `url` for a reason that ends with `problem`.
async fn refused_at(issuer: &str, url: &str, problem: &str) {
    let error = JwtVerifier::discover(issuer, AUDIENCE)
        .await
        .expect_err(problem);
    assert_eq!(error.url(), url);
    assert!(error.to_string().ends_with(problem), "{error}");
}

async fn discover(issuer: &str) -> JwtVerifier {
    JwtVerifier::discover(issuer, AUDIENCE)
        .await
        .expect("the issuer is discovered")
}

#[tokio::test]
async fn discovery_reads_rfc8414_and_openid_metadata_where_the_mcp_spec_looks() {
    // (where the metadata is, the issuer's path)
    let cases = [
        ("/.well-known/oauth-authorization-server", ""),
        ("/.well-known/openid-configuration", ""),
        (
            "/.well-known/oauth-authorization-server/tenant1",
            "/tenant1",
        ),
        ("/.well-known/openid-configuration/tenant1", "/tenant1"),
        ("/tenant1/.well-known/openid-configuration", "/tenant1"),
    ];
    for (at, path) in cases {
        let server = Issuer::start().await;
        let issuer = format!("{}{path}", server.base);
        server.metadata(at, &issuer);
        // An encryption key beside the signing key is passed over.
        let mut encryption = jwk("RSA", "enc-1");
        encryption["use"] = json!("enc");
        encryption["alg"] = json!("RSA-OAEP");
        server.publish("/jwks", json!({"keys": [encryption, jwk("OKP", "k1")]}));

        let verifier = discover(&issuer).await;
        assert_eq!(
            verify(&verifier, &token(&issuer, "k1")).await,
            ada(),
            "{at}"
        );
        assert_eq!(server.jwks_hits(), 1, "{at}");
    }

    // The first place found wins: RFC 8414 path-inserted before OpenID appended.
    let server = Issuer::start().await;
    let issuer = format!("{}/tenant1", server.base);
    server.metadata("/.well-known/oauth-authorization-server/tenant1", &issuer);
    server.publish(
        "/tenant1/.well-known/openid-configuration",
        json!({"issuer": issuer, "jwks_uri": format!("{}/elsewhere", server.base)}),
    );
    server.keys(&["k1"]);
    let verifier = discover(&issuer).await;
    assert_eq!(verify(&verifier, &token(&issuer, "k1")).await, ada());

    // An issuer with a path is not looked for at its origin's metadata.
    let server = Issuer::start().await;
    server.metadata("/.well-known/oauth-authorization-server", &server.base);
    server.keys(&["k1"]);
    let issuer = format!("{}/tenant1", server.base);
    let error = JwtVerifier::discover(&issuer, AUDIENCE)
        .await
        .expect_err("no metadata for the tenant");
    assert_eq!(error.url(), issuer);
    assert_eq!(
        error.to_string(),
        format!(
            "discovering the keys of the issuer `{issuer}`: {issuer}: no authorization server \
             metadata at {b}/.well-known/oauth-authorization-server/tenant1 or \
             {b}/.well-known/openid-configuration/tenant1 or \
             {b}/tenant1/.well-known/openid-configuration",
            b = server.base
        )
    );
}

#[tokio::test]
async fn metadata_naming_another_issuer_or_an_unusable_jwks_is_refused_at_construction() {
    let server = Issuer::start().await;
    let at = format!("{}/.well-known/oauth-authorization-server", server.base);
    server.keys(&["k1"]);

    // Another spelling of the same issuer is another issuer.
    server.metadata(
        "/.well-known/oauth-authorization-server",
        &format!("{}/", server.base),
    );
    let error = JwtVerifier::discover(&server.base, AUDIENCE)
        .await
        .expect_err("another issuer");
    assert_eq!(error.issuer(), server.base);
    assert_eq!(error.url(), at);
    assert_eq!(
        error.to_string(),
        format!(
            "discovering the keys of the issuer `{b}`: {at}: the metadata names `{b}/`, not `{b}`",
            b = server.base
        )
    );

    server.publish(
        "/.well-known/oauth-authorization-server",
        json!({"issuer": server.base}),
    );
    refused_at(&server.base, &at, "the metadata has no `jwks_uri`").await;

    // A JWKS larger than 1 MiB is not read to its end.
    server.metadata("/.well-known/oauth-authorization-server", &server.base);
    server.publish(
        "/jwks",
        json!({"keys": [jwk("OKP", "k1")], "padding": "x".repeat(1 << 20)}),
    );
    let jwks = format!("{}/jwks", server.base);
    refused_at(&server.base, &jwks, "the answer is larger than 1024 KiB").await;

    // A JWKS with no key that can verify a signature.
    server.publish("/jwks", json!({"keys": []}));
    refused_at(
        &server.base,
        &jwks,
        "the JWKS has no key that verifies signatures",
    )
    .await;
}

#[tokio::test]
async fn an_unreachable_or_https_issuer_fails_construction_naming_the_url() {
    let mut server = Issuer::start().await;
    server.stop().await;
    let error = tokio::time::timeout(BOUND, JwtVerifier::discover(&server.base, AUDIENCE))
        .await
        .expect("discovery ends")
        .expect_err("nothing listens");
    let first = format!("{}/.well-known/oauth-authorization-server", server.base);
    assert_eq!(error.url(), first);
    assert!(
        error.to_string().starts_with(&format!(
            "discovering the keys of the issuer `{}`: {first}: client error (Connect)",
            server.base
        )),
        "{error}"
    );

    // With the feature `tls` (the tests build it), an `https://` issuer is reached over TLS: a
    // server that speaks plain HTTP fails the handshake, named with the URL.
    let plain = Issuer::start().await;
    let https = plain.base.replacen("http://", "https://", 1);
    let error = tokio::time::timeout(BOUND, JwtVerifier::discover(&https, AUDIENCE))
        .await
        .expect("discovery ends")
        .expect_err("no TLS there");
    assert_eq!(
        error.url(),
        format!("{https}/.well-known/oauth-authorization-server")
    );
    assert!(
        !error.to_string().contains("needs phantom's `tls`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_key_rotated_in_is_trusted_after_one_refetch_and_a_rotated_out_one_is_not() {
    let (server, verifier) = Issuer::serving_k1().await;
    assert_eq!(signed_by(&verifier, &server, "k1").await, ada());
    assert_eq!(server.jwks_hits(), 1);

    // The issuer rotates: k2 in, k1 out. The first token naming k2 fetches the JWKS again.
    server.keys(&["k2"]);
    assert_eq!(signed_by(&verifier, &server, "k2").await, ada());
    assert_eq!(server.jwks_hits(), 2);
    assert_eq!(signed_by(&verifier, &server, "k2").await, ada());
    // k1 is gone with the keys fetched, and within the interval nothing is fetched for it.
    assert_eq!(signed_by(&verifier, &server, "k1").await, Err(untrusted()));
    assert_eq!(server.jwks_hits(), 2);
}

#[tokio::test]
async fn unknown_kids_within_the_interval_fetch_nothing_more() {
    let (server, verifier) = Issuer::serving_k1().await;

    assert_eq!(
        signed_by(&verifier, &server, "made-up-1").await,
        Err(untrusted())
    );
    assert_eq!(server.jwks_hits(), 2, "one refetch");
    // The issuer publishes the key now, but the last refetch is too recent to look again.
    server.keys(&["k1", "made-up-2"]);
    assert_eq!(
        signed_by(&verifier, &server, "made-up-2").await,
        Err(untrusted())
    );
    assert_eq!(server.jwks_hits(), 2, "rate-limited");
    // The known key still verifies meanwhile.
    assert_eq!(signed_by(&verifier, &server, "k1").await, ada());

    // With a short interval, the next unknown kid after it fetches again.
    let verifier = discover(&server.base)
        .await
        .refetch_interval(Duration::from_millis(200));
    server.keys(&["k1"]);
    let hits = server.jwks_hits();
    assert_eq!(
        signed_by(&verifier, &server, "made-up-3").await,
        Err(untrusted())
    );
    assert_eq!(
        signed_by(&verifier, &server, "made-up-4").await,
        Err(untrusted())
    );
    assert_eq!(server.jwks_hits(), hits + 1);
    tokio::time::sleep(Duration::from_millis(250)).await;
    server.keys(&["k1", "made-up-4"]);
    assert_eq!(signed_by(&verifier, &server, "made-up-4").await, ada());
    assert_eq!(server.jwks_hits(), hits + 2);
}

#[tokio::test]
async fn concurrent_verifications_of_an_unknown_kid_share_one_fetch() {
    // With the default interval, and with none: the waiting verifications use the keys the one
    // fetch brought.
    for interval in [None, Some(Duration::ZERO)] {
        let (server, verifier) = Issuer::serving_k1().await;
        let verifier = match interval {
            Some(interval) => verifier.refetch_interval(interval),
            None => verifier,
        };

        server.keys(&["k1", "k2"]);
        *server.published.delay.lock().unwrap() = Duration::from_millis(300);
        let rotated = token(&server.base, "k2");
        let made_up = token(&server.base, "made-up");
        let verifications = (0..16).map(|i| {
            let token = if i % 4 == 0 { &made_up } else { &rotated };
            verify(&verifier, token)
        });
        let results = futures_util::future::join_all(verifications).await;
        for (i, result) in results.into_iter().enumerate() {
            let expected = if i % 4 == 0 { Err(untrusted()) } else { ada() };
            assert_eq!(result, expected, "verification {i}, interval {interval:?}");
        }
        assert_eq!(
            server.jwks_hits(),
            2,
            "one discovery, one refetch, interval {interval:?}"
        );
    }
}

#[tokio::test]
async fn a_verification_dropped_during_a_refetch_does_not_stop_it() {
    let (server, verifier) = Issuer::serving_k1().await;
    server.keys(&["k1", "k2"]);
    *server.published.delay.lock().unwrap() = Duration::from_millis(300);

    // The client of the first token naming k2 goes away while the JWKS is being fetched.
    let first = token(&server.base, "k2");
    let dropped = tokio::time::timeout(Duration::from_millis(50), verifier.verify(&first)).await;
    assert!(dropped.is_err(), "the refetch takes 300 ms");
    // The fetch goes on: the next token naming k2 waits for it, and no second one is made.
    assert_eq!(signed_by(&verifier, &server, "k2").await, ada());
    assert_eq!(server.jwks_hits(), 2);
}

#[tokio::test]
async fn with_the_issuer_gone_the_keys_fetched_before_still_verify() {
    use tracing_subscriber::layer::SubscriberExt as _;
    crate::escaped::every_callsite_wanted();
    let warnings = Warnings::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(warnings.clone()));

    let (mut server, verifier) = Issuer::serving_k1().await;
    let verifier = verifier.refetch_interval(Duration::ZERO);
    server.stop().await;

    for _ in 0..2 {
        assert_eq!(signed_by(&verifier, &server, "k1").await, ada());
        // Each unknown kid tries the stopped issuer (the interval is zero), fails, and is refused.
        assert_eq!(signed_by(&verifier, &server, "k2").await, Err(untrusted()));
    }
    assert_eq!(server.jwks_hits(), 1);

    // One warning for each failed refetch, naming the JWKS and never the token.
    let warnings = warnings.0.lock().unwrap().clone();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    for warning in &warnings {
        assert_eq!(warning["jwks_uri"], format!("{}/jwks", server.base));
        assert_eq!(
            warning["message"],
            "the JWKS could not be fetched again; the keys fetched before stay trusted"
        );
        assert!(
            warning["problem"].starts_with("client error (Connect)"),
            "{warning:?}"
        );
        // Every JWT starts with the base64 of `{"`.
        assert!(!format!("{warning:?}").contains("eyJ"), "{warning:?}");
    }
}

#[tokio::test]
async fn a_token_of_another_audience_or_issuer_is_refused() {
    let (server, verifier) = Issuer::serving_k1().await;

    let with = |key: &str, value: Value| {
        let mut c = claims(&server.base);
        c[key] = value;
        sign("k1", &c)
    };
    assert_eq!(
        verify(&verifier, &with("aud", json!("http://127.0.0.1/other"))).await,
        Err(InvalidToken::WrongAudience)
    );
    assert_eq!(
        verify(&verifier, &with("iss", json!("http://evil.example"))).await,
        Err(InvalidToken::WrongIssuer)
    );
    assert_eq!(
        verify(&verifier, &with("iss", json!(format!("{}/", server.base)))).await,
        Err(InvalidToken::WrongIssuer)
    );
    let mut unissued = claims(&server.base);
    unissued.as_object_mut().unwrap().remove("iss");
    assert_eq!(
        verify(&verifier, &sign("k1", &unissued)).await,
        Err(InvalidToken::Malformed("it has no `iss` claim".into()))
    );
    // An RSA token under a kid of the Ed25519 key: the key's algorithm decides.
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("k1".into());
    let rsa = EncodingKey::from_rsa_pem(RSA_KEY.as_bytes()).expect("the RSA key");
    let confused = jsonwebtoken::encode(&header, &claims(&server.base), &rsa).expect("a token");
    assert_eq!(
        verify(&verifier, &confused).await,
        Err(InvalidToken::BadSignature)
    );
}

/// A server whose one tool says who called it.
#[derive(Clone)]
struct Guarded;

#[mcp_router(name = "guarded", version = "1.0.0")]
impl Guarded {
    /// The token's subject.
    #[tool]
    async fn whoami(&self, session: &Session) -> String {
        session.principal.as_deref().unwrap_or_default().to_owned()
    }
}

#[tokio::test]
async fn a_phantom_server_with_a_discovered_verifier_answers_200_and_401() {
    let issuer = Issuer::start().await;
    issuer.metadata("/.well-known/openid-configuration", &issuer.base);
    issuer.keys(&["k1"]);
    let verifier = discover(&issuer.base).await;
    let config = phantom::Config::default().with_bearer_auth(BearerAuth::new(verifier));
    let server = TestServer::start_configured(Guarded, config, HttpConfig::default()).await;

    let good = token(&issuer.base, "k1");
    let (status, _, body) = modern_call(&server, Some(&good), "whoami", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "ada");

    // A key the issuer rotated in meanwhile is fetched and trusted.
    issuer.keys(&["k1", "k2"]);
    let rotated = token(&issuer.base, "k2");
    let (status, _, body) = modern_call(&server, Some(&rotated), "whoami", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    for (token, reason) in [
        (
            token(&issuer.base, "made-up"),
            "the token's signing key is not trusted",
        ),
        (
            token("http://evil.example", "k1"),
            "the token was issued by an untrusted issuer",
        ),
    ] {
        let (status, challenge, body) =
            modern_call(&server, Some(&token), "whoami", json!({})).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{reason}");
        assert_eq!(
            challenge.as_deref(),
            Some(
                format!("Bearer error=\"invalid_token\", error_description=\"{reason}\"").as_str()
            )
        );
        assert_eq!(body["error"]["code"], -32001);
    }
    assert_eq!(issuer.jwks_hits(), 2);
}
