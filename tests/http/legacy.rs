//! The 2025-11-25 era over JSON responses: sessions, their lifecycle, and the legacy error statuses.

use std::time::Duration;

use http::{Method, StatusCode};
use phantom::http::HttpConfig;
use serde_json::json;

use crate::support::{
    LEGACY, Lab, TestServer, echo_call, first_text, initialize_request, notification, request,
};

#[tokio::test]
async fn initialize_returns_json_and_a_random_visible_ascii_session_id() {
    let server = TestServer::start(HttpConfig::default()).await;
    let reply = server.post(&initialize_request(LEGACY)).send().await;
    assert_eq!(reply.status, StatusCode::OK);
    let id = reply
        .session_id()
        .expect("Mcp-Session-Id on the InitializeResult");
    assert!(
        id.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "visible ASCII: {id:?}"
    );
    // base64url: 6 bits a character; at least 128 bits of randomness.
    assert!(id.len() * 6 >= 128, "too short for 128 bits: {id:?}");
    let body = reply.json().await;
    assert_eq!(body["id"], 0);
    assert_eq!(body["result"]["protocolVersion"], LEGACY);
    assert_eq!(body["result"]["serverInfo"]["name"], "lab");
    assert!(
        body["result"]["capabilities"]["tools"].is_object(),
        "{body}"
    );

    let other = server.post(&initialize_request(LEGACY)).send().await;
    assert_ne!(
        other.session_id().as_deref(),
        Some(id.as_str()),
        "ids are fresh per session"
    );
}

#[tokio::test]
async fn tools_call_in_a_session_is_200_json() {
    let server = TestServer::start(HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let reply = server
        .post_in(&session, &echo_call(7, "hi"))
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.session_id().as_deref(), Some(session.as_str()));
    let body = reply.json().await;
    assert_eq!(body["id"], 7);
    assert_eq!(first_text(&body["result"]), "echo: hi");
    assert_ne!(body["result"]["isError"], true, "{body}");

    let list = server
        .post_in(&session, &request(8, "tools/list", json!({})))
        .send()
        .await;
    assert_eq!(list.status, StatusCode::OK);
    let body = list.json().await;
    assert_eq!(body["result"]["tools"][0]["name"], "echo");
}

#[tokio::test]
async fn notifications_are_accepted_with_202_and_unsolicited_responses_refused_with_400() {
    let server = TestServer::start(HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let reply = server
        .post_in(&session, &notification("notifications/roots/list_changed"))
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert!(reply.bytes().await.is_empty());

    // Responses to requests this server never sent: 400, -32600, no id.
    let response = json!({"jsonrpc": "2.0", "id": 41, "result": {}});
    let reply = server.post_in(&session, &response).send().await;
    let error = reply.expect_error(StatusCode::BAD_REQUEST, -32600).await;
    assert!(error["message"].as_str().unwrap().contains("41"), "{error}");

    let error = json!({"jsonrpc": "2.0", "id": 42, "error": {"code": -1, "message": "no"}});
    let reply = server.post_in(&session, &error).send().await;
    reply.expect_error(StatusCode::BAD_REQUEST, -32600).await;
}

#[tokio::test]
async fn a_request_without_a_session_id_is_400() {
    let server = TestServer::start(HttpConfig::default()).await;
    let error = server
        .post(&request(3, "tools/list", json!({})))
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32600)
        .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("Mcp-Session-Id"),
        "{error}"
    );
}

#[tokio::test]
async fn the_request_id_is_kept_on_transport_errors() {
    let server = TestServer::start(HttpConfig::default()).await;
    let reply = server
        .post(&request(99, "tools/list", json!({})))
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json().await["id"], 99);
}

#[tokio::test]
async fn an_unsupported_protocol_version_header_is_400() {
    let server = TestServer::start(HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let error = server
        .post_in(&session, &request(1, "tools/list", json!({})))
        .header("mcp-protocol-version", "1999-01-01")
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32600)
        .await;
    assert!(
        error["message"].as_str().unwrap().contains("1999-01-01"),
        "{error}"
    );
}

#[tokio::test]
async fn a_modern_version_header_on_a_legacy_body_is_400_invalid_params() {
    let server = TestServer::start(HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    server
        .post_in(&session, &request(1, "tools/list", json!({})))
        .header("mcp-protocol-version", "2026-07-28")
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32602)
        .await;
}

#[tokio::test]
async fn a_batch_in_a_2025_11_25_session_is_400_invalid_request() {
    let server = TestServer::start(HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let batch = json!([request(1, "tools/list", json!({})), echo_call(2, "x")]);
    let error = server
        .post_in(&session, &batch)
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32600)
        .await;
    assert!(
        error["message"].as_str().unwrap().contains("batch"),
        "{error}"
    );
}

#[tokio::test]
async fn a_batch_in_a_2025_03_26_session_is_answered_with_an_array() {
    let server = TestServer::start(HttpConfig::default()).await;
    let session = server.initialize("2025-03-26").await;
    let batch = json!([
        echo_call(1, "a"),
        notification("notifications/x"),
        echo_call(2, "b")
    ]);
    let reply = server.post_in(&session, &batch).send().await;
    assert_eq!(reply.status, StatusCode::OK);
    let body = reply.json().await;
    let items = body.as_array().expect("an array");
    assert_eq!(items.len(), 2, "{body}");
    assert_eq!(first_text(&items[0]["result"]), "echo: a");
    assert_eq!(first_text(&items[1]["result"]), "echo: b");
}

#[tokio::test]
async fn a_parse_error_is_400_with_32700_and_a_null_id() {
    let server = TestServer::start(HttpConfig::default()).await;
    let reply = server
        .request(Method::POST)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json().await;
    assert_eq!(body["error"]["code"], -32700, "{body}");
    assert_eq!(body["id"], json!(null));
}

#[tokio::test]
async fn an_unknown_session_id_is_404() {
    let server = TestServer::start(HttpConfig::default()).await;
    let error = server
        .post_in("no-such-session", &request(5, "tools/list", json!({})))
        .send()
        .await
        .expect_error(StatusCode::NOT_FOUND, -32001)
        .await;
    assert_eq!(error["message"], "Session not found");
    server
        .request(Method::GET)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", "no-such-session")
        .send()
        .await
        .expect_error(StatusCode::NOT_FOUND, -32001)
        .await;
    server
        .request(Method::DELETE)
        .header("mcp-session-id", "no-such-session")
        .send()
        .await
        .expect_error(StatusCode::NOT_FOUND, -32001)
        .await;
}

#[tokio::test]
async fn delete_runs_terminate_and_the_session_is_then_404() {
    let lab = Lab::default();
    let server = TestServer::start_with(lab.clone(), HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let other = server.initialize(LEGACY).await;

    let reply = server
        .request(Method::DELETE)
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(*lab.terminated.lock().unwrap(), vec![session.clone()]);

    server
        .post_in(&session, &echo_call(1, "after"))
        .send()
        .await
        .expect_error(StatusCode::NOT_FOUND, -32001)
        .await;
    server
        .request(Method::DELETE)
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect_error(StatusCode::NOT_FOUND, -32001)
        .await;
    assert_eq!(
        lab.terminated.lock().unwrap().len(),
        1,
        "terminate runs once"
    );

    // Other sessions are untouched.
    let reply = server
        .post_in(&other, &echo_call(2, "still here"))
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        first_text(&reply.json().await["result"]),
        "echo: still here"
    );
}

#[tokio::test]
async fn an_idle_session_is_evicted_after_its_ttl() {
    let config = HttpConfig::default().with_sessions(10, Duration::from_millis(300));
    let server = TestServer::start(config).await;
    let session = server.initialize(LEGACY).await;
    // Activity keeps it alive.
    for i in 0..3 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let reply = server.post_in(&session, &echo_call(i, "ping")).send().await;
        assert_eq!(reply.status, StatusCode::OK, "active session, round {i}");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    server
        .post_in(&session, &echo_call(9, "late"))
        .send()
        .await
        .expect_error(StatusCode::NOT_FOUND, -32001)
        .await;
}

#[tokio::test]
async fn the_session_cap_answers_503() {
    let config = HttpConfig::default().with_sessions(1, Duration::from_secs(60));
    let server = TestServer::start(config).await;
    let first = server.initialize(LEGACY).await;
    let reply = server.post(&initialize_request(LEGACY)).send().await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(reply.session_id().is_none());
    let body = reply.json().await;
    assert_eq!(body["error"]["code"], -32603, "{body}");

    // The live session keeps working; once it is deleted there is room again.
    let reply = server.post_in(&first, &echo_call(1, "x")).send().await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = server
        .request(Method::DELETE)
        .header("mcp-session-id", &first)
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    server.initialize(LEGACY).await;
}

#[tokio::test]
async fn the_session_cap_makes_room_by_evicting_idle_sessions() {
    let config = HttpConfig::default().with_sessions(1, Duration::from_millis(200));
    let server = TestServer::start(config).await;
    let first = server.initialize(LEGACY).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    server.initialize(LEGACY).await;
    server
        .post_in(&first, &echo_call(1, "x"))
        .send()
        .await
        .expect_error(StatusCode::NOT_FOUND, -32001)
        .await;
}

#[tokio::test]
async fn a_get_stream_ends_when_its_session_is_deleted_and_a_new_one_may_open_after_it() {
    let server = TestServer::start_with(Lab::default(), HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let other = server.initialize(LEGACY).await;
    let open = |id: &str| {
        server
            .request(Method::GET)
            .header("mcp-session-id", id)
            .header("accept", "text/event-stream")
            .send()
    };
    let mut stream = open(&session).await.sse();
    assert!(stream.next().await.expect("the priming event").is_priming());
    let mut kept = open(&other).await.sse();
    assert!(kept.next().await.expect("the priming event").is_priming());
    // A second stream of the same session is refused while the first is open.
    assert_eq!(open(&session).await.status, StatusCode::CONFLICT);

    let reply = server
        .request(Method::DELETE)
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        stream.rest().await,
        Vec::new(),
        "the deleted session's stream ends, with nothing more"
    );

    // The other session's stream is open: its client closes it, and the session opens another.
    drop(kept);
    let mut waited = Duration::ZERO;
    let reopened = loop {
        let reply = open(&other).await;
        if reply.status != StatusCode::CONFLICT || waited > Duration::from_secs(5) {
            break reply;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += Duration::from_millis(20);
    };
    assert!(
        reopened
            .sse()
            .next()
            .await
            .expect("the priming event")
            .is_priming()
    );
}
