//! A sign-in against a small OpenID Connect provider (axum on `127.0.0.1:0`) that plays the
//! user at once: discovery, an authorization endpoint redirecting with a code, a token endpoint
//! checking the client's credentials and PKCE, a JWKS, ID tokens signed with ES256. Each test
//! changes one thing it does and expects the step that refuses it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use p256::ecdsa::SigningKey;
use serde_json::json;

use super::*;
use crate::kernel::es256;

const CLIENT_ID: &str = "phantom-test";
const CLIENT_SECRET: &str = "s3cret:with&odd=chars";
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// What the provider does differently from a good one.
#[derive(Clone, Default)]
struct Script {
    /// The `issuer` its discovery document names, in place of its own.
    discovery_issuer: Option<String>,
    /// The ID token's `iss`, `aud` or `nonce`, in place of the right ones.
    iss: Option<String>,
    aud: Option<String>,
    nonce: Option<String>,
    /// The ID token signed with a key its JWKS does not publish.
    foreign_key: bool,
    /// The token endpoint answers with this status and no tokens.
    token_status: Option<u16>,
    /// Only `client_secret_post` in its discovery document.
    post_only: bool,
    /// No `email` in the ID token; the userinfo endpoint has it.
    email_in_userinfo: bool,
}

/// One authorization request, kept under its code.
struct Pending {
    challenge: String,
    nonce: Option<String>,
    redirect_uri: String,
}

struct Provider {
    base: String,
    script: Script,
    key: SigningKey,
    other: SigningKey,
    pending: Mutex<HashMap<String, Pending>>,
    /// The codes and ID tokens it issued.
    issued: Mutex<Vec<String>>,
}

fn query(text: &str) -> HashMap<String, String> {
    text.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, value)| {
            let decoded = percent_encoding::percent_decode_str(&value.replace('+', " "))
                .decode_utf8_lossy()
                .into_owned();
            (name.to_owned(), decoded)
        })
        .collect()
}

async fn serve(
    State(provider): State<Arc<Provider>>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let script = &provider.script;
    let base = &provider.base;
    match uri.path() {
        "/.well-known/openid-configuration" => {
            let mut document = json!({
                "issuer": script.discovery_issuer.clone().unwrap_or_else(|| base.clone()),
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "jwks_uri": format!("{base}/jwks"),
                "userinfo_endpoint": format!("{base}/userinfo"),
                "code_challenge_methods_supported": ["S256"],
            });
            if script.post_only {
                document["token_endpoint_auth_methods_supported"] = json!(["client_secret_post"]);
            }
            json_answer(&document).into_response()
        }
        "/jwks" => {
            let mut jwk = es256::public_jwk(&provider.key);
            jwk["kid"] = json!("k1");
            json_answer(&json!({"keys": [jwk]})).into_response()
        }
        "/authorize" => {
            let asked = query(uri.query().unwrap_or_default());
            let code = crate::kernel::random_id::<8>();
            provider.issued.lock().unwrap().push(code.clone());
            provider.pending.lock().unwrap().insert(
                code.clone(),
                Pending {
                    challenge: asked["code_challenge"].clone(),
                    nonce: asked.get("nonce").cloned(),
                    redirect_uri: asked["redirect_uri"].clone(),
                },
            );
            let location = format!(
                "{}?code={code}&state={}",
                asked["redirect_uri"],
                encoded_value(&asked["state"])
            );
            (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response()
        }
        "/token" => token(&provider, &headers, &body),
        "/userinfo" => {
            json_answer(&json!({"sub": "user-1", "email": "ada@example.com"})).into_response()
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

fn token(provider: &Provider, headers: &HeaderMap, body: &str) -> Response {
    let script = &provider.script;
    if let Some(status) = script.token_status {
        return StatusCode::from_u16(status).unwrap().into_response();
    }
    let form = query(body);
    let refuse = |error: &str| {
        (
            StatusCode::BAD_REQUEST,
            json_answer(&json!({"error": error})),
        )
            .into_response()
    };
    let (id, secret) = if script.post_only {
        (
            form.get("client_id").cloned(),
            form.get("client_secret").cloned(),
        )
    } else {
        let basic = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Basic "))
            .and_then(|v| STANDARD.decode(v).ok())
            .and_then(|v| String::from_utf8(v).ok());
        let pair = basic
            .as_deref()
            .and_then(|b| b.split_once(':'))
            .map(|(i, s)| {
                let decoded = query(&format!("i={i}&s={s}"));
                (decoded["i"].clone(), decoded["s"].clone())
            });
        pair.unzip()
    };
    if id.as_deref() != Some(CLIENT_ID) || secret.as_deref() != Some(CLIENT_SECRET) {
        return refuse("invalid_client");
    }
    let Some(pending) = provider.pending.lock().unwrap().remove(&form["code"]) else {
        return refuse("invalid_grant");
    };
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(form["code_verifier"].as_bytes()));
    if challenge != pending.challenge || form["redirect_uri"] != pending.redirect_uri {
        return refuse("invalid_grant");
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut claims = json!({
        "iss": script.iss.clone().unwrap_or_else(|| provider.base.clone()),
        "sub": "user-1",
        "aud": script.aud.clone().unwrap_or_else(|| CLIENT_ID.to_owned()),
        "iat": now,
        "exp": now + 300,
        "nonce": script.nonce.clone().or(pending.nonce),
        "email": "ada@example.com",
        "email_verified": true,
        "name": "Ada",
    });
    if script.email_in_userinfo {
        claims.as_object_mut().unwrap().remove("email");
    }
    let key = if script.foreign_key {
        &provider.other
    } else {
        &provider.key
    };
    let id_token = es256::sign(key, &json!({"alg": "ES256", "kid": "k1"}), &claims);
    provider.issued.lock().unwrap().push(id_token.clone());
    json_answer(&json!({
        "access_token": "upstream-access-token",
        "token_type": "Bearer",
        "id_token": id_token,
    }))
    .into_response()
}

/// `value` as an `application/json` answer.
fn json_answer(value: &Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

/// A provider playing `script`, and its issuer.
async fn provider(script: Script) -> String {
    serving(script).await.0
}

/// A provider playing `script`: its issuer, and the provider to ask what it issued.
async fn serving(script: Script) -> (String, Arc<Provider>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let provider = Arc::new(Provider {
        base: base.clone(),
        script,
        key: es256::new_key(),
        other: es256::new_key(),
        pending: Mutex::default(),
        issued: Mutex::default(),
    });
    let app = axum::Router::new()
        .fallback(serve)
        .with_state(Arc::clone(&provider));
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, provider)
}

/// A whole sign-in: start, the browser sent to the provider and back, finish.
async fn sign_in(upstream: &Upstream) -> Result<Identity, UpstreamError> {
    let started = upstream.start(REDIRECT_URI, "st&te").await?;
    redirected(upstream, &started).await
}

/// The browser at `started.url`, sent back to the callback: the sign-in finished.
async fn redirected(upstream: &Upstream, started: &Started) -> Result<Identity, UpstreamError> {
    let fetch = Fetch::new(&Trust::default()).unwrap();
    let request = Request::get(started.url.as_str())
        .body(Full::default())
        .unwrap();
    let answer = fetch.send(request).await.unwrap();
    assert_eq!(answer.status, http::StatusCode::SEE_OTHER);
    let location = answer.headers[header::LOCATION].to_str().unwrap();
    let back = query(location.split_once('?').unwrap().1);
    assert_eq!(back["state"], "st&te");
    upstream.finish(REDIRECT_URI, &back["code"], started).await
}

async fn signed_in_with(script: Script) -> Result<Identity, UpstreamError> {
    let issuer = provider(script).await;
    sign_in(&Upstream::oidc(issuer, CLIENT_ID, CLIENT_SECRET)).await
}

#[tokio::test]
async fn a_sign_in_yields_the_id_tokens_subject_and_claims() {
    let identity = signed_in_with(Script::default()).await.unwrap();
    assert_eq!(identity.subject(), "user-1");
    assert_eq!(identity.email(), Some("ada@example.com"));
    assert_eq!(identity.name(), Some("Ada"));
}

#[tokio::test]
async fn the_authorization_url_carries_pkce_s256_a_nonce_and_the_request() {
    let issuer = provider(Script::default()).await;
    let upstream = Upstream::oidc(&issuer, CLIENT_ID, CLIENT_SECRET).scopes(["openid", "email"]);
    let started = upstream.start(REDIRECT_URI, "xyz").await.unwrap();
    let (endpoint, asked) = started.url.split_once('?').unwrap();
    assert_eq!(endpoint, format!("{issuer}/authorize"));
    let asked = query(asked);
    assert_eq!(asked["response_type"], "code");
    assert_eq!(asked["client_id"], CLIENT_ID);
    assert_eq!(asked["redirect_uri"], REDIRECT_URI);
    assert_eq!(asked["scope"], "openid email");
    assert_eq!(asked["state"], "xyz");
    assert_eq!(asked["code_challenge_method"], "S256");
    assert_eq!(
        asked["code_challenge"],
        URL_SAFE_NO_PAD.encode(Sha256::digest(started.verifier.as_bytes()))
    );
    assert_eq!(Some(&asked["nonce"]), started.nonce.as_ref());
    assert!(!started.url.contains(CLIENT_SECRET) && !started.url.contains(&started.verifier));
    let again = upstream.start(REDIRECT_URI, "xyz").await.unwrap();
    assert_ne!(again.verifier, started.verifier);
    assert_ne!(again.nonce, started.nonce);
}

#[tokio::test]
async fn client_secret_post_when_the_provider_takes_only_that() {
    let script = Script {
        post_only: true,
        ..Script::default()
    };
    assert_eq!(signed_in_with(script).await.unwrap().subject(), "user-1");
}

#[tokio::test]
async fn an_email_the_id_token_lacks_is_read_from_userinfo() {
    let script = Script {
        email_in_userinfo: true,
        ..Script::default()
    };
    let identity = signed_in_with(script).await.unwrap();
    assert_eq!(identity.email(), Some("ada@example.com"));
}

/// `script` refused at `step`, not for being unreachable, saying `problem`.
async fn refused(script: Script, step: &str, problem: &str) {
    let error = signed_in_with(script).await.unwrap_err();
    assert_eq!(error.step(), step, "{error}");
    assert!(!error.is_unreachable(), "{error}");
    assert!(error.to_string().contains(problem), "{error}");
}

#[tokio::test]
async fn an_id_token_with_another_nonce_is_refused() {
    let script = Script {
        nonce: Some("replayed".into()),
        ..Script::default()
    };
    refused(
        script,
        "id token",
        "`nonce` is not the one this sign-in sent",
    )
    .await;
}

#[tokio::test]
async fn an_id_token_for_another_client_is_refused() {
    let script = Script {
        aud: Some("another-client".into()),
        ..Script::default()
    };
    refused(script, "id token", "another audience").await;
}

#[tokio::test]
async fn an_id_token_of_another_issuer_is_refused() {
    let script = Script {
        iss: Some("http://127.0.0.1:1".into()),
        ..Script::default()
    };
    refused(script, "id token", "untrusted issuer").await;
}

#[tokio::test]
async fn an_id_token_signed_by_another_key_is_refused() {
    let script = Script {
        foreign_key: true,
        ..Script::default()
    };
    refused(script, "id token", "signature does not verify").await;
}

#[tokio::test]
async fn a_discovery_document_naming_another_issuer_is_refused() {
    let script = Script {
        discovery_issuer: Some("https://elsewhere.example".into()),
        ..Script::default()
    };
    let issuer = provider(script).await;
    let upstream = Upstream::oidc(&issuer, CLIENT_ID, CLIENT_SECRET);
    let error = upstream.start(REDIRECT_URI, "s").await.unwrap_err();
    assert_eq!(error.step(), "discovery");
    assert_eq!(
        error.url(),
        format!("{issuer}/.well-known/openid-configuration")
    );
    assert!(
        error.to_string().contains("https://elsewhere.example"),
        "{error}"
    );
}

#[tokio::test]
async fn a_token_endpoint_answering_500_is_unreachable() {
    let issuer = provider(Script {
        token_status: Some(500),
        ..Script::default()
    })
    .await;
    let error = sign_in(&Upstream::oidc(&issuer, CLIENT_ID, CLIENT_SECRET))
        .await
        .unwrap_err();
    assert_eq!(error.step(), "token");
    assert_eq!(error.url(), format!("{issuer}/token"));
    assert!(error.is_unreachable(), "{error}");
}

#[tokio::test]
async fn a_wrong_secret_is_refused_at_the_token_endpoint_without_showing_it() {
    let issuer = provider(Script::default()).await;
    let error = sign_in(&Upstream::oidc(&issuer, CLIENT_ID, "not-the-secret"))
        .await
        .unwrap_err();
    assert_eq!(error.step(), "token");
    assert!(!error.is_unreachable());
    assert!(error.to_string().contains("`invalid_client`"), "{error}");
    assert!(!format!("{error} {error:?}").contains("not-the-secret"));
}

#[tokio::test]
async fn a_provider_that_is_down_is_unreachable_and_tried_again() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let issuer = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let upstream = Upstream::oidc(&issuer, CLIENT_ID, CLIENT_SECRET);
    let error = upstream.start(REDIRECT_URI, "s").await.unwrap_err();
    assert_eq!(error.step(), "discovery");
    assert!(error.is_unreachable(), "{error}");
    // A failed discovery is not kept.
    assert!(upstream.discovered.get().is_none());
}

#[tokio::test]
async fn a_provider_that_never_answers_is_given_up_on() {
    // Connections are accepted (into the backlog) and never answered.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let issuer = format!("http://{}", silent.local_addr().unwrap());
    let mut upstream = Upstream::oidc(&issuer, CLIENT_ID, CLIENT_SECRET);
    upstream.timeout = Some(Duration::from_millis(200));
    let error = tokio::time::timeout(Duration::from_secs(5), upstream.start(REDIRECT_URI, "s"))
        .await
        .expect("gives up by itself")
        .unwrap_err();
    assert!(error.is_unreachable(), "{error}");
    assert!(
        error.to_string().contains("no answer within 200ms"),
        "{error}"
    );
}

#[tokio::test]
async fn an_issuer_on_plain_http_must_be_loopback() {
    for (issuer, problem) in [
        (
            "http://idp.example",
            "is http:// on an address that is not loopback",
        ),
        ("ftp://idp.example", "is not an https:// URL"),
        ("idp.example", "is not an absolute URL"),
    ] {
        let upstream = Upstream::oidc(issuer, CLIENT_ID, CLIENT_SECRET);
        let error = upstream.start(REDIRECT_URI, "s").await.unwrap_err();
        assert_eq!(error.step(), "discovery");
        assert!(error.to_string().contains(problem), "{issuer}: {error}");
    }
    assert_eq!(secure("http://localhost:8080/realms/x"), Ok(()));
    assert_eq!(secure("http://[::1]:8080"), Ok(()));
    assert_eq!(secure("https://idp.example"), Ok(()));
}

#[test]
fn debug_never_shows_the_secret() {
    for upstream in [
        Upstream::oidc("https://idp.example", CLIENT_ID, CLIENT_SECRET),
        Upstream::google(CLIENT_ID, CLIENT_SECRET),
        Upstream::github(CLIENT_ID, CLIENT_SECRET),
    ] {
        let shown = format!("{upstream:?}");
        assert!(!shown.contains(CLIENT_SECRET), "{shown}");
        assert!(shown.contains(CLIENT_ID), "{shown}");
    }
}

#[test]
fn presets_ask_their_default_scopes() {
    assert_eq!(
        Upstream::github("i", "s").scopes,
        ["read:user", "user:email"]
    );
    assert_eq!(
        Upstream::google("i", "s").scopes,
        ["openid", "email", "profile"]
    );
    assert_eq!(
        Upstream::google("i", "s").scopes(["openid"]).scopes,
        ["openid"]
    );
}

/// Everything logged, at every level.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn no_secret_code_verifier_or_token_is_ever_logged() {
    // A callsite first reached on a thread without a subscriber could be cached as unwanted
    // everywhere; with a global one (that keeps nothing), none is.
    let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry());
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut secrets = vec![CLIENT_SECRET.to_owned(), "upstream-access-token".to_owned()];
    runtime.block_on(async {
        let scripts = [
            Script {
                email_in_userinfo: true,
                ..Script::default()
            },
            Script {
                post_only: true,
                ..Script::default()
            },
            Script {
                foreign_key: true,
                ..Script::default()
            },
            Script {
                nonce: Some("replayed".into()),
                ..Script::default()
            },
        ];
        for script in scripts {
            let (issuer, provider) = serving(script).await;
            let upstream = Upstream::oidc(issuer, CLIENT_ID, CLIENT_SECRET);
            let started = upstream.start(REDIRECT_URI, "st&te").await.unwrap();
            let _ = redirected(&upstream, &started).await;
            secrets.push(started.verifier);
            secrets.extend(provider.issued.lock().unwrap().iter().cloned());
        }
    });
    let logged = String::from_utf8_lossy(&captured.0.lock().unwrap()).into_owned();
    assert!(logged.contains("identity provider discovered"), "{logged}");
    for secret in &secrets {
        assert!(
            !logged.contains(secret.as_str()),
            "{secret} logged: {logged}"
        );
    }
}
