//! Two HTTP nodes, one Redis: a legacy session opened on one node is answered by the other, ends
//! on both, and a Redis outage is a 503 that heals without restarting a node.

use std::time::{Duration, Instant};

use http::{Method, StatusCode};
use phantom::Config;
use phantom::http::HttpConfig;
use phantom::protocol::LogLevel;
use phantom::store::SessionStore as _;
use phantom_redis::{Redis, RedisSessionStore};
use phantom_tests::redis::RedisServer;
use serde_json::json;

use crate::support::{
    LEGACY, Lab, MODERN, TestServer, echo_call, first_text, initialize_request, request,
};

const TTL: Duration = Duration::from_secs(60);

/// A store on `redis` under a prefix of this test's own.
async fn store(redis: &RedisServer, prefix: &str) -> RedisSessionStore {
    let conn = Redis::connect(&redis.url())
        .await
        .expect("connect to redis");
    RedisSessionStore::new(conn.with_prefix(prefix))
}

/// A node serving the lab router with its sessions in `redis`.
async fn node(redis: &RedisServer, prefix: &str) -> TestServer {
    let config = Config::default().with_session_store(store(redis, prefix).await);
    let http = HttpConfig::default().with_sessions(1000, TTL);
    TestServer::start_configured(Lab::default(), config, http).await
}

fn prefix() -> String {
    format!("sessions-{}:", uuid::Uuid::new_v4().simple())
}

async fn echo(node: &TestServer, session: &str, text: &str) -> (StatusCode, String) {
    let reply = node.post_in(session, &echo_call(7, text)).send().await;
    let status = reply.status;
    let body = reply.json().await;
    let text = if status == StatusCode::OK {
        first_text(&body["result"]).to_owned()
    } else {
        body.to_string()
    };
    (status, text)
}

#[tokio::test]
async fn a_session_opened_on_one_node_is_answered_by_the_other_and_ends_on_both() {
    let redis = RedisServer::start();
    let prefix = prefix();
    let a = node(&redis, &prefix).await;
    let b = node(&redis, &prefix).await;

    let session = a.initialize(LEGACY).await;
    assert_eq!(
        echo(&b, &session, "to b").await,
        (StatusCode::OK, "echo: to b".to_owned()),
        "node B answers a session node A opened"
    );
    assert_eq!(echo(&a, &session, "to a").await.0, StatusCode::OK);

    // What B changes, A sees: the record moves to revision 2 and A reads it again.
    let set = b
        .post_in(
            &session,
            &request(8, "logging/setLevel", json!({"level": "debug"})),
        )
        .send()
        .await;
    assert_eq!(set.status, StatusCode::OK, "logging/setLevel through B");
    let _ = set.text().await;
    let check = store(&redis, &prefix).await;
    let record = check
        .get(&session, TTL)
        .await
        .expect("redis answers")
        .expect("the record is stored");
    assert_eq!(record.log_level, Some(LogLevel::Debug));
    assert_eq!(
        record.revision, 2,
        "initialize created revision 1, setLevel made 2"
    );
    assert_eq!(record.protocol_version, LEGACY);
    assert_eq!(
        record.client_info.as_ref().map(|c| c.name.as_str()),
        Some("http-tests"),
        "the client's initialize info is in the record"
    );
    assert_eq!(echo(&a, &session, "after").await.0, StatusCode::OK);

    // DELETE through B ends it on both nodes.
    let deleted = b
        .request(Method::DELETE)
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(deleted.status, StatusCode::OK, "DELETE through B");
    for (name, n) in [("A", &a), ("B", &b)] {
        let (status, _) = echo(n, &session, "gone").await;
        assert_eq!(status, StatusCode::NOT_FOUND, "node {name} after DELETE");
    }
    assert!(check.get(&session, TTL).await.expect("redis").is_none());

    // An id no node issued is unknown everywhere.
    assert_eq!(
        echo(&b, "no-such-session", "x").await.0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn a_session_idle_past_its_ttl_expires_in_redis_and_on_every_node() {
    let redis = RedisServer::start();
    let prefix = prefix();
    let node = async |store| {
        let config = Config::default().with_session_store(store);
        let http = HttpConfig::default().with_sessions(1000, Duration::from_millis(800));
        TestServer::start_configured(Lab::default(), config, http).await
    };
    let a = node(store(&redis, &prefix).await).await;
    let b = node(store(&redis, &prefix).await).await;
    let session = a.initialize(LEGACY).await;
    // Used through B within the TTL, it lives on for A too.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(echo(&b, &session, "alive").await.0, StatusCode::OK);
    }
    assert_eq!(echo(&a, &session, "alive").await.0, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(1300)).await;
    for (name, n) in [("A", &a), ("B", &b)] {
        assert_eq!(
            echo(n, &session, "late").await.0,
            StatusCode::NOT_FOUND,
            "node {name} after the idle TTL"
        );
    }
}

#[tokio::test]
async fn redis_down_is_a_503_with_retry_after_and_the_node_recovers_when_it_is_back() {
    let mut redis = RedisServer::start_persistent();
    let prefix = prefix();
    let a = node(&redis, &prefix).await;
    let session = a.initialize(LEGACY).await;

    redis.kill();
    let reply = a.post_in(&session, &echo_call(1, "down")).send().await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(reply.header("retry-after"), Some("1"));
    let body = reply.json().await;
    assert_eq!(body["id"], 1, "the error answers the request's id");
    assert_eq!(body["error"]["code"], -32603);
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("session store") && message.contains("redis"),
        "the error names the session store and Redis: {message}"
    );
    let opened = a.post(&initialize_request(LEGACY)).send().await;
    assert_eq!(
        opened.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "no session opens while its store is down"
    );
    assert!(opened.session_id().is_none(), "and none is handed out");
    // A 2026-07-28 request needs nothing shared.
    let modern = a
        .post_modern(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "stateless"}}),
        )
        .send()
        .await;
    assert_eq!(
        modern.status,
        StatusCode::OK,
        "modern requests are served meanwhile"
    );
    assert_eq!(
        first_text(&modern.json().await["result"]),
        "echo: stateless"
    );
    let _ = MODERN;

    // Back: the same session answers again, with no node restarted.
    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (status, text) = echo(&a, &session, "back").await;
        if status == StatusCode::OK {
            assert_eq!(text, "echo: back");
            break;
        }
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{text}");
        assert!(
            Instant::now() < deadline,
            "the node did not reconnect within 15 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let fresh = a.initialize(LEGACY).await;
    assert_eq!(echo(&a, &fresh, "new").await.0, StatusCode::OK);
}
