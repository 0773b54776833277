//! The runtime's shape, seen from a client: `connect` runs for every POST (notifications and
//! client responses included), `initialize` already knows the session id, a session change made
//! by a method is stored, and the legacy stateless mode refuses what needs a session by name.

use std::sync::{Arc, Mutex};

use http::{Method, StatusCode};
use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::json;

use crate::support::{
    LEGACY, TestServer, echo_call, first_text, initialize_request, notification, request,
};

#[tokio::test]
async fn connect_sees_and_can_reject_notifications_and_client_responses() {
    let server = TestServer::start(HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let rejected = server
        .post_in(&session, &notification("notifications/initialized"))
        .header("x-role", "anonymous")
        .send()
        .await;
    assert!(rejected.header("www-authenticate").is_some());
    rejected
        .expect_error(StatusCode::UNAUTHORIZED, -32001)
        .await;

    let response = json!({"jsonrpc": "2.0", "id": 41, "result": {}});
    let rejected = server
        .post_in(&session, &response)
        .header("x-role", "banned")
        .send()
        .await;
    let error = rejected.expect_error(StatusCode::FORBIDDEN, -32001).await;
    assert_eq!(error["message"], "banned from the lab");

    // Past `connect`, a response no request waits for is refused as unsolicited.
    let unsolicited = server.post_in(&session, &response).send().await;
    unsolicited
        .expect_error(StatusCode::BAD_REQUEST, -32600)
        .await;
}

/// Records what `connect` saw on every request, `initialize` included: the session id and the
/// session's log level.
#[derive(Clone, Default)]
struct Witness {
    seen: Arc<Mutex<Vec<Option<String>>>>,
    levels: Arc<Mutex<Vec<Option<LogLevel>>>>,
}

#[mcp_router(name = "witness", version = "1.0.0")]
impl Witness {
    /// Echo.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    async fn connect(&self, session: &mut Session, _request: &Request) -> Connect {
        let id = session.id.as_deref().map(str::to_owned);
        self.seen.lock().expect("log").push(id);
        self.levels.lock().expect("log").push(session.log_level);
        Connect::Ok
    }
}

#[tokio::test]
async fn initialize_sees_the_session_id_it_opens() {
    let witness = Witness::default();
    let server = TestServer::start_with(witness.clone(), HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let seen = witness.seen.lock().expect("log").clone();
    assert!(!seen.is_empty());
    assert!(
        seen.iter()
            .all(|id| id.as_deref() == Some(session.as_str())),
        "{seen:?} vs {session}"
    );
}

#[tokio::test]
async fn a_session_change_made_by_a_method_is_stored() {
    let witness = Witness::default();
    let server = TestServer::start_with(witness.clone(), HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let set = request(2, "logging/setLevel", json!({"level": "warning"}));
    let reply = server.post_in(&session, &set).send().await.json().await;
    assert_eq!(reply["result"], json!({}));
    let call = server.post_in(&session, &echo_call(3, "hi")).send().await;
    assert_eq!(first_text(&call.json().await["result"]), "hi");
    // The request after `logging/setLevel` was served from the stored row, with the new level.
    let levels = witness.levels.lock().expect("log").clone();
    assert_eq!(levels.last(), Some(&Some(LogLevel::Warning)), "{levels:?}");
}

#[tokio::test]
async fn stateless_mode_serves_legacy_requests_without_a_session() {
    let server = TestServer::start(HttpConfig::default().with_stateless(true)).await;
    let init = server.post(&initialize_request(LEGACY)).send().await;
    assert!(
        init.session_id().is_none(),
        "no Mcp-Session-Id in stateless mode"
    );
    let body = init.json().await;
    assert_eq!(body["result"]["protocolVersion"], LEGACY);
    assert!(
        body["result"]["capabilities"].get("logging").is_none(),
        "logging/setLevel needs a session, so it is not advertised"
    );

    let call = server.post(&echo_call(2, "alone")).send().await;
    assert_eq!(call.status, StatusCode::OK);
    assert_eq!(first_text(&call.json().await["result"]), "echo: alone");

    let set = request(3, "logging/setLevel", json!({"level": "info"}));
    let error = server
        .post(&set)
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32600)
        .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap_or_default()
            .contains("stateless mode"),
        "{error}"
    );

    for method in [Method::GET, Method::DELETE] {
        let reply = server
            .request(method.clone())
            .header("mcp-session-id", "whatever")
            .header("accept", "text/event-stream")
            .send()
            .await;
        let error = reply
            .expect_error(StatusCode::METHOD_NOT_ALLOWED, -32600)
            .await;
        assert!(
            error["message"]
                .as_str()
                .unwrap_or_default()
                .contains("stateless mode"),
            "{method}: {error}"
        );
    }
}

/// A tool that needs a client capability.
#[derive(Clone)]
struct Needy;

#[mcp_router(name = "needy", version = "1.0.0")]
impl Needy {
    /// Asks the client's model.
    #[tool(requires = ["sampling"])]
    async fn ask(&self) -> String {
        "asked".into()
    }
}

#[tokio::test]
async fn stateless_mode_refuses_tools_that_need_client_capabilities_by_name() {
    let server = TestServer::start_with(Needy, HttpConfig::default().with_stateless(true)).await;
    let call = request(1, "tools/call", json!({"name": "ask", "arguments": {}}));
    let body = server.post(&call).send().await.json().await;
    assert_eq!(body["error"]["code"], -32021);
    assert_eq!(body["error"]["data"]["mode"], "stateless");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("stateless mode"), "{message}");
}

/// A tool that reports progress before its result.
#[derive(Clone)]
struct Slow;

#[mcp_router(name = "slow", version = "1.0.0")]
impl Slow {
    /// Counts to `n`, reporting progress.
    #[tool]
    async fn count(&self, ctx: Ctx, n: u32) -> String {
        for i in 1..=n {
            ctx.progress(f64::from(i), Some(f64::from(n)), None).await;
            tokio::task::yield_now().await;
        }
        format!("counted to {n}")
    }
}

#[tokio::test]
async fn a_response_becomes_an_sse_stream_once_the_handler_sends_something() {
    let server = TestServer::start_with(Slow, HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let call = request(
        2,
        "tools/call",
        json!({"name": "count", "arguments": {"n": 2}, "_meta": {"progressToken": "tok"}}),
    );
    let reply = server.post_in(&session, &call).send().await;
    assert_eq!(reply.session_id().as_deref(), Some(session.as_str()));
    let mut events = reply.sse();
    // A 2025-11-25 session's stream is resumable: a priming event first, then ids on every event.
    let priming = events.next().await.expect("a priming event");
    assert!(priming.is_priming(), "{priming:?}");
    for expected in [1.0, 2.0] {
        let event = events.next().await.expect("a progress event");
        assert!(event.id.is_some(), "{event:?}");
        let message = event.json();
        assert_eq!(message["method"], "notifications/progress");
        assert_eq!(message["params"]["progressToken"], "tok");
        assert_eq!(message["params"]["progress"], expected);
    }
    let last = events.next().await.expect("the result").json();
    assert_eq!(last["id"], 2);
    assert_eq!(first_text(&last["result"]), "counted to 2");
    assert!(
        events.next().await.is_none(),
        "the stream ends after the result"
    );

    // Without a progress token nothing is sent early: a plain JSON answer.
    let quiet = request(
        3,
        "tools/call",
        json!({"name": "count", "arguments": {"n": 2}}),
    );
    let reply = server.post_in(&session, &quiet).send().await;
    assert_eq!(reply.content_type(), Some("application/json"));
    assert_eq!(first_text(&reply.json().await["result"]), "counted to 2");
}

#[tokio::test]
async fn a_modern_request_with_a_progress_token_gets_its_progress_too() {
    let server = TestServer::start_with(Slow, HttpConfig::default()).await;
    let call = |token: Option<u32>| {
        let mut meta = crate::support::modern_meta();
        if let Some(token) = token {
            meta["progressToken"] = token.into();
        }
        server.post_modern(
            "tools/call",
            json!({"name": "count", "arguments": {"n": 2}, "_meta": meta}),
        )
    };
    let reply = call(Some(5)).send().await;
    let mut events = reply.sse();
    for _ in 0..2 {
        let event = events.next().await.expect("a progress event").json();
        assert_eq!(event["method"], "notifications/progress");
        assert_eq!(event["params"]["progressToken"], 5);
    }
    let last = events.next().await.expect("the result").json();
    assert_eq!(first_text(&last["result"]), "counted to 2");

    let quiet = call(None).send().await;
    assert_eq!(quiet.content_type(), Some("application/json"));
    assert_eq!(first_text(&quiet.json().await["result"]), "counted to 2");
}
