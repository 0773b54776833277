//! `phantom::client`'s OAuth flow (feature `oauth`) against a small scripted authorization
//! server and MCP server (axum) on one address: the protected resource metadata, the
//! authorization server's, dynamic registration, the authorization redirect, the token
//! endpoint checking PKCE, and an MCP endpoint that wants the token it issued.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::RawQuery;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use phantom::client::{AuthStep, Authorize, Client, ClientError, Era, OAuth};
use serde_json::{Value, json};
use sha2::Digest as _;

const TOKEN: &str = "issued-access-token";
const REFRESHED: &str = "refreshed-access-token";
const REFRESH: &str = "the-refresh-token";
const REDIRECT: &str = "http://localhost:3000/callback";

/// What the scripted servers saw and how they answer.
#[derive(Default)]
struct Script {
    /// `error=…` the authorization endpoint redirects with instead of a code.
    refuse: Option<&'static str>,
    challenge: Option<String>,
    /// The authorization request's parameters, and the token request's.
    authorization: Option<HashMap<String, String>>,
    token: Option<HashMap<String, String>>,
    registrations: usize,
    /// Another token endpoint than the server's own.
    token_endpoint: Option<String>,
    /// The access token the MCP server takes (`TOKEN` unless a test expires it).
    valid: Option<&'static str>,
    authorizations: usize,
    refreshes: usize,
    /// The `expires_in` of the code grant's answer (default an hour).
    expires_in: Option<u64>,
    /// The MCP requests refused with a `401`.
    unauthorized: usize,
    /// The MCP methods answered with the token.
    served: Vec<String>,
}

type Shared = Arc<Mutex<Script>>;

/// A JSON answer.
struct Js(Value);

impl IntoResponse for Js {
    fn into_response(self) -> Response {
        ([("content-type", "application/json")], self.0.to_string()).into_response()
    }
}

/// `a=b&c=d`, percent-decoded.
fn form(text: &str) -> HashMap<String, String> {
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
async fn servers(script: Script) -> (String, Shared) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let shared: Shared = Arc::new(Mutex::new(script));
    let (b, s) = (base.clone(), Arc::clone(&shared));
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
            s.lock().unwrap().registrations += 1;
            (
                StatusCode::CREATED,
                Js(json!({"client_id": "scripted-client"})),
            )
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
            script.authorization = Some(params);
            script.authorizations += 1;
            let location = format!("{REDIRECT}?{outcome}&state={state}&iss={base}");
            (StatusCode::FOUND, [("location", location)]).into_response()
        }
    };
    let s2 = Arc::clone(&s);
    let token = move |body: String| {
        let s = Arc::clone(&s2);
        async move {
            let params = form(&body);
            let mut script = s.lock().unwrap();
            if params.get("grant_type").map(String::as_str) == Some("refresh_token") {
                script.refreshes += 1;
                let good = params.get("refresh_token").map(String::as_str) == Some(REFRESH);
                let body = json!({"access_token": REFRESHED, "token_type": "Bearer"});
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
            Js(json!({"access_token": TOKEN, "token_type": "Bearer", "expires_in": expires_in, "refresh_token": REFRESH}))
                .into_response()
        }
    };
    let (s2, b) = (Arc::clone(&s), base.clone());
    let mcp = move |headers: HeaderMap, body: String| {
        let (s, base) = (Arc::clone(&s2), b.clone());
        async move { mcp(&s, &base, &headers, &body) }
    };
    let app = axum::Router::new()
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
        .route(
            "/mcp",
            axum::routing::post(mcp).get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, shared)
}

/// A legacy MCP server that wants `Bearer TOKEN`.
fn mcp(script: &Shared, base: &str, headers: &HeaderMap, body: &str) -> Response {
    let valid = match script.lock().unwrap().valid {
        Some(only) => vec![only],
        None => vec![TOKEN, REFRESHED],
    };
    let sent = headers.get("authorization").and_then(|v| v.to_str().ok());
    let authorized = valid.iter().any(|v| sent == Some(&format!("Bearer {v}")));
    if !authorized {
        script.lock().unwrap().unauthorized += 1;
        let challenge = script.lock().unwrap().challenge.clone().unwrap_or_else(|| {
            format!(r#"Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#)
        });
        return (StatusCode::UNAUTHORIZED, [("www-authenticate", challenge)]).into_response();
    }
    let message: Value = serde_json::from_str(body).unwrap_or_default();
    let method = message["method"].as_str().unwrap_or_default().to_owned();
    script.lock().unwrap().served.push(method.clone());
    let result = match method.as_str() {
        "initialize" => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted", "version": "1"},
        }),
        "tools/list" => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        "tools/call" => json!({"content": [{"type": "text", "text": "authorized"}]}),
        _ => return StatusCode::ACCEPTED.into_response(),
    };
    Js(json!({"jsonrpc": "2.0", "id": message["id"], "result": result})).into_response()
}

#[tokio::test]
async fn a_401_runs_the_flow_and_the_call_succeeds_with_the_token() {
    let (base, script) = servers(Script::default()).await;
    let client = connect(&base, OAuth::new(REDIRECT))
        .await
        .expect("connects through the OAuth flow");
    let tools = client.list_tools(None).await.expect("tools");
    assert_eq!(tools.items[0].name, "echo");
    let result = client.call_tool("echo", json!({})).await.expect("call");
    assert_eq!(result.text_content(), "authorized");

    let script = script.lock().unwrap();
    assert_eq!(script.registrations, 1);
    let authorization = script
        .authorization
        .as_ref()
        .expect("an authorization request");
    assert_eq!(authorization["response_type"], "code");
    assert_eq!(authorization["client_id"], "scripted-client");
    assert_eq!(authorization["code_challenge_method"], "S256");
    assert_eq!(authorization["redirect_uri"], REDIRECT);
    assert_eq!(authorization["resource"], format!("{base}/mcp"));
    assert!(!authorization.contains_key("scope"), "{authorization:?}");
    let token = script.token.as_ref().expect("a token request");
    assert_eq!(token["grant_type"], "authorization_code");
    assert_eq!(token["resource"], format!("{base}/mcp"));
    assert_eq!(token["client_id"], "scripted-client");
    assert_eq!(
        script.served,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ]
    );
}

/// A legacy client of the scripted MCP server at `base`, with `oauth`.
async fn connect(base: &str, oauth: OAuth) -> Result<Client, ClientError> {
    Client::http(&format!("{base}/mcp"))
        .era(Era::Legacy)
        .oauth(oauth)
        .connect()
        .await
}

/// The error [`connect`] fails with.
async fn refused(base: &str, oauth: OAuth) -> ClientError {
    match connect(base, oauth).await {
        Ok(_) => panic!("connected"),
        Err(error) => error,
    }
}

#[tokio::test]
async fn a_refused_authorization_names_the_step() {
    let (base, script) = servers(Script {
        refuse: Some("access_denied"),
        ..Script::default()
    })
    .await;
    let error = refused(&base, OAuth::new(REDIRECT)).await;
    match &error {
        ClientError::Auth { step, message } => {
            assert_eq!(*step, AuthStep::Authorization);
            assert!(message.contains("access_denied"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(script.lock().unwrap().token.is_none(), "no token request");
}

/// An interactive step that ends somewhere else: a redirect with another `state`, or none.
struct Forged(Option<&'static str>);

impl Authorize for Forged {
    async fn authorize(&self, _url: &str) -> Result<String, String> {
        match self.0 {
            Some(redirect) => Ok(redirect.to_owned()),
            None => Err("the user closed the browser".to_owned()),
        }
    }
}

#[tokio::test]
async fn a_forged_state_or_an_abandoned_authorization_is_refused_before_the_token_request() {
    let (base, script) = servers(Script::default()).await;
    let forged = format!("{REDIRECT}?code=the-code&state=forged");
    let forged: &'static str = Box::leak(forged.into_boxed_str());
    for (step, needle) in [(Some(forged), "state"), (None, "closed the browser")] {
        let error = refused(&base, OAuth::new(REDIRECT).authorize(Forged(step))).await;
        match &error {
            ClientError::Auth {
                step: AuthStep::Authorization,
                message,
            } => assert!(message.contains(needle), "{message}"),
            other => panic!("{other:?}"),
        }
    }
    assert!(script.lock().unwrap().token.is_none(), "no token request");
}

#[tokio::test]
async fn resource_metadata_that_cannot_be_read_fails_at_discovery() {
    let (base, _) = servers(Script {
        challenge: Some(
            r#"Bearer resource_metadata="http://127.0.0.1:9/nothing-listens""#.to_owned(),
        ),
        ..Script::default()
    })
    .await;
    // The challenge names a URL nothing answers: discovery fails and says where.
    let error = refused(&base, OAuth::new(REDIRECT)).await;
    assert!(
        matches!(
            &error,
            ClientError::Auth {
                step: AuthStep::Discovery,
                ..
            }
        ),
        "{error:?}"
    );
}

/// Connects through the flow, lists, expires the access token on the server, and calls: the
/// call is answered after a refresh.
async fn flow_then_refresh(base: &str, script: &Shared) {
    let client = connect(base, OAuth::new(REDIRECT))
        .await
        .expect("connects through the OAuth flow");
    client.list_tools(None).await.expect("tools");
    script.lock().unwrap().valid = Some(REFRESHED);
    let result = client.call_tool("echo", json!({})).await.expect("call");
    assert_eq!(result.text_content(), "authorized");
}

#[tokio::test]
async fn an_expired_token_is_refreshed_without_authorizing_again() {
    let (base, script) = servers(Script::default()).await;
    flow_then_refresh(&base, &script).await;
    let script = script.lock().unwrap();
    assert_eq!((script.authorizations, script.refreshes), (1, 1));
    assert_eq!(script.served.last().map(String::as_str), Some("tools/call"));
}

/// Everything logged, for the test that searches it.
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

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Self;

    fn make_writer(&'a self) -> Self {
        self.clone()
    }
}

#[tokio::test]
async fn no_token_code_verifier_or_state_is_logged_even_at_trace() {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(captured.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let (base, script) = servers(Script::default()).await;
    flow_then_refresh(&base, &script).await;
    let log = String::from_utf8_lossy(&captured.0.lock().unwrap()).into_owned();
    assert!(
        log.contains("authorization request"),
        "the flow logged: {log}"
    );
    let script = script.lock().unwrap();
    let authorization = script.authorization.as_ref().expect("authorized");
    let token = script.token.as_ref().expect("a token request");
    for secret in [
        TOKEN,
        REFRESHED,
        REFRESH,
        "the-code",
        authorization["state"].as_str(),
        authorization["code_challenge"].as_str(),
        token["code_verifier"].as_str(),
    ] {
        assert!(!log.contains(secret), "`{secret}` is in the log:\n{log}");
    }
}

#[tokio::test]
async fn an_unreachable_token_endpoint_names_the_token_step() {
    let (base, _) = servers(Script {
        token_endpoint: Some("http://127.0.0.1:9/token".to_owned()),
        ..Script::default()
    })
    .await;
    match refused(&base, OAuth::new(REDIRECT)).await {
        ClientError::Auth {
            step: AuthStep::Token,
            message,
        } => assert!(message.contains("127.0.0.1:9/token"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_token_about_to_expire_is_refreshed_before_the_request() {
    let (base, script) = servers(Script {
        expires_in: Some(0),
        ..Script::default()
    })
    .await;
    let client = connect(&base, OAuth::new(REDIRECT))
        .await
        .expect("connects through the OAuth flow");
    client.list_tools(None).await.expect("tools");
    client.call_tool("echo", json!({})).await.expect("call");
    let script = script.lock().unwrap();
    // The first request's 401 only; the refreshed token has no expiry, so once.
    assert_eq!(
        (script.unauthorized, script.authorizations, script.refreshes),
        (1, 1, 1)
    );
}
