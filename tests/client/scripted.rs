//! A small scripted authorization server and MCP server (axum) on one address, for the OAuth
//! client tests: the protected resource metadata, the authorization server's, dynamic
//! registration, the authorization redirect, the token endpoint checking PKCE (and counting
//! refresh grants, and answering the grants without a user), an identity provider's token
//! exchange (`/idp/token`), and an MCP endpoint that wants the
//! token it issued.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::RawQuery;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use phantom::client::{Client, ClientError, Era, OAuth, TokenStore, Tokens};
use serde_json::{Value, json};
use sha2::Digest as _;

pub(crate) const TOKEN: &str = "issued-access-token";
pub(crate) const REFRESHED: &str = "refreshed-access-token";
pub(crate) const REFRESH: &str = "the-refresh-token";
pub(crate) const REDIRECT: &str = "http://localhost:3000/callback";
/// The client id of the grants without a user (pre-registered at the scripted server).
pub(crate) const MACHINE: &str = "machine-client";
/// The ID-JAG the scripted identity provider's token exchange issues.
pub(crate) const ID_JAG: &str = "the-id-jag";

/// What the scripted servers saw and how they answer.
#[derive(Default)]
pub(crate) struct Script {
    /// `error=…` the authorization endpoint redirects with instead of a code.
    pub(crate) refuse: Option<&'static str>,
    pub(crate) challenge: Option<String>,
    /// The authorization request's parameters, and the token request's.
    pub(crate) authorization: Option<HashMap<String, String>>,
    pub(crate) token: Option<HashMap<String, String>>,
    pub(crate) registrations: usize,
    /// Another token endpoint than the server's own.
    pub(crate) token_endpoint: Option<String>,
    /// The access token the MCP server takes (`TOKEN` unless a test expires it).
    pub(crate) valid: Option<&'static str>,
    pub(crate) authorizations: usize,
    pub(crate) refreshes: usize,
    /// Refresh tokens rotate: a refresh answers with a new one, and the one it used is spent
    /// (used again, it is refused, as a revoked family would be).
    pub(crate) rotating: bool,
    /// The `expires_in` of the code grant's answer (default an hour).
    pub(crate) expires_in: Option<u64>,
    /// The MCP requests refused with a `401`.
    pub(crate) unauthorized: usize,
    /// The MCP methods answered with the token.
    pub(crate) served: Vec<String>,
    /// A scope `tools/call` wants and no token has: every call is answered `403`
    /// `insufficient_scope` asking for it.
    pub(crate) call_scope: Option<&'static str>,
    /// Every `Authorization` header the MCP endpoint was sent.
    pub(crate) seen: Vec<String>,
    /// The `Authorization` header of the last token request of a grant without a user.
    pub(crate) token_authorization: Option<String>,
    /// The token exchange request the identity provider (`/idp/token`) got.
    pub(crate) exchange: Option<HashMap<String, String>>,
    /// DPoP: the MCP server wants `Authorization: DPoP` and a proof (with this nonce when
    /// set, which the token endpoint wants too); the proofs each got.
    pub(crate) dpop: bool,
    pub(crate) dpop_nonce: Option<&'static str>,
    /// The MCP server's next nonce, given with each answer it serves (RFC 9449 §9) and wanted
    /// from the second request it serves on.
    pub(crate) dpop_next_nonce: Option<&'static str>,
    pub(crate) token_proofs: Vec<String>,
    pub(crate) proofs: Vec<String>,
    /// The tokens granted without a user, and whether they come without a refresh token (as
    /// the client credentials grant's should, RFC 6749 §4.4.3).
    pub(crate) machine_grants: usize,
    pub(crate) machine_without_refresh: bool,
}

/// The claims of a JWT, unverified.
pub(crate) fn claims(jwt: &str) -> Value {
    let payload = jwt.split('.').nth(1).unwrap_or_default();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or_default()
}

/// The refusal of a proof without `nonce` (RFC 9449 §8 at the token endpoint, §9 at the
/// resource), if `proof` lacks it.
fn nonce_refusal(
    proof: Option<&str>,
    nonce: Option<&'static str>,
    resource: bool,
) -> Option<Response> {
    let nonce = nonce?;
    if proof.map(claims).is_some_and(|c| c["nonce"] == nonce) {
        return None;
    }
    let (status, challenge) = if resource {
        (StatusCode::UNAUTHORIZED, r#"DPoP error="use_dpop_nonce""#)
    } else {
        (StatusCode::BAD_REQUEST, "")
    };
    let mut response = (status, Js(json!({"error": "use_dpop_nonce"}))).into_response();
    response
        .headers_mut()
        .insert("dpop-nonce", nonce.parse().unwrap());
    if resource {
        response
            .headers_mut()
            .insert("www-authenticate", challenge.parse().unwrap());
    }
    Some(response)
}

pub(crate) type Shared = Arc<Mutex<Script>>;

/// A JSON answer.
pub(crate) struct Js(pub(crate) Value);

impl IntoResponse for Js {
    fn into_response(self) -> Response {
        ([("content-type", "application/json")], self.0.to_string()).into_response()
    }
}

/// `a=b&c=d`, percent-decoded.
pub(crate) fn form(text: &str) -> HashMap<String, String> {
    let decode = |s: &str| {
        let s = s.replace('+', " ");
        let bytes = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' && i + 2 < bytes.len() {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz");
                if let Ok(b) = u8::from_str_radix(hex, 16) {
                    out.push(b);
                    i += 3;
                    continue;
                }
            }
            out.push(bytes[i]);
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// Starts the scripted servers; their base URL and script.
pub(crate) async fn servers(script: Script) -> (String, Shared) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let shared: Shared = Arc::new(Mutex::new(script));
    let app = app(&base, &shared);
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, shared)
}

/// The scripted servers' routes, answering as the servers at `base` (`http://…` or
/// `https://…`).
pub(crate) fn app(base: &str, shared: &Shared) -> axum::Router {
    let base = base.to_owned();
    let (b, s) = (base.clone(), Arc::clone(shared));
    let prm = move || {
        let base = b.clone();
        async move { Js(json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]})) }
    };
    let (b, s2) = (base.clone(), Arc::clone(&s));
    let metadata = move || {
        let base = b.clone();
        let token = s2.lock().unwrap().token_endpoint.clone();
        async move {
            Js(json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": token.unwrap_or_else(|| format!("{base}/token")),
                "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "authorization_response_iss_parameter_supported": true,
            }))
        }
    };
    let s2 = Arc::clone(&s);
    let register = move || {
        let s = Arc::clone(&s2);
        async move {
            let mut script = s.lock().unwrap();
            script.registrations += 1;
            // Each registration is another client: `scripted-client`, `scripted-client-2`, …
            let id = match script.registrations {
                1 => "scripted-client".to_owned(),
                n => format!("scripted-client-{n}"),
            };
            (StatusCode::CREATED, Js(json!({"client_id": id})))
        }
    };
    let (s2, b) = (Arc::clone(&s), base.clone());
    let authorize = move |RawQuery(query): RawQuery| {
        let (s, base) = (Arc::clone(&s2), b.clone());
        async move {
            let params = form(query.as_deref().unwrap_or_default());
            let mut script = s.lock().unwrap();
            let state = params.get("state").cloned().unwrap_or_default();
            let outcome = match script.refuse {
                Some(error) => format!("error={error}"),
                None => "code=the-code".to_owned(),
            };
            script.authorizations += 1;
            let redirect = params.get("redirect_uri").map_or(REDIRECT, String::as_str);
            let location = format!("{redirect}?{outcome}&state={state}&iss={base}");
            script.authorization = Some(params);
            (StatusCode::FOUND, [("location", location)]).into_response()
        }
    };
    let s2 = Arc::clone(&s);
    let token = move |headers: HeaderMap, body: String| {
        let s = Arc::clone(&s2);
        async move {
            let params = form(&body);
            let mut script = s.lock().unwrap();
            let proof = headers.get("dpop").and_then(|v| v.to_str().ok());
            if script.dpop {
                script.token_proofs.extend(proof.map(str::to_owned));
                if let Some(refusal) = nonce_refusal(proof, script.dpop_nonce, false) {
                    return refusal;
                }
            }
            if matches!(
                params.get("grant_type").map(String::as_str),
                Some("client_credentials" | "urn:ietf:params:oauth:grant-type:jwt-bearer")
            ) {
                // A grant without a user: the tests check what it sent.
                script.token_authorization = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                script.token = Some(params);
                script.machine_grants += 1;
                let token_type = if script.dpop { "DPoP" } else { "Bearer" };
                let mut body = json!({"access_token": TOKEN, "token_type": token_type, "expires_in": 3600, "refresh_token": REFRESH});
                if script.machine_without_refresh {
                    body.as_object_mut().unwrap().remove("refresh_token");
                }
                return Js(body).into_response();
            }
            if params.get("grant_type").map(String::as_str) == Some("refresh_token") {
                script.refreshes += 1;
                // A refresh token is good for the client it was issued to only (the first
                // registered, or the pre-registered one), as at a real server.
                let client = params.get("client_id").map(String::as_str);
                let good = params.get("refresh_token").map(String::as_str) == Some(REFRESH)
                    && !(script.rotating && script.refreshes > 1)
                    && client.is_none_or(|id| id == "scripted-client" || id == MACHINE);
                let token_type = if script.dpop { "DPoP" } else { "Bearer" };
                let mut body = json!({"access_token": REFRESHED, "token_type": token_type});
                if script.rotating {
                    body["refresh_token"] = json!("rotated-refresh-token");
                }
                return match good {
                    true => Js(body).into_response(),
                    false => StatusCode::BAD_REQUEST.into_response(),
                };
            }
            let challenge = script
                .authorization
                .as_ref()
                .and_then(|a| a.get("code_challenge").cloned());
            let verified = params.get("code_verifier").map(|v| {
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(v))
            });
            let good = params.get("code").map(String::as_str) == Some("the-code")
                && verified.is_some()
                && verified == challenge;
            script.token = Some(params);
            if !good {
                let body = json!({"error": "invalid_grant"});
                return (StatusCode::BAD_REQUEST, Js(body)).into_response();
            }
            let expires_in = script.expires_in.unwrap_or(3600);
            let token_type = if script.dpop { "DPoP" } else { "Bearer" };
            Js(json!({"access_token": TOKEN, "token_type": token_type, "expires_in": expires_in, "refresh_token": REFRESH}))
                .into_response()
        }
    };
    let s2 = Arc::clone(&s);
    let idp = move |body: String| {
        let s = Arc::clone(&s2);
        async move {
            s.lock().unwrap().exchange = Some(form(&body));
            Js(json!({
                "access_token": ID_JAG,
                "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "token_type": "N_A",
            }))
        }
    };
    let (s2, b) = (Arc::clone(&s), base);
    let mcp = move |headers: HeaderMap, body: String| {
        let (s, base) = (Arc::clone(&s2), b.clone());
        async move { mcp(&s, &base, &headers, &body) }
    };
    axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            axum::routing::get(prm),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(metadata),
        )
        .route("/register", axum::routing::post(register))
        .route("/authorize", axum::routing::get(authorize))
        .route("/token", axum::routing::post(token))
        .route("/idp/token", axum::routing::post(idp))
        .route(
            "/mcp",
            axum::routing::post(mcp).get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
        )
}

/// A legacy MCP server that wants `Bearer TOKEN`.
pub(crate) fn mcp(script: &Shared, base: &str, headers: &HeaderMap, body: &str) -> Response {
    let valid = match script.lock().unwrap().valid {
        Some(only) => vec![only],
        None => vec![TOKEN, REFRESHED],
    };
    let sent = headers.get("authorization").and_then(|v| v.to_str().ok());
    if let Some(sent) = sent {
        script.lock().unwrap().seen.push(sent.to_owned());
    }
    let (dpop, nonce, next) = {
        let script = script.lock().unwrap();
        let nonce = match script.dpop_next_nonce {
            Some(next) if !script.served.is_empty() => Some(next),
            _ => script.dpop_nonce,
        };
        (script.dpop, nonce, script.dpop_next_nonce)
    };
    let scheme = if dpop { "DPoP" } else { "Bearer" };
    let authorized = valid.iter().any(|v| sent == Some(&format!("{scheme} {v}")));
    if dpop && authorized {
        let proof = headers.get("dpop").and_then(|v| v.to_str().ok());
        script
            .lock()
            .unwrap()
            .proofs
            .extend(proof.map(str::to_owned));
        if let Some(refusal) = nonce_refusal(proof, nonce, true) {
            return refusal;
        }
    }
    if !authorized {
        script.lock().unwrap().unauthorized += 1;
        let challenge = script.lock().unwrap().challenge.clone().unwrap_or_else(|| {
            format!(r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#)
        });
        return (StatusCode::UNAUTHORIZED, [("www-authenticate", challenge)]).into_response();
    }
    let message: Value = serde_json::from_str(body).unwrap_or_default();
    let method = message["method"].as_str().unwrap_or_default().to_owned();
    if let Some(scope) = script.lock().unwrap().call_scope
        && method == "tools/call"
    {
        let challenge = format!(r#"Bearer error="insufficient_scope", scope="{scope}""#);
        return (StatusCode::FORBIDDEN, [("www-authenticate", challenge)]).into_response();
    }
    script.lock().unwrap().served.push(method.clone());
    let result = match method.as_str() {
        "initialize" => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted", "version": "1"},
        }),
        "tools/list" => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        "tools/call" => json!({"content": [{"type": "text", "text": "authorized"}]}),
        _ if message.get("id").is_some() => {
            let error = json!({"code": -32601, "message": format!("no method `{method}`")});
            return Js(json!({"jsonrpc": "2.0", "id": message["id"], "error": error}))
                .into_response();
        }
        _ => return StatusCode::ACCEPTED.into_response(),
    };
    let mut response =
        Js(json!({"jsonrpc": "2.0", "id": message["id"], "result": result})).into_response();
    if let Some(next) = next {
        response
            .headers_mut()
            .insert("dpop-nonce", next.parse().unwrap());
    }
    response
}

/// A legacy client of the scripted MCP server at `base`, with `oauth`.
pub(crate) async fn connect(base: &str, oauth: OAuth) -> Result<Client, ClientError> {
    Client::http(&format!("{base}/mcp"))
        .era(Era::Legacy)
        .oauth(oauth)
        .connect()
        .await
}

/// Two clients of the scripted server at `base` sharing `store`, which holds an expired access
/// token and a refresh token, connect at the same moment (each needs a fresh token before its
/// first request): both connect, with the token one refresh got.
pub(crate) async fn two_clients_refresh_once<S: phantom::client::TokenStore>(
    base: &str,
    script: &Shared,
    store: Arc<S>,
) {
    let resource = format!("{base}/mcp");
    store
        .save(
            &resource,
            Tokens::new(TOKEN)
                .with_refresh_token(REFRESH)
                .with_expires_at(1),
        )
        .await
        .expect("save");
    {
        let mut script = script.lock().unwrap();
        script.valid = Some(REFRESHED);
        script.rotating = true;
    }
    let (a, b) = tokio::join!(
        connect(base, OAuth::new(REDIRECT).token_store(Arc::clone(&store))),
        connect(base, OAuth::new(REDIRECT).token_store(Arc::clone(&store))),
    );
    let (a, b) = (a.expect("a connects"), b.expect("b connects"));
    a.call_tool("echo", json!({})).await.expect("a calls");
    b.call_tool("echo", json!({})).await.expect("b calls");
    let kept = store.load(&resource).await.expect("load").expect("kept");
    assert_eq!(kept.access_token, REFRESHED);
    assert_eq!(kept.refresh_token.as_deref(), Some("rotated-refresh-token"));
    let script = script.lock().unwrap();
    assert_eq!(
        (script.refreshes, script.authorizations, script.unauthorized),
        (1, 0, 0),
        "one refresh, no authorization, no request refused"
    );
}
