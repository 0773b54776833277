//! The sign-in flow of phantom's authorization server over HTTP, the test playing the browser:
//! registration, `/authorize`, the upstream provider, `/callback`, the consent page, `/consent`,
//! `/token`, a scoped tool called at `/mcp`, refresh and revocation; and the bad-input matrix,
//! each answered with the RFC's error and nothing issued.

use std::sync::Arc;

use base64::Engine as _;
use http::StatusCode;
use phantom::auth::{AuthInfo, BearerAuth};
use phantom::authz::{AuthorizationServer, Keyring, MetadataDocuments, SigningKey, Upstream};
use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::{Value, json};
use sha2::Digest as _;

use crate::bearer::modern_call;
use crate::browser::{Browser, Page, form, query};
use crate::support::TestServer;

/// A query or form parameter.
type Param<'a> = (&'a str, &'a str);

/// Parameters that replace the usual ones.
type Params<'a> = &'a [Param<'a>];

/// A server whose tools need `notes:read` and `notes:write`.
#[derive(Clone)]
struct Notes;

#[mcp_router(name = "notes", version = "1.0.0")]
impl Notes {
    /// Who calls, and their email.
    #[tool(scopes = ["notes:read"])]
    async fn whoami(&self, auth: &AuthInfo) -> String {
        let email = auth.claims.get("email").and_then(Value::as_str);
        format!("{} {}", auth.subject, email.unwrap_or("-"))
    }

    /// Writes nothing.
    #[tool(scopes = ["notes:write"])]
    async fn write(&self) -> String {
        "written".into()
    }
}

/// One node: phantom serving `/mcp` and the authorization server on one listener.
pub(crate) struct Node {
    pub(crate) issuer: String,
    pub(crate) server: TestServer,
}

/// Stores nodes share.
#[derive(Clone, Default)]
pub(crate) struct Shared {
    clients: Arc<phantom::store::MemoryClientStore>,
    grants: Arc<phantom::store::MemoryGrantStore>,
    refreshes: Arc<phantom::store::MemoryRefreshStore>,
    consents: Arc<phantom::store::MemoryConsentStore>,
}

/// A key every node of a test signs with.
fn key() -> SigningKey {
    SigningKey::from_base64url("k1", "qOkS1Ve5QTnE5dBf5R3rdf2zHzM2P7-Nnl2bUO-7BPg").expect("a key")
}

/// Serves a node on `listener` with `issuer`, its upstream `upstream`, its stores `shared`.
pub(crate) async fn node_on(
    listener: tokio::net::TcpListener,
    issuer: &str,
    upstream: Upstream,
    shared: &Shared,
    customize: impl FnOnce(AuthorizationServer) -> AuthorizationServer,
) -> Node {
    let addr = listener.local_addr().expect("an address");
    let authz = customize(
        AuthorizationServer::new(issuer, Keyring::new(key()))
            .scopes(["notes:read", "notes:write"])
            .upstream(upstream)
            .clients(Arc::clone(&shared.clients))
            .grants(Arc::clone(&shared.grants))
            .refreshes(Arc::clone(&shared.refreshes))
            .consents(Arc::clone(&shared.consents)),
    );
    let resource = format!("{issuer}/mcp");
    let verifier = authz.keyring().verifier(issuer, &resource);
    let config = phantom::Config::default().with_bearer_auth(BearerAuth::new(verifier));
    let http = HttpConfig::default().with_authorization_server(&authz);
    let dispatcher = phantom::dispatch::Dispatcher::with_config(Notes, config);
    tokio::spawn(async move {
        phantom::http::serve_dispatcher(listener, dispatcher, http, std::future::pending())
            .await
            .expect("the server runs");
    });
    Node {
        issuer: issuer.to_owned(),
        server: TestServer::at(addr),
    }
}

/// A node on a port of its own, its issuer `http://127.0.0.1:<port>`.
pub(crate) async fn node(
    upstream: Upstream,
    shared: &Shared,
    customize: impl FnOnce(AuthorizationServer) -> AuthorizationServer,
) -> Node {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let issuer = format!("http://{}", listener.local_addr().expect("an address"));
    node_on(listener, &issuer, upstream, shared, customize).await
}

/// An upstream nothing answers at.
fn unreachable() -> Upstream {
    Upstream::oidc("http://127.0.0.1:9", "phantom", "upstream-secret")
}

/// A client of the node: its registration, its PKCE pair.
pub(crate) struct App {
    pub(crate) client_id: String,
    pub(crate) secret: Option<String>,
    pub(crate) redirect_uri: String,
    pub(crate) verifier: String,
    pub(crate) challenge: String,
}

impl App {
    /// Registers a client with the redirect URI `http://127.0.0.1/cb` (any port), public or
    /// confidential (`client_secret_basic`).
    pub(crate) async fn register(node: &Node, confidential: bool) -> Self {
        let method = if confidential {
            "client_secret_basic"
        } else {
            "none"
        };
        let made = Browser::new()
            .post_as_client(
                &on(node, &format!("{}/register", node.issuer)),
                &[("content-type", "application/json")],
                &json!({"redirect_uris": ["http://127.0.0.1/cb"], "client_name": "Notes <b>app</b>",
                        "token_endpoint_auth_method": method})
                .to_string(),
            )
            .await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
        let made = made.json();
        let verifier = phantom_verifier();
        Self {
            client_id: made["client_id"].as_str().expect("an id").to_owned(),
            secret: made["client_secret"].as_str().map(str::to_owned),
            redirect_uri: "http://127.0.0.1:5173/cb".to_owned(),
            challenge: base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(sha2::Sha256::digest(&verifier)),
            verifier,
        }
    }

    /// The authorization URL for `scope`, with `extra` parameters (replacing the usual ones of
    /// the same name; an empty value drops one).
    pub(crate) fn authorize_url(&self, node: &Node, scope: &str, extra: &[(&str, &str)]) -> String {
        let mut pairs: Vec<(&str, &str)> = vec![
            ("response_type", "code"),
            ("client_id", &self.client_id),
            ("redirect_uri", &self.redirect_uri),
            ("state", "client-state"),
            ("code_challenge", &self.challenge),
            ("code_challenge_method", "S256"),
            ("scope", scope),
        ];
        for (name, value) in extra {
            pairs.retain(|(n, _)| n != name);
            if !value.is_empty() {
                pairs.push((name, value));
            }
        }
        format!("{}/authorize?{}", node.issuer, form(&pairs))
    }

    /// A token request of `pairs`, authenticated as the client.
    pub(crate) async fn token(&self, node: &Node, pairs: &[(&str, &str)]) -> Page {
        self.post(&on(node, &format!("{}/token", node.issuer)), pairs)
            .await
    }

    pub(crate) async fn post(&self, url: &str, pairs: &[(&str, &str)]) -> Page {
        let mut pairs = pairs.to_vec();
        let basic;
        let headers: Vec<(&str, &str)> = match &self.secret {
            Some(secret) => {
                basic = format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD
                        .encode(format!("{}:{secret}", self.client_id))
                );
                vec![("authorization", basic.as_str())]
            }
            None => {
                pairs.push(("client_id", &self.client_id));
                Vec::new()
            }
        };
        Browser::new()
            .post_as_client(url, &headers, &form(&pairs))
            .await
    }

    /// Redeems `code` with the client's verifier.
    pub(crate) async fn redeem(&self, node: &Node, code: &str) -> Page {
        self.token(
            node,
            &[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", &self.redirect_uri),
                ("code_verifier", &self.verifier),
            ],
        )
        .await
    }
}

/// A fresh PKCE verifier (43 characters).
fn phantom_verifier() -> String {
    let bytes: [u8; 32] = std::array::from_fn(|i| {
        (std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos()) as usize
            + i * 7) as u8
    });
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// What an error page is: HTML that cannot be framed, never cached, and no redirect.
#[track_caller]
fn assert_error_page(page: &Page, status: StatusCode, says: &str) {
    assert_eq!(page.status, status, "{}", page.body);
    assert!(
        page.location().is_none(),
        "no redirect: {:?}",
        page.location()
    );
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert!(
        page.header("content-security-policy")
            .is_some_and(|csp| csp.contains("frame-ancestors 'none'")),
        "{:?}",
        page.headers
    );
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert!(page.body.contains(says), "{says:?} in {}", page.body);
}

/// The redirect back to the client with `error`: its URL is the client's, with its state and
/// the issuer; no code.
#[track_caller]
fn assert_refused(page: &Page, app: &App, node: &Node, error: &str) -> String {
    assert_eq!(page.status, StatusCode::FOUND, "{}", page.body);
    let location = page.location().expect("a redirect");
    assert!(
        location.starts_with(&format!("{}?", app.redirect_uri)),
        "{location}"
    );
    let back = query(location);
    assert_eq!(
        back.get("error").map(String::as_str),
        Some(error),
        "{location}"
    );
    assert_eq!(back.get("state").map(String::as_str), Some("client-state"));
    assert_eq!(back.get("iss"), Some(&node.issuer));
    assert!(!back.contains_key("code"), "{location}");
    back.get("error_description").cloned().unwrap_or_default()
}

/// The RFC 6749 §5.2 error of a token endpoint answer; asserts `no-store` and no token.
#[track_caller]
fn token_error(page: &Page, status: StatusCode) -> String {
    assert_eq!(page.status, status, "{}", page.body);
    assert_eq!(page.header("cache-control"), Some("no-store"));
    let body = page.json();
    assert!(body.get("access_token").is_none() && body.get("refresh_token").is_none());
    body["error"].as_str().expect("an error").to_owned()
}

#[tokio::test]
async fn an_unknown_client_or_a_foreign_redirect_uri_gets_an_error_page_never_a_redirect() {
    let node = node(unreachable(), &Shared::default(), |a| a).await;
    let app = App::register(&node, false).await;
    let browser = Browser::new();

    let unknown = browser
        .get(&app.authorize_url(&node, "notes:read", &[("client_id", "nobody")]))
        .await;
    assert_error_page(&unknown, StatusCode::BAD_REQUEST, "not registered");
    let nameless = browser
        .get(&app.authorize_url(&node, "notes:read", &[("client_id", "")]))
        .await;
    assert_error_page(&nameless, StatusCode::BAD_REQUEST, "client_id");

    for evil in [
        "https://evil.example/cb",
        "http://127.0.0.1.evil.example/cb",
        "http://127.0.0.1:5173/cb/../../evil",
        "http://127.0.0.1:5173/other",
        "http://localhost:5173/cb",
        "http://127.0.0.1:5173@evil.example/cb",
    ] {
        let page = browser
            .get(&app.authorize_url(&node, "notes:read", &[("redirect_uri", evil)]))
            .await;
        assert_error_page(&page, StatusCode::BAD_REQUEST, "redirect_uri");
    }
    let twice = browser
        .get(&format!(
            "{}&state=again",
            app.authorize_url(&node, "notes:read", &[])
        ))
        .await;
    assert_error_page(&twice, StatusCode::BAD_REQUEST, "more than once");
}

#[tokio::test]
async fn a_client_id_url_resolving_to_a_loopback_private_or_metadata_address_is_refused_and_nothing_issued()
 {
    let without = node(unreachable(), &Shared::default(), |a| a).await;
    let node = node(unreachable(), &Shared::default(), |a| {
        a.metadata_documents(MetadataDocuments::new())
    })
    .await;
    let registered = App::register(&node, false).await;
    let browser = Browser::new();
    for (url, class) in [
        ("https://localhost/client.json", "a loopback address"),
        ("https://127.0.0.1/client.json", "a loopback address"),
        ("https://[::1]/client.json", "a loopback address"),
        (
            "https://169.254.169.254/latest/meta-data/client.json",
            "a link-local address",
        ),
        ("https://10.0.0.5/client.json", "a private address"),
        ("https://192.168.1.1/client.json", "a private address"),
    ] {
        let page = browser
            .get(&registered.authorize_url(&node, "notes:read", &[("client_id", url)]))
            .await;
        assert_error_page(&page, StatusCode::BAD_REQUEST, class);
        let app = App {
            client_id: url.to_owned(),
            secret: None,
            redirect_uri: registered.redirect_uri.clone(),
            verifier: registered.verifier.clone(),
            challenge: registered.challenge.clone(),
        };
        let token = app.redeem(&node, "forged-code").await;
        assert_eq!(
            token_error(&token, StatusCode::UNAUTHORIZED),
            "invalid_client",
            "{url}: {}",
            token.body
        );
    }

    let page = browser
        .get(&registered.authorize_url(
            &without,
            "notes:read",
            &[("client_id", "https://client.example/client.json")],
        ))
        .await;
    assert_error_page(&page, StatusCode::BAD_REQUEST, "register the client");
}

#[tokio::test]
async fn bad_authorization_requests_go_back_to_the_client_with_the_rfc_error() {
    let node = node(unreachable(), &Shared::default(), |a| a).await;
    let app = App::register(&node, false).await;
    let browser = Browser::new();
    let cases: &[(Params<'_>, &str, &str)] = &[
        (
            &[("code_challenge", "")],
            "invalid_request",
            "code_challenge",
        ),
        (
            &[("code_challenge_method", "plain")],
            "invalid_request",
            "S256",
        ),
        (&[("code_challenge_method", "")], "invalid_request", "S256"),
        (
            &[("code_challenge", "too-short")],
            "invalid_request",
            "43 characters",
        ),
        (
            &[("response_type", "token")],
            "unsupported_response_type",
            "code",
        ),
        (
            &[("resource", "https://other.example/mcp")],
            "invalid_target",
            "/mcp",
        ),
        (&[("scope", "notes:read admin")], "invalid_scope", "`admin`"),
    ];
    for (extra, error, says) in cases {
        let page = browser
            .get(&app.authorize_url(&node, "notes:read", extra))
            .await;
        let description = assert_refused(&page, &app, &node, error);
        assert!(description.contains(says), "{extra:?}: {description}");
    }
    // The loopback redirect URI was registered without a port: any port is the same.
    let other_port = browser
        .get(&app.authorize_url(
            &node,
            "notes:read",
            &[
                ("redirect_uri", "http://127.0.0.1:40000/cb"),
                ("scope", "x"),
            ],
        ))
        .await;
    assert!(
        other_port
            .location()
            .is_some_and(|l| l.starts_with("http://127.0.0.1:40000/cb?error=invalid_scope")),
        "{:?}",
        other_port.location()
    );
}

#[tokio::test]
async fn the_upstream_down_at_the_start_is_temporarily_unavailable() {
    let node = node(unreachable(), &Shared::default(), |a| a).await;
    let app = App::register(&node, false).await;
    let page = Browser::new()
        .get(&app.authorize_url(&node, "notes:read", &[]))
        .await;
    assert_refused(&page, &app, &node, "temporarily_unavailable");
}

#[tokio::test]
async fn a_callback_with_an_unknown_or_missing_state_is_an_error_page() {
    let node = node(unreachable(), &Shared::default(), |a| a).await;
    let browser = Browser::new();
    let unknown = browser
        .get(&format!("{}/callback?code=c&state=forged", node.issuer))
        .await;
    assert_error_page(
        &unknown,
        StatusCode::BAD_REQUEST,
        "unknown, expired or finished",
    );
    let missing = browser
        .get(&format!("{}/callback?code=c", node.issuer))
        .await;
    assert_error_page(&missing, StatusCode::BAD_REQUEST, "state");
}

#[tokio::test]
async fn a_consent_without_or_with_a_wrong_token_is_refused() {
    let node = node(unreachable(), &Shared::default(), |a| a).await;
    let browser = Browser::new();
    let consent = format!("{}/consent", node.issuer);
    let without = browser.post(&consent, "decision=allow").await;
    assert_error_page(&without, StatusCode::BAD_REQUEST, "token is missing");
    let wrong = browser.post(&consent, "token=forged&decision=allow").await;
    assert_error_page(
        &wrong,
        StatusCode::FORBIDDEN,
        "unknown, expired or answered",
    );
}

#[tokio::test]
async fn bad_token_requests_get_the_rfc_error_and_no_token() {
    let node = node(unreachable(), &Shared::default(), |a| a).await;
    let public = App::register(&node, false).await;
    let confidential = App::register(&node, true).await;

    let unknown_code = public.redeem(&node, "forged-code").await;
    assert_eq!(
        token_error(&unknown_code, StatusCode::BAD_REQUEST),
        "invalid_grant"
    );
    let unknown_refresh = public
        .token(
            &node,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", "fam.secret"),
            ],
        )
        .await;
    assert_eq!(
        token_error(&unknown_refresh, StatusCode::BAD_REQUEST),
        "invalid_grant"
    );
    let implicit = public.token(&node, &[("grant_type", "password")]).await;
    assert_eq!(
        token_error(&implicit, StatusCode::BAD_REQUEST),
        "unsupported_grant_type"
    );
    let none = public.token(&node, &[]).await;
    assert_eq!(
        token_error(&none, StatusCode::BAD_REQUEST),
        "invalid_request"
    );
    let no_verifier = public
        .token(
            &node,
            &[("grant_type", "authorization_code"), ("code", "c")],
        )
        .await;
    assert_eq!(
        token_error(&no_verifier, StatusCode::BAD_REQUEST),
        "invalid_request"
    );

    let browser = Browser::new();
    let token = format!("{}/token", node.issuer);
    for (headers, body, what) in [
        (
            vec![],
            "grant_type=authorization_code&code=c&client_id=nobody".to_owned(),
            "an unknown client",
        ),
        (
            vec![],
            "grant_type=authorization_code&code=c".to_owned(),
            "no client",
        ),
        (
            vec![],
            format!(
                "grant_type=authorization_code&code=c&client_id={}",
                confidential.client_id
            ),
            "a confidential client without its secret",
        ),
        (
            vec![],
            format!(
                "grant_type=authorization_code&code=c&client_id={}&client_secret=wrong",
                confidential.client_id
            ),
            "a wrong secret",
        ),
    ] {
        let page = browser.post_as_client(&token, &headers, &body).await;
        assert_eq!(
            token_error(&page, StatusCode::UNAUTHORIZED),
            "invalid_client",
            "{what}"
        );
        assert!(
            page.header("www-authenticate")
                .is_some_and(|c| c.starts_with("Basic realm=")),
            "{what}"
        );
    }
    let wrong_basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD
            .encode(format!("{}:wrong", confidential.client_id))
    );
    let page = browser
        .post_as_client(
            &token,
            &[("authorization", &wrong_basic)],
            "grant_type=authorization_code&code=c",
        )
        .await;
    assert_eq!(
        token_error(&page, StatusCode::UNAUTHORIZED),
        "invalid_client"
    );

    let revoked = public
        .post(
            &format!("{}/revoke", node.issuer),
            &[("token", "fam.unknown")],
        )
        .await;
    assert_eq!(revoked.status, StatusCode::OK, "{}", revoked.body);
    assert_eq!(revoked.header("cache-control"), Some("no-store"));
    let stranger = browser
        .post_as_client(
            &format!("{}/revoke", node.issuer),
            &[],
            "token=x&client_id=nobody",
        )
        .await;
    assert_eq!(
        token_error(&stranger, StatusCode::UNAUTHORIZED),
        "invalid_client"
    );
}

/// The user signs in at the upstream provider the browser was sent to (`url`): the provider
/// answers with a redirect to phantom's `/callback`, whose URL this is.
pub(crate) async fn at_upstream(browser: &Browser, node: &Node, url: &str) -> String {
    let page = browser.get(url).await;
    let location = page
        .location()
        .unwrap_or_else(|| panic!("the upstream redirects: {} {}", page.status, page.body));
    assert!(
        location.starts_with(&format!("{}/callback?", node.issuer)),
        "{location}"
    );
    location.to_owned()
}

/// `url` (on any node of the app) sent to `node`'s own address instead.
pub(crate) fn on(node: &Node, url: &str) -> String {
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let path = rest.find('/').map_or("/", |at| &rest[at..]);
    format!("http://{}{path}", node.server.addr)
}

/// The browser from `/authorize` (for `scope`) to phantom's answer at `/callback`: the consent
/// page, or a redirect back to the client.
pub(crate) async fn signing_in(browser: &Browser, node: &Node, app: &App, scope: &str) -> Page {
    let started = browser.get(&app.authorize_url(node, scope, &[])).await;
    let upstream = to_upstream(&started, node);
    let callback = at_upstream(browser, node, &upstream).await;
    browser.get(&callback).await
}

/// The user's answer to the consent page `page`.
pub(crate) async fn answer(
    browser: &Browser,
    node: &Node,
    app: &App,
    page: &Page,
    decision: &str,
) -> Page {
    let token = consent_token(page, app);
    browser
        .post(
            &format!("{}/consent", node.issuer),
            &form(&[("token", &token), ("decision", decision)]),
        )
        .await
}

/// A code for `scope`: signed in, consent given if asked.
pub(crate) async fn code_for(browser: &Browser, node: &Node, app: &App, scope: &str) -> String {
    let back = signing_in(browser, node, app, scope).await;
    let back = if back.status == StatusCode::OK {
        answer(browser, node, app, &back, "allow").await
    } else {
        back
    };
    code_of(&back, app, node)
}

/// The tokens of a successful token response.
#[track_caller]
pub(crate) fn tokens(page: &Page) -> (String, String, Value) {
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert_eq!(page.header("cache-control"), Some("no-store"));
    let body = page.json();
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 300);
    (
        body["access_token"]
            .as_str()
            .expect("an access token")
            .to_owned(),
        body["refresh_token"]
            .as_str()
            .expect("a refresh token")
            .to_owned(),
        body,
    )
}

/// The upstream: the scripted provider, with the credentials phantom is registered with there.
fn upstream_at(idp: &str) -> Upstream {
    Upstream::oidc(idp, crate::idp::CLIENT_ID, crate::idp::CLIENT_SECRET)
}

async fn idp() -> (crate::idp::Idp, Upstream) {
    let (idp, url) = crate::idp::Idp::start(crate::idp::Knobs::default()).await;
    (idp, upstream_at(&url))
}

#[tokio::test]
async fn a_user_signs_in_consents_calls_a_scoped_tool_and_refreshes() {
    let (_idp, upstream) = idp().await;
    let node = node(upstream, &Shared::default(), |a| a).await;
    let app = App::register(&node, false).await;
    let browser = Browser::new();

    let consent = signing_in(&browser, &node, &app, "notes:read").await;
    assert!(consent.body.contains("notes:read"), "{}", consent.body);
    assert!(
        consent.body.contains(&format!("{}/mcp", node.issuer)),
        "the resource"
    );
    assert!(consent.body.contains("ada@example.com"), "the user");
    let back = answer(&browser, &node, &app, &consent, "allow").await;
    let code = code_of(&back, &app, &node);

    let (access, refresh, body) = tokens(&app.redeem(&node, &code).await);
    assert_eq!(body["scope"], "notes:read");
    assert_eq!(
        call(&node, &access, "whoami").await,
        (StatusCode::OK, "user-1 ada@example.com".into())
    );
    let (status, _) = call(&node, &access, "write").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a scope not granted");

    let again = app.redeem(&node, &code).await;
    assert_eq!(
        token_error(&again, StatusCode::BAD_REQUEST),
        "invalid_grant",
        "code reuse"
    );

    let refreshing = |token: String| {
        let app = &app;
        let node = &node;
        async move {
            app.token(
                node,
                &[("grant_type", "refresh_token"), ("refresh_token", &token)],
            )
            .await
        }
    };
    let (access2, refresh2, _) = tokens(&refreshing(refresh.clone()).await);
    assert_ne!(refresh2, refresh, "rotated");
    assert_eq!(call(&node, &access2, "whoami").await.0, StatusCode::OK);
    let (_, refresh3, _) = tokens(&refreshing(refresh2).await);

    let reused = refreshing(refresh.clone()).await;
    assert_eq!(
        token_error(&reused, StatusCode::BAD_REQUEST),
        "invalid_grant"
    );
    assert!(reused.body.contains("revoked"), "{}", reused.body);
    let after = refreshing(refresh3).await;
    assert_eq!(
        token_error(&after, StatusCode::BAD_REQUEST),
        "invalid_grant",
        "the family's current token is revoked with it"
    );
}

#[tokio::test]
async fn a_refresh_may_narrow_not_widen_and_a_revoked_family_refreshes_no_more() {
    let (_idp, upstream) = idp().await;
    let node = node(upstream, &Shared::default(), |a| a).await;
    let app = App::register(&node, true).await;
    let browser = Browser::new();

    let code = code_for(&browser, &node, &app, "notes:read notes:write").await;
    let (access, refresh, body) = tokens(&app.redeem(&node, &code).await);
    assert_eq!(body["scope"], "notes:read notes:write");
    assert_eq!(call(&node, &access, "write").await.0, StatusCode::OK);
    let narrowed = app
        .token(
            &node,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &refresh),
                ("scope", "notes:read"),
            ],
        )
        .await;
    let (narrow, refresh, body) = tokens(&narrowed);
    assert_eq!(body["scope"], "notes:read", "a refresh may narrow");
    assert_eq!(call(&node, &narrow, "whoami").await.0, StatusCode::OK);
    assert_eq!(call(&node, &narrow, "write").await.0, StatusCode::FORBIDDEN);
    let (_, refresh, body) = tokens(
        &app.token(
            &node,
            &[("grant_type", "refresh_token"), ("refresh_token", &refresh)],
        )
        .await,
    );
    assert_eq!(
        body["scope"], "notes:read notes:write",
        "the grant keeps its scopes"
    );
    let wider = app
        .token(
            &node,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &refresh),
                ("scope", "notes:read notes:admin"),
            ],
        )
        .await;
    assert_eq!(
        token_error(&wider, StatusCode::BAD_REQUEST),
        "invalid_scope"
    );

    let code = code_for(&browser, &node, &app, "notes:read").await;
    let (_, refresh, _) = tokens(&app.redeem(&node, &code).await);
    let revoke = format!("{}/revoke", node.issuer);
    for token in [access.as_str(), refresh.as_str(), "unknown"] {
        let revoked = app.post(&revoke, &[("token", token)]).await;
        assert_eq!(revoked.status, StatusCode::OK, "{}", revoked.body);
    }
    let after = app
        .token(
            &node,
            &[("grant_type", "refresh_token"), ("refresh_token", &refresh)],
        )
        .await;
    assert_eq!(
        token_error(&after, StatusCode::BAD_REQUEST),
        "invalid_grant"
    );
}

#[tokio::test]
async fn a_code_needs_its_verifier_its_redirect_uri_and_its_client() {
    let (_idp, upstream) = idp().await;
    let node = node(upstream, &Shared::default(), |a| a).await;
    let app = App::register(&node, false).await;
    let other = App::register(&node, false).await;
    let browser = Browser::new();
    let wrong_verifier = other.verifier.clone();
    let cases: [(&str, Vec<Param<'_>>, &App); 4] = [
        (
            "a wrong verifier",
            vec![("code_verifier", &wrong_verifier)],
            &app,
        ),
        (
            "another redirect URI",
            vec![("redirect_uri", "http://127.0.0.1:5174/cb")],
            &app,
        ),
        ("no redirect URI", vec![("redirect_uri", "")], &app),
        ("another client", vec![], &other),
    ];
    for (what, changes, client) in cases {
        let code = code_for(&browser, &node, &app, "notes:read").await;
        let mut pairs: Vec<(&str, &str)> = vec![
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", &app.redirect_uri),
            ("code_verifier", &app.verifier),
        ];
        for (name, value) in &changes {
            pairs.retain(|(n, _)| n != name);
            if !value.is_empty() {
                pairs.push((name, value));
            }
        }
        let refused = client.token(&node, &pairs).await;
        assert_eq!(
            token_error(&refused, StatusCode::BAD_REQUEST),
            "invalid_grant",
            "{what}"
        );
        let later = app.redeem(&node, &code).await;
        assert_eq!(
            token_error(&later, StatusCode::BAD_REQUEST),
            "invalid_grant",
            "{what}: the code is used up"
        );
    }
}

#[tokio::test]
async fn a_refused_consent_gets_no_code_and_a_remembered_one_is_not_asked_again_until_a_new_scope()
{
    let (_idp, upstream) = idp().await;
    let node = node(upstream, &Shared::default(), |a| a).await;
    let app = App::register(&node, false).await;
    let browser = Browser::new();

    let consent = signing_in(&browser, &node, &app, "notes:read").await;
    let refused = answer(&browser, &node, &app, &consent, "deny").await;
    assert_refused(&refused, &app, &node, "access_denied");
    let again = signing_in(&browser, &node, &app, "notes:read").await;
    assert_eq!(
        again.status,
        StatusCode::OK,
        "a refusal is not remembered: asked again"
    );

    let back = answer(&browser, &node, &app, &again, "allow").await;
    code_of(&back, &app, &node);
    let remembered = signing_in(&browser, &node, &app, "notes:read").await;
    let code = code_of(&remembered, &app, &node);
    tokens(&app.redeem(&node, &code).await);

    let wider = signing_in(&browser, &node, &app, "notes:read notes:write").await;
    assert_eq!(wider.status, StatusCode::OK, "a new scope asks again");
    assert!(wider.body.contains("notes:write"));
    let other = App::register(&node, false).await;
    let other_client = signing_in(&browser, &node, &other, "notes:read").await;
    assert_eq!(
        other_client.status,
        StatusCode::OK,
        "another client asks again"
    );
}

#[tokio::test]
async fn a_consent_posted_without_the_browsers_cookie_or_with_a_wrong_token_issues_nothing() {
    let (_idp, upstream) = idp().await;
    let node = node(upstream, &Shared::default(), |a| a).await;
    let app = App::register(&node, false).await;
    let browser = Browser::new();
    let consent_url = format!("{}/consent", node.issuer);

    let page = signing_in(&browser, &node, &app, "notes:read").await;
    let token = consent_token(&page, &app);
    let wrong = browser
        .post(
            &consent_url,
            &form(&[("token", "forged"), ("decision", "allow")]),
        )
        .await;
    assert_error_page(
        &wrong,
        StatusCode::FORBIDDEN,
        "unknown, expired or answered",
    );

    let attacker = Browser::new();
    let forged = attacker
        .post(
            &consent_url,
            &form(&[("token", &token), ("decision", "allow")]),
        )
        .await;
    assert_error_page(&forged, StatusCode::FORBIDDEN, "not shown to this browser");
    let late = browser
        .post(
            &consent_url,
            &form(&[("token", &token), ("decision", "allow")]),
        )
        .await;
    assert_error_page(&late, StatusCode::FORBIDDEN, "answered already");
}

#[tokio::test]
async fn a_callback_state_is_used_once_and_upstream_errors_go_back_to_the_client() {
    let (idp, upstream) = idp().await;
    let node = node(upstream, &Shared::default(), |a| a).await;
    let app = App::register(&node, false).await;
    let browser = Browser::new();

    let started = browser
        .get(&app.authorize_url(&node, "notes:read", &[]))
        .await;
    let callback = at_upstream(&browser, &node, &to_upstream(&started, &node)).await;
    assert_eq!(browser.get(&callback).await.status, StatusCode::OK);
    let replayed = browser.get(&callback).await;
    assert_error_page(&replayed, StatusCode::BAD_REQUEST, "finished already");

    idp.set(|knobs| knobs.deny = true);
    let denied = signing_in(&browser, &node, &app, "notes:read").await;
    assert_refused(&denied, &app, &node, "access_denied");
    idp.set(|knobs| knobs.deny = false);

    idp.set(|knobs| knobs.nonce = Some("another".into()));
    let lying = signing_in(&browser, &node, &app, "notes:read").await;
    assert_refused(&lying, &app, &node, "server_error");
    idp.set(|knobs| knobs.nonce = None);

    let started = browser
        .get(&app.authorize_url(&node, "notes:read", &[]))
        .await;
    let callback = at_upstream(&browser, &node, &to_upstream(&started, &node)).await;
    idp.stop();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let down = browser.get(&callback).await;
    assert_refused(&down, &app, &node, "temporarily_unavailable");
}

#[tokio::test]
async fn the_apps_grant_callback_maps_the_identity_to_scopes_or_refuses_it() {
    let (_idp, upstream) = idp().await;
    let node = node(upstream, &Shared::default(), |a| {
        a.grant(|identity, requested| match identity.email() {
            Some("ada@example.com") => Ok(requested
                .iter()
                .filter(|s| *s != "notes:write")
                .cloned()
                .collect()),
            _ => Err("not a member".into()),
        })
    })
    .await;
    let app = App::register(&node, false).await;
    let browser = Browser::new();
    let code = code_for(&browser, &node, &app, "notes:read notes:write").await;
    let (_, _, body) = tokens(&app.redeem(&node, &code).await);
    assert_eq!(body["scope"], "notes:read", "the app's mapping");

    let (_idp2, upstream) = idp().await;
    let closed = node_with_grant(upstream).await;
    let app = App::register(&closed, false).await;
    let refused = signing_in(&browser, &closed, &app, "notes:read").await;
    let description = assert_refused(&refused, &app, &closed, "access_denied");
    assert_eq!(description, "members only");
}

async fn node_with_grant(upstream: Upstream) -> Node {
    node(upstream, &Shared::default(), |a| {
        a.grant(|_, _| Err("members only".into()))
    })
    .await
}

#[tokio::test]
async fn two_nodes_sharing_stores_serve_each_step_of_one_sign_in() {
    let (_idp, upstream) = idp().await;
    let shared = Shared::default();
    let a = node(upstream.clone(), &shared, |a| a).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let b = node_on(listener, &a.issuer, upstream, &shared, |a| a).await;
    one_sign_in_across(&a, &b).await;
}

#[tokio::test]
async fn two_nodes_on_one_redis_serve_each_step_of_one_sign_in() {
    use phantom_redis::{
        Redis, RedisClientStore, RedisConsentStore, RedisGrantStore, RedisRefreshStore,
    };
    let redis = phantom_tests::redis::RedisServer::start();
    let (_idp, upstream) = idp().await;
    let on_redis = |redis: Redis| {
        move |server: AuthorizationServer| {
            server
                .clients(RedisClientStore::new(redis.clone()))
                .grants(RedisGrantStore::new(redis.clone()))
                .refreshes(RedisRefreshStore::new(redis.clone()))
                .consents(RedisConsentStore::new(redis))
        }
    };
    let url = redis.url();
    let ra = Redis::connect(&url).await.expect("connect");
    let rb = Redis::connect(&url).await.expect("connect again");
    // Each node keeps its memory stores apart: only Redis joins them.
    let a = node(upstream.clone(), &Shared::default(), on_redis(ra)).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let b = node_on(
        listener,
        &a.issuer,
        upstream,
        &Shared::default(),
        on_redis(rb),
    )
    .await;
    one_sign_in_across(&a, &b).await;
}

/// One sign-in, each step on the other node than the one before: registration on `b`, the
/// authorization request on `a`, the callback on `b`, the consent on `a`, the token on `b`, the
/// MCP call on both, a refresh on `a` and its reuse seen on `b`.
async fn one_sign_in_across(a: &Node, b: &Node) {
    assert_ne!(a.server.addr, b.server.addr);
    let app = App::register(b, false).await;
    let browser = Browser::new();

    let started = browser
        .get(&on(a, &app.authorize_url(a, "notes:read", &[])))
        .await;
    let callback = at_upstream(&browser, a, &to_upstream(&started, a)).await;
    let consent = browser.get(&on(b, &callback)).await;
    let token = consent_token(&consent, &app);
    let back = browser
        .post(
            &on(a, &format!("{}/consent", a.issuer)),
            &form(&[("token", &token), ("decision", "allow")]),
        )
        .await;
    let code = code_of(&back, &app, a);
    let redeemed = Browser::new()
        .post_as_client(
            &on(b, &format!("{}/token", a.issuer)),
            &[],
            &form(&[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", &app.redirect_uri),
                ("code_verifier", &app.verifier),
                ("client_id", &app.client_id),
            ]),
        )
        .await;
    let (access, refresh, _) = tokens(&redeemed);
    for node in [a, b] {
        assert_eq!(call(node, &access, "whoami").await.0, StatusCode::OK);
    }
    let refreshed = app
        .token(
            a,
            &[("grant_type", "refresh_token"), ("refresh_token", &refresh)],
        )
        .await;
    tokens(&refreshed);
    let reused = app
        .token(
            b,
            &[("grant_type", "refresh_token"), ("refresh_token", &refresh)],
        )
        .await;
    assert_eq!(
        token_error(&reused, StatusCode::BAD_REQUEST),
        "invalid_grant",
        "a reuse seen by the other node"
    );
}

/// Where `/authorize` sends the browser (the upstream), checking it is a redirect elsewhere.
#[track_caller]
pub(crate) fn to_upstream(page: &Page, node: &Node) -> String {
    assert_eq!(page.status, StatusCode::FOUND, "{}", page.body);
    let location = page.location().expect("a redirect").to_owned();
    assert!(!location.starts_with(&node.issuer), "{location}");
    location
}

/// The consent page's form token, checking the page.
#[track_caller]
pub(crate) fn consent_token(page: &Page, app: &App) -> String {
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert!(
        page.header("content-security-policy").is_some_and(|c| c
            .contains("frame-ancestors 'none'")
            && c.contains("default-src 'none'"))
    );
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert!(
        page.header("set-cookie")
            .is_some_and(|c| c.contains("HttpOnly"))
    );
    assert!(page.body.contains(&app.client_id), "the client's id");
    assert!(
        page.body.contains("Notes &lt;b&gt;app&lt;/b&gt;") && !page.body.contains("<b>app"),
        "the client's name, escaped: {}",
        page.body
    );
    page.input("token").expect("a form token")
}

/// The code of a redirect back to the client (with its state and the issuer).
#[track_caller]
pub(crate) fn code_of(page: &Page, app: &App, node: &Node) -> String {
    assert_eq!(page.status, StatusCode::FOUND, "{}", page.body);
    let location = page.location().expect("a redirect");
    assert!(location.starts_with(&app.redirect_uri), "{location}");
    let back = query(location);
    assert_eq!(back.get("state").map(String::as_str), Some("client-state"));
    assert_eq!(back.get("iss"), Some(&node.issuer));
    back.get("code").expect("a code").clone()
}

/// Calls `tool` at the node's `/mcp` with `token`: the status and the result's text.
pub(crate) async fn call(node: &Node, token: &str, tool: &str) -> (StatusCode, String) {
    let (status, _, body) = modern_call(&node.server, Some(token), tool, json!({})).await;
    let text = body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (status, text)
}
