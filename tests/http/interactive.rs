//! Input requests over HTTP: on a 2025-11-25 session the handler's `elicitation/create` goes out
//! on the POST's own SSE stream, and the client's answer (a POST, 202) reaches it only on the
//! session it was sent to; on a 2026-07-28 request the first round is an `input_required` result.

use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::{Value, json};

use crate::support::{Confirmer, Event, LEGACY, TestServer, first_text, notification, request};

#[derive(Clone)]
struct Quick;

#[mcp_router(name = "quick", version = "1.0.0")]
impl Quick {
    /// Reports progress twice without yielding in between, then answers.
    #[tool]
    async fn quick(&self, ctx: Ctx) -> &'static str {
        ctx.progress(1.0, Some(2.0), None).await;
        ctx.progress(2.0, Some(2.0), None).await;
        "done"
    }
}

/// Messages sent before a result that is ready at once still go first, on an SSE stream.
#[tokio::test]
async fn progress_sent_without_yielding_is_not_lost() {
    let server = TestServer::start_with(Quick, HttpConfig::default()).await;
    let mut params = json!({"name": "quick", "arguments": {}});
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": 7,
    });
    let events = server
        .post_modern("tools/call", params)
        .send()
        .await
        .sse()
        .rest()
        .await;
    let messages: Vec<Value> = events
        .iter()
        .filter(|e| e.data.as_deref().is_some_and(|d| !d.is_empty()))
        .map(super::support::Event::json)
        .collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[0]["params"]["progress"], 1.0);
    assert_eq!(messages[1]["params"]["progress"], 2.0);
    assert_eq!(first_text(&messages[2]["result"]), "done");
}

#[derive(Clone)]
struct Poller;

#[mcp_router(name = "poller", version = "1.0.0")]
impl Poller {
    /// Reports progress, ends its stream, goes on, reports again and answers.
    #[tool]
    async fn poll_me(&self, ctx: Ctx) -> &'static str {
        ctx.progress(1.0, None, None).await;
        ctx.close_stream();
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        ctx.progress(2.0, None, None).await;
        "finished"
    }
}

/// The data events of an SSE stream, with their ids.
async fn data_events(sse: crate::support::Sse) -> Vec<(Option<String>, Value)> {
    sse.rest()
        .await
        .into_iter()
        .filter(|e| e.data.as_deref().is_some_and(|d| !d.is_empty()))
        .map(|e| (e.id.clone(), e.json()))
        .collect()
}

fn resume(server: &TestServer, session: &str, last: &str) -> crate::support::Call {
    server
        .request(http::Method::GET)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("last-event-id", last)
}

/// A handler that ends its stream goes on; the client resumes with `Last-Event-ID` and gets the
/// rest, result included, even when it resumes before the handler is done.
#[tokio::test]
async fn a_closed_stream_resumes_with_the_rest_of_the_request() {
    let server = TestServer::start_with(Poller, HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let call = request(
        1,
        "tools/call",
        json!({"name": "poll_me", "arguments": {}, "_meta": {"progressToken": "t"}}),
    );
    let events = server
        .post_in(&session, &call)
        .send()
        .await
        .sse()
        .rest()
        .await;
    assert!(events[0].is_priming(), "{events:?}");
    let seen: Vec<&Event> = events
        .iter()
        .filter(|e| e.data.as_deref() != Some(""))
        .collect();
    assert_eq!(
        seen.len(),
        1,
        "only the first progress before the close: {events:?}"
    );
    assert_eq!(seen[0].json()["params"]["progress"], 1.0);
    let last = seen[0].id.clone().expect("an id");

    // Resumed at once, while the handler still sleeps: the rest arrives, then the stream ends.
    let rest = data_events(resume(&server, &session, &last).send().await.sse()).await;
    assert_eq!(rest.len(), 2, "{rest:?}");
    assert_eq!(rest[0].1["params"]["progress"], 2.0);
    assert_eq!(rest[1].1["id"], 1);
    assert_eq!(first_text(&rest[1].1["result"]), "finished");
}

/// A POST stream the client drops is not a cancellation: the handler finishes, and its result is
/// there for `Last-Event-ID`.
#[tokio::test]
async fn a_dropped_stream_is_not_a_cancellation() {
    let server = TestServer::start_with(Confirmer, HttpConfig::default()).await;
    let session = open_session(&server).await;
    let call = request(1, "tools/call", json!({"name": "delete", "arguments": {}}));
    let reply = server.post_in(&session, &call).send().await;
    let mut stream = reply.sse();
    let asked = loop {
        let event = stream.next().await.expect("the elicitation request");
        if event.data.as_deref().is_some_and(|d| !d.is_empty()) {
            break event;
        }
    };
    let last = asked.id.clone().expect("an id");
    let id = asked.json()["id"].clone();
    drop(stream);
    // The handler still waits for its answer; it comes, and the result is stored.
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"action": "decline"}});
    let accepted = server.post_in(&session, &answer).send().await;
    assert_eq!(accepted.status, http::StatusCode::ACCEPTED);
    let rest = data_events(resume(&server, &session, &last).send().await.sse()).await;
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(first_text(&rest[0].1["result"]), "delete decline");
}

async fn open_session(server: &TestServer) -> String {
    let init = request(
        0,
        "initialize",
        json!({"protocolVersion": LEGACY, "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "http-tests", "version": "1.0.0"}}),
    );
    let reply = server.post(&init).send().await;
    let session = reply.session_id().expect("a session id");
    let _ = reply.text().await;
    server
        .post_in(&session, &notification("notifications/initialized"))
        .send()
        .await;
    session
}

#[tokio::test]
async fn a_legacy_answer_counts_only_on_its_own_session() {
    let server = TestServer::start_with(Confirmer, HttpConfig::default()).await;
    let mine = open_session(&server).await;
    let other = open_session(&server).await;

    let call = request(1, "tools/call", json!({"name": "delete", "arguments": {}}));
    let reply = server.post_in(&mine, &call).send().await;
    let mut stream = reply.sse();
    let asked = loop {
        let event = stream.next().await.expect("the elicitation request");
        if event.data.as_deref().is_some_and(|d| !d.is_empty()) {
            break event.json();
        }
    };
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(asked["params"]["message"], "Delete it?");
    let id = asked["id"].clone();
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept", "content": {"ok": true}}});

    // Posted on another session: refused, and the handler keeps waiting.
    let refused = server.post_in(&other, &answer).send().await;
    let error = refused
        .expect_error(http::StatusCode::BAD_REQUEST, -32600)
        .await;
    assert!(
        error["message"].as_str().unwrap().contains("no request"),
        "{error}"
    );

    // Posted on its own session: accepted, and the result follows on the call's stream.
    let accepted = server.post_in(&mine, &answer).send().await;
    assert_eq!(accepted.status, http::StatusCode::ACCEPTED);
    let result = loop {
        let event = stream.next().await.expect("the result");
        if event.data.as_deref().is_some_and(|d| !d.is_empty()) {
            break event.json();
        }
    };
    assert_eq!(result["id"], 1);
    assert_eq!(first_text(&result["result"]), "delete accept");

    // The same answer again: nobody waits for it any more.
    server
        .post_in(&mine, &answer)
        .send()
        .await
        .expect_error(http::StatusCode::BAD_REQUEST, -32600)
        .await;
}

/// An answer posted on the right session by another principal is refused like the session
/// itself (404), and the handler keeps waiting for its own principal's answer.
#[tokio::test]
async fn a_legacy_answer_from_another_principal_is_refused() {
    let server = TestServer::start_with(Confirmer, HttpConfig::default()).await;
    let init = request(
        0,
        "initialize",
        json!({"protocolVersion": LEGACY, "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "http-tests", "version": "1.0.0"}}),
    );
    let reply = server.post(&init).header("x-user", "alice").send().await;
    let session = reply.session_id().expect("a session id");
    let _ = reply.text().await;
    let call = request(1, "tools/call", json!({"name": "delete", "arguments": {}}));
    let reply = server
        .post_in(&session, &call)
        .header("x-user", "alice")
        .send()
        .await;
    let mut stream = reply.sse();
    let asked = loop {
        let event = stream.next().await.expect("the elicitation request");
        if event.data.as_deref().is_some_and(|d| !d.is_empty()) {
            break event.json();
        }
    };
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"ok": true}}});
    server
        .post_in(&session, &answer)
        .header("x-user", "mallory")
        .send()
        .await
        .expect_error(http::StatusCode::NOT_FOUND, -32001)
        .await;
    let accepted = server
        .post_in(&session, &answer)
        .header("x-user", "alice")
        .send()
        .await;
    assert_eq!(accepted.status, http::StatusCode::ACCEPTED);
    let result = loop {
        let event = stream.next().await.expect("the result");
        if event.data.as_deref().is_some_and(|d| !d.is_empty()) {
            break event.json();
        }
    };
    assert_eq!(first_text(&result["result"]), "delete accept");
}

#[tokio::test]
async fn a_modern_first_round_is_input_required() {
    let server = TestServer::start_with(Confirmer, HttpConfig::default()).await;
    let mut params = json!({"name": "delete", "arguments": {}});
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    let body = server
        .post_modern("tools/call", params)
        .send()
        .await
        .json()
        .await;
    let result = &body["result"];
    assert_eq!(result["resultType"], "input_required", "{body}");
    assert_eq!(
        result["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    assert!(result["requestState"].is_string());
    assert!(
        result.get("ttlMs").is_none(),
        "an input_required result is never cached"
    );
}
