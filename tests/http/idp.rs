//! A scripted OpenID Connect identity provider, for the tests of sign-ins through phantom's
//! authorization server: axum on `127.0.0.1:0` serving discovery, `/authorize` (which plays the
//! user who signs in: it redirects at once to the `redirect_uri` with a code and the `state`),
//! `/token` (the client's credentials and PKCE S256 checked against the challenge it was sent),
//! `/jwks` (one ES256 key) and `/userinfo`. [`Knobs`] make it misbehave, one way at a time, and
//! can be changed while it serves; it keeps what it was asked ([`Idp::seen`]).

// Each test binary uses a part of it.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

/// The client phantom is registered as at the provider.
pub(crate) const CLIENT_ID: &str = "phantom-upstream";
/// Its secret (with characters that form encoding must escape).
pub(crate) const CLIENT_SECRET: &str = "upstream s3cret:&=+";

/// What the provider does, and how it misbehaves. The default is a good provider signing in
/// [`Knobs::subject`].
#[derive(Debug, Clone)]
pub(crate) struct Knobs {
    /// The user who signs in.
    pub(crate) subject: String,
    pub(crate) email: String,
    pub(crate) name: String,
    /// `/authorize` answers `error=access_denied` (the user refused).
    pub(crate) deny: bool,
    /// The ID token's `nonce`, in place of the one sent.
    pub(crate) nonce: Option<String>,
    /// The ID token's `iss`, in place of the provider's.
    pub(crate) issuer: Option<String>,
    /// The ID token's `aud`, in place of the client id.
    pub(crate) audience: Option<String>,
    /// The `issuer` the discovery document names, in place of the provider's.
    pub(crate) discovery_issuer: Option<String>,
    /// `/token` answers this status (and no tokens).
    pub(crate) token_status: Option<u16>,
    /// How long `/token` waits before answering.
    pub(crate) token_delay: Duration,
    /// The ID token signed with a key the JWKS does not publish.
    pub(crate) foreign_key: bool,
}

impl Default for Knobs {
    fn default() -> Self {
        Self {
            subject: "user-1".into(),
            email: "ada@example.com".into(),
            name: "Ada Lovelace".into(),
            deny: false,
            nonce: None,
            issuer: None,
            audience: None,
            discovery_issuer: None,
            token_status: None,
            token_delay: Duration::ZERO,
            foreign_key: false,
        }
    }
}

/// What the provider was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seen {
    /// The query of each `/authorize` request, decoded.
    pub(crate) authorize: Vec<HashMap<String, String>>,
    /// The form of each `/token` request, decoded (its secrets included).
    pub(crate) token: Vec<HashMap<String, String>>,
    /// The codes `/authorize` issued.
    pub(crate) codes: Vec<String>,
    /// Requests for the discovery document.
    pub(crate) discovery: usize,
}

/// One authorization request, under its code.
struct Pending {
    challenge: String,
    nonce: Option<String>,
    redirect_uri: String,
    client_id: String,
}

struct Shared {
    base: String,
    knobs: Mutex<Knobs>,
    seen: Mutex<Seen>,
    pending: Mutex<HashMap<String, Pending>>,
    key: EncodingKey,
    foreign: EncodingKey,
    jwk: Value,
}

/// A running provider; stopped when dropped.
pub(crate) struct Idp {
    shared: Arc<Shared>,
    serving: tokio::task::JoinHandle<()>,
}

impl Drop for Idp {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

/// An ES256 key as PKCS#8 PEM, and its public JWK under `kid`.
fn es256_key(kid: &str) -> (EncodingKey, Value) {
    let pair = rcgen::KeyPair::generate().expect("a P-256 key");
    let key = EncodingKey::from_ec_pem(pair.serialize_pem().as_bytes()).expect("a PKCS#8 key");
    // The uncompressed point: 0x04, x, y.
    let point = pair.public_key_raw();
    let jwk = json!({
        "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid,
        "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
        "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
    });
    (key, jwk)
}

impl Idp {
    /// A provider behaving as `knobs` say, on a port of its own; its issuer URL.
    pub(crate) async fn start(knobs: Knobs) -> (Self, String) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        let (key, jwk) = es256_key("idp-1");
        let (foreign, _) = es256_key("idp-1");
        let shared = Arc::new(Shared {
            base: base.clone(),
            knobs: Mutex::new(knobs),
            seen: Mutex::default(),
            pending: Mutex::default(),
            key,
            foreign,
            jwk,
        });
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&shared));
        let serving = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("serves");
        });
        (Self { shared, serving }, base)
    }

    /// Its issuer URL.
    pub(crate) fn url(&self) -> &str {
        &self.shared.base
    }

    /// Changes how it behaves from the next request on.
    pub(crate) fn set(&self, change: impl FnOnce(&mut Knobs)) {
        change(&mut self.shared.knobs.lock().unwrap());
    }

    /// What it was asked so far.
    pub(crate) fn seen(&self) -> Seen {
        self.shared.seen.lock().unwrap().clone()
    }

    /// Stops serving: the provider is down (connections refused).
    pub(crate) fn stop(&self) {
        self.serving.abort();
    }
}

/// `text` (a query or a form) decoded.
pub(crate) fn decoded(text: &str) -> HashMap<String, String> {
    form_urlencoded::parse(text.as_bytes())
        .into_owned()
        .collect()
}

fn json_answer(status: StatusCode, value: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

async fn answer(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let knobs = shared.knobs.lock().unwrap().clone();
    let base = &shared.base;
    match uri.path() {
        "/.well-known/openid-configuration" => {
            shared.seen.lock().unwrap().discovery += 1;
            let issuer = knobs
                .discovery_issuer
                .clone()
                .unwrap_or_else(|| base.clone());
            json_answer(
                StatusCode::OK,
                &json!({
                    "issuer": issuer,
                    "authorization_endpoint": format!("{base}/authorize"),
                    "token_endpoint": format!("{base}/token"),
                    "jwks_uri": format!("{base}/jwks"),
                    "userinfo_endpoint": format!("{base}/userinfo"),
                    "response_types_supported": ["code"],
                    "subject_types_supported": ["public"],
                    "id_token_signing_alg_values_supported": ["ES256"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                }),
            )
        }
        "/jwks" => json_answer(StatusCode::OK, &json!({"keys": [shared.jwk]})),
        "/authorize" => authorize(&shared, &knobs, uri.query().unwrap_or_default()),
        "/token" => {
            tokio::time::sleep(knobs.token_delay).await;
            token(&shared, &knobs, &headers, &body)
        }
        "/userinfo" => json_answer(
            StatusCode::OK,
            &json!({"sub": knobs.subject, "email": knobs.email, "name": knobs.name}),
        ),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// The user signs in at once (or refuses): a redirect to `redirect_uri` with a code and the
/// `state`, or with the error.
fn authorize(shared: &Shared, knobs: &Knobs, query: &str) -> Response {
    let asked = decoded(query);
    shared.seen.lock().unwrap().authorize.push(asked.clone());
    let Some(redirect_uri) = asked.get("redirect_uri") else {
        return (StatusCode::BAD_REQUEST, "no redirect_uri").into_response();
    };
    let mut back = form_urlencoded::Serializer::new(String::new());
    if let Some(state) = asked.get("state") {
        back.append_pair("state", state);
    }
    let well_formed = asked.get("response_type").map(String::as_str) == Some("code")
        && asked.get("code_challenge_method").map(String::as_str) == Some("S256")
        && asked.contains_key("code_challenge")
        && asked.contains_key("client_id");
    if knobs.deny {
        back.append_pair("error", "access_denied");
    } else if !well_formed {
        back.append_pair("error", "invalid_request");
    } else {
        let code = uuid::Uuid::new_v4().simple().to_string();
        shared.pending.lock().unwrap().insert(
            code.clone(),
            Pending {
                challenge: asked["code_challenge"].clone(),
                nonce: asked.get("nonce").cloned(),
                redirect_uri: redirect_uri.clone(),
                client_id: asked["client_id"].clone(),
            },
        );
        shared.seen.lock().unwrap().codes.push(code.clone());
        back.append_pair("code", &code);
    }
    let separator = if redirect_uri.contains('?') { '&' } else { '?' };
    let location = format!("{redirect_uri}{separator}{}", back.finish());
    (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response()
}

/// The client's credentials: `client_secret_basic` (each half form-encoded) or
/// `client_secret_post`.
fn credentials(headers: &HeaderMap, form: &HashMap<String, String>) -> Option<(String, String)> {
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "));
    match basic {
        Some(encoded) => {
            let pair = String::from_utf8(STANDARD.decode(encoded).ok()?).ok()?;
            let (id, secret) = pair.split_once(':')?;
            let decode = |s: &str| decoded(&format!("v={s}")).remove("v").unwrap_or_default();
            Some((decode(id), decode(secret)))
        }
        None => Some((
            form.get("client_id")?.clone(),
            form.get("client_secret")?.clone(),
        )),
    }
}

fn token(shared: &Shared, knobs: &Knobs, headers: &HeaderMap, body: &str) -> Response {
    let form = decoded(body);
    shared.seen.lock().unwrap().token.push(form.clone());
    if let Some(status) = knobs.token_status {
        let status = StatusCode::from_u16(status).expect("a status");
        return json_answer(status, &json!({"error": "server_error"}));
    }
    let refuse = |error: &str, why: &str| {
        json_answer(
            StatusCode::BAD_REQUEST,
            &json!({"error": error, "error_description": why}),
        )
    };
    if credentials(headers, &form) != Some((CLIENT_ID.to_owned(), CLIENT_SECRET.to_owned())) {
        return refuse("invalid_client", "wrong client credentials");
    }
    if form.get("grant_type").map(String::as_str) != Some("authorization_code") {
        return refuse("unsupported_grant_type", "only authorization_code");
    }
    let code = form.get("code").cloned().unwrap_or_default();
    let Some(pending) = shared.pending.lock().unwrap().remove(&code) else {
        return refuse("invalid_grant", "unknown or used code");
    };
    let verifier = form.get("code_verifier").cloned().unwrap_or_default();
    if URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) != pending.challenge {
        return refuse("invalid_grant", "PKCE verification failed");
    }
    if form.get("redirect_uri") != Some(&pending.redirect_uri) || pending.client_id != CLIENT_ID {
        return refuse("invalid_grant", "redirect_uri or client mismatch");
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let claims = json!({
        "iss": knobs.issuer.clone().unwrap_or_else(|| shared.base.clone()),
        "sub": knobs.subject,
        "aud": knobs.audience.clone().unwrap_or_else(|| CLIENT_ID.to_owned()),
        "iat": now,
        "exp": now + 300,
        "nonce": knobs.nonce.clone().or(pending.nonce),
        "email": knobs.email,
        "email_verified": true,
        "name": knobs.name,
    });
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("idp-1".into());
    let key = if knobs.foreign_key {
        &shared.foreign
    } else {
        &shared.key
    };
    let id_token = jsonwebtoken::encode(&header, &claims, key).expect("signs");
    json_answer(
        StatusCode::OK,
        &json!({
            "access_token": format!("upstream-at-{}", uuid::Uuid::new_v4().simple()),
            "token_type": "Bearer",
            "expires_in": 300,
            "id_token": id_token,
        }),
    )
}
