//! `phantom::client`'s OAuth flow (feature `oauth`) against a small scripted authorization
//! server and MCP server (axum) on one address: the protected resource metadata, the
//! authorization server's, dynamic registration, the authorization redirect, the token
//! endpoint checking PKCE, and an MCP endpoint that wants the token it issued.

use std::sync::Arc;

use phantom::client::{
    AuthStep, Authorize, Client, ClientError, FetchRedirect, FileTokenStore, Loopback,
    MemoryTokenStore, OAuth, TokenStore as _,
};
use serde_json::json;

use crate::scripted::{
    REDIRECT, REFRESH, REFRESHED, Script, Shared, TOKEN, connect, servers, two_clients_refresh_once,
};

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

pub(crate) use phantom_tests::logs::Captured;

#[tokio::test]
async fn no_token_code_verifier_or_state_is_logged_even_at_trace() {
    let (captured, _guard) = Captured::trace();
    let (base, script) = servers(Script::default()).await;
    flow_then_refresh(&base, &script).await;
    let log = captured.text();
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

/// A directory of this test's own under the system's temporary directory.
pub(crate) fn scratch() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("phantom-tokens-{}", uuid::Uuid::new_v4().simple()))
}

#[tokio::test]
async fn the_token_store_contract_holds_in_memory_and_in_a_file() {
    let memory = Arc::new(MemoryTokenStore::new());
    phantom::testing::contract::token_store(Arc::clone(&memory), memory).await;
    let dir = scratch();
    let path = dir.join("nested/tokens.json");
    phantom::testing::contract::token_store(FileTokenStore::new(&path), FileTokenStore::new(&path))
        .await;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |p: &std::path::Path| std::fs::metadata(p).expect("stat").permissions().mode();
        assert_eq!(mode(&path) & 0o777, 0o600, "the file is its owner's only");
        assert_eq!(
            mode(path.parent().expect("dir")) & 0o777,
            0o700,
            "so is its directory"
        );
    }
    let text = std::fs::read_to_string(&path).expect("the file");
    serde_json::from_str::<serde_json::Value>(&text).expect("one JSON document");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_token_file_that_cannot_be_read_is_an_error() {
    let dir = scratch();
    std::fs::create_dir_all(&dir).expect("dir");
    // Its directory is a file: nothing under it can be read or made.
    let blocker = dir.join("not-a-dir");
    std::fs::write(&blocker, "").expect("a file");
    phantom::testing::contract::token_store_fault(FileTokenStore::new(blocker.join("tokens.json")))
        .await;
    // A file that is not JSON is not "nothing kept".
    let garbled = dir.join("garbled.json");
    std::fs::write(&garbled, "{not json").expect("a file");
    let error = FileTokenStore::new(&garbled)
        .load("http://x/mcp")
        .await
        .expect_err("a garbled file");
    assert!(error.to_string().contains("garbled.json"), "{error}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_token_store_that_cannot_be_read_fails_at_the_store_step_without_authorizing() {
    let (base, script) = servers(Script::default()).await;
    let dir = scratch();
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("not-a-dir"), "").expect("a file");
    let store = FileTokenStore::new(dir.join("not-a-dir/tokens.json"));
    match refused(&base, OAuth::new(REDIRECT).token_store(store)).await {
        ClientError::Auth {
            step: AuthStep::Store,
            message,
        } => assert!(message.contains("tokens.json"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(script.lock().unwrap().authorizations, 0, "no authorization");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn two_clients_sharing_a_store_refresh_once() {
    let (base, script) = servers(Script::default()).await;
    two_clients_refresh_once(&base, &script, Arc::new(MemoryTokenStore::new())).await;
    let (base, script) = servers(Script::default()).await;
    let dir = scratch();
    two_clients_refresh_once(
        &base,
        &script,
        Arc::new(FileTokenStore::new(dir.join("t.json"))),
    )
    .await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn no_token_is_logged_when_clients_share_a_store_even_at_trace() {
    let (captured, _guard) = Captured::trace();
    let (base, script) = servers(Script::default()).await;
    let dir = scratch();
    let store = Arc::new(FileTokenStore::new(dir.join("t.json")));
    tracing::debug!(store = ?store, "the store");
    two_clients_refresh_once(&base, &script, store).await;
    let log = captured.text();
    assert!(log.contains("the store"), "the test logged: {log}");
    for secret in [TOKEN, REFRESHED, REFRESH, "rotated-refresh-token"] {
        assert!(!log.contains(secret), "`{secret}` is in the log:\n{log}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_token_file_lock_that_says_nothing_is_held_until_it_is_old() {
    let dir = scratch();
    let path = dir.join("tokens.json");
    let store = FileTokenStore::new(&path);
    let resource = "http://x.example/mcp";
    let ttl = std::time::Duration::from_secs(30);
    assert!(store.lock(resource, "a", ttl).await.expect("lock"));
    let lock = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "lock"))
        .expect("a lock file beside the token file");
    // Its maker made it and has not written it yet: still held.
    std::fs::write(&lock, "").expect("empty it");
    assert!(!store.lock(resource, "b", ttl).await.expect("lock"));
    let _ = std::fs::remove_dir_all(dir);
}

/// The user's browser, scripted: follows the authorization URL to its redirect, but first sends
/// the loopback listener a stray request and a redirect with another `state`.
async fn browser(url: String) -> Result<(), String> {
    let redirect = FetchRedirect.authorize(&url).await?;
    let (callback, _) = redirect.split_once('?').ok_or("no query")?;
    let origin = callback.trim_end_matches("/callback");
    for (stray, status) in [
        (format!("{origin}/favicon.ico"), 404),
        (format!("{callback}?code=stolen&state=forged"), 400),
    ] {
        let answer = get(&stray).await?;
        if answer != status {
            return Err(format!("{stray} answered {answer}, not {status}"));
        }
    }
    match get(&redirect).await? {
        200 => Ok(()),
        other => Err(format!("the redirect answered {other}")),
    }
}

/// The status of a GET of `url`.
async fn get(url: &str) -> Result<u16, String> {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<http_body_util::Empty<bytes::Bytes>>();
    let uri: hyper::Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
    let answer = client.get(uri).await.map_err(|e| format!("{url}: {e}"))?;
    Ok(answer.status().as_u16())
}

#[tokio::test]
async fn a_loopback_listener_takes_the_redirect_of_its_own_authorization_only() {
    let (base, script) = servers(Script::default()).await;
    let (done, mut browsed) = tokio::sync::mpsc::unbounded_channel();
    let step = Loopback::bind(0)
        .await
        .expect("binds 127.0.0.1")
        .show(move |url| {
            let done = done.clone();
            let url = url.to_owned();
            tokio::spawn(async move { done.send(browser(url).await) });
        });
    let redirect = step.redirect_uri().to_owned();
    assert!(
        redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"),
        "{redirect}"
    );
    let client = connect(&base, OAuth::new(&redirect).authorize(step))
        .await
        .expect("connects through the loopback redirect");
    browsed
        .recv()
        .await
        .expect("the browser ran")
        .expect("the browser's requests were answered as expected");
    let result = client.call_tool("echo", json!({})).await.expect("call");
    assert_eq!(result.text_content(), "authorized");
    let script = script.lock().unwrap();
    assert_eq!(
        script.authorization.as_ref().unwrap()["redirect_uri"],
        redirect
    );
    assert_eq!(script.token.as_ref().unwrap()["code"], "the-code");
}

#[tokio::test]
async fn a_loopback_listener_that_gets_no_redirect_ends_at_the_authorization_step() {
    let (base, _) = servers(Script::default()).await;
    let step = Loopback::bind(0)
        .await
        .expect("binds 127.0.0.1")
        .wait(std::time::Duration::from_millis(300))
        .show(|_| {});
    let redirect = step.redirect_uri().to_owned();
    let error = refused(&base, OAuth::new(&redirect).authorize(step)).await;
    match &error {
        ClientError::Auth {
            step: AuthStep::Authorization,
            message,
        } => assert!(message.contains("no redirect came"), "{message}"),
        other => panic!("{other:?}"),
    }
}

/// An interactive step that must not run.
struct NoUser;

impl Authorize for NoUser {
    async fn authorize(&self, _url: &str) -> Result<String, String> {
        Err("no user here".to_owned())
    }
}

#[tokio::test]
async fn a_client_of_another_process_refreshes_as_the_client_the_tokens_were_issued_to() {
    let (base, script) = servers(Script {
        rotating: true,
        ..Script::default()
    })
    .await;
    let file = scratch().join("tokens.json");
    let first = connect(
        &base,
        OAuth::new(REDIRECT).token_store(FileTokenStore::new(&file)),
    )
    .await
    .expect("connects through the OAuth flow");
    first.close().await;
    let kept = std::fs::read_to_string(&file).expect("the token file");
    assert!(kept.contains("scripted-client"), "the client is kept");
    script.lock().unwrap().valid = Some(REFRESHED);
    // Another process: the same file, no memory of the registration, no user to ask.
    let second = connect(
        &base,
        OAuth::new(REDIRECT)
            .authorize(NoUser)
            .token_store(FileTokenStore::new(&file)),
    )
    .await
    .expect("connects with a refresh");
    second.call_tool("echo", json!({})).await.expect("call");
    let script = script.lock().unwrap();
    assert_eq!(
        (
            script.registrations,
            script.authorizations,
            script.refreshes
        ),
        (1, 1, 1),
        "no second registration, no second authorization (the scripted token endpoint refreshes \
         for the client the tokens were issued to only)"
    );
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
}

#[tokio::test]
async fn a_refresh_that_fails_is_named_in_the_error_of_the_flow_after_it() {
    let (base, script) = servers(Script::default()).await;
    let store = Arc::new(MemoryTokenStore::new());
    let first = connect(&base, OAuth::new(REDIRECT).token_store(Arc::clone(&store)))
        .await
        .expect("connects through the OAuth flow");
    first.close().await;
    {
        let mut script = script.lock().unwrap();
        script.valid = Some(REFRESHED);
        script.token_endpoint = Some("http://127.0.0.1:9/token".to_owned());
    }
    let error = refused(
        &base,
        OAuth::new(REDIRECT)
            .authorize(NoUser)
            .token_store(Arc::clone(&store)),
    )
    .await;
    match &error {
        ClientError::Auth {
            step: AuthStep::Authorization,
            message,
        } => assert!(
            message.contains("no user here") && message.contains("the refresh failed"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_step_up_is_not_asked_again_for_the_scopes_it_asked_for() {
    let (base, script) = servers(Script {
        call_scope: Some("notes:admin"),
        ..Script::default()
    })
    .await;
    let client = connect(&base, OAuth::new(REDIRECT))
        .await
        .expect("connects through the OAuth flow");
    // The first call's 403 steps up once (the union of scopes), and the server refuses again.
    let first = client.call_tool("echo", json!({})).await.expect_err("403");
    assert!(
        matches!(first, ClientError::Http { status: 403, .. }),
        "{first:?}"
    );
    // Every later call: refused without asking the user again.
    for _ in 0..3 {
        let again = client
            .call_tool("echo", json!({}))
            .await
            .expect_err("refused");
        match &again {
            ClientError::Auth {
                step: AuthStep::Authorization,
                message,
            } => assert!(message.contains("notes:admin"), "{message}"),
            other => panic!("{other:?}"),
        }
    }
    let script = script.lock().unwrap();
    assert_eq!(
        script.authorizations, 2,
        "the first authorization and one step-up"
    );
    assert_eq!(
        script.authorization.as_ref().unwrap()["scope"],
        "notes:admin",
        "the step-up asked for the challenge's scope"
    );
}

#[tokio::test]
async fn a_bearer_header_and_oauth_together_are_refused_at_connect() {
    let error = Client::http("http://127.0.0.1:9/mcp")
        .bearer("static")
        .oauth(OAuth::new(REDIRECT))
        .connect()
        .await
        .expect_err("refused");
    assert!(error.to_string().contains("give one of them"), "{error}");
}

/// A front server of its own (bearer tokens: `front-token`) with the scripted server at `base`
/// mounted as `up`, authenticating with `oauth`.
async fn gateway_to(base: &str, oauth: OAuth) -> crate::support::TestServer {
    use phantom::auth::{AuthInfo, BearerAuth, StaticTokens};

    #[derive(Clone)]
    struct Front;

    #[phantom::prelude::mcp_router(name = "front", version = "1.0.0")]
    impl Front {}

    let tokens = StaticTokens::new().token("front-token", AuthInfo::new("ada"));
    let config = phantom::Config::default().with_bearer_auth(BearerAuth::new(tokens));
    let front = phantom::dispatch::Dispatcher::with_config(Front, config);
    phantom::gateway::Upstream::http(format!("{base}/mcp"))
        .prefix("up")
        .oauth(oauth)
        .mount(&front.registry())
        .await
        .expect("the upstream mounts with its own token");
    crate::support::TestServer::start_dispatcher(front, phantom::http::HttpConfig::default()).await
}

#[tokio::test]
async fn a_gateway_upstream_gets_its_own_token_and_never_the_front_clients() {
    let (base, script) = servers(Script::default()).await;
    let front = gateway_to(&base, OAuth::new(REDIRECT)).await;
    for era in [phantom::client::Era::Modern, phantom::client::Era::Legacy] {
        let client = Client::http(&format!("http://{}/mcp", front.addr))
            .era(era)
            .bearer("front-token")
            .connect()
            .await
            .expect("the front takes its own token");
        let result = client.call_tool("up_echo", json!({})).await.expect("call");
        assert_eq!(result.text_content(), "authorized", "{era:?}");
        client.close().await;
    }
    let script = script.lock().unwrap();
    assert!(script.served.contains(&"tools/call".to_owned()));
    assert!(!script.seen.is_empty());
    assert!(
        script.seen.iter().all(|sent| !sent.contains("front-token")),
        "the front client's token reached the upstream: {:?}",
        script.seen
    );
    assert_eq!(
        (script.registrations, script.authorizations),
        (1, 1),
        "one flow for every connection of the gateway to the upstream"
    );
}

#[tokio::test]
async fn a_token_the_upstream_refuses_is_the_gateways_own_error() {
    let (base, script) = servers(Script::default()).await;
    let front = gateway_to(&base, OAuth::new(REDIRECT)).await;
    // The upstream takes no token any more, not even a refreshed one.
    script.lock().unwrap().valid = Some("never-issued");
    let client = Client::http(&format!("http://{}/mcp", front.addr))
        .era(phantom::client::Era::Modern)
        .bearer("front-token")
        .connect()
        .await
        .expect("the front takes its own token");
    let error = client
        .call_tool("up_echo", json!({}))
        .await
        .expect_err("the upstream refuses");
    let ClientError::Rpc {
        code,
        message,
        data,
    } = &error
    else {
        panic!("the gateway's JSON-RPC error, not {error}");
    };
    // The front's client gets the gateway's error (its own token was good), naming the
    // upstream and its status, without the upstream's challenge.
    assert_eq!(*code, -32603, "{message}");
    assert!(message.contains("HTTP 401"), "{message}");
    assert!(!message.contains("resource_metadata"), "{message}");
    assert_eq!(data.as_ref().unwrap()["upstream"], format!("{base}/mcp"));
    assert!(
        script.lock().unwrap().refreshes >= 1,
        "a refresh was tried first"
    );
}
