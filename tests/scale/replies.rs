//! Server-to-client requests across nodes: an elicitation asked by a handler on node A, answered
//! through node B (the reply-bus contract runs in `contract.rs`).

use http::StatusCode;
use phantom::Config;
use phantom::http::HttpConfig;
use phantom_redis::{Redis, RedisReplyBus, RedisSessionStore};
use phantom_tests::redis::RedisServer;
use serde_json::{Value, json};

use crate::support::{Confirmer, LEGACY, TestServer, first_text, notification, request};

async fn node(redis: &RedisServer, prefix: &str) -> TestServer {
    let conn = Redis::connect(&redis.url())
        .await
        .expect("connect")
        .with_prefix(prefix);
    let bus = RedisReplyBus::new(conn.clone()).await.expect("reply bus");
    let config = Config::default()
        .with_reply_bus(bus)
        .with_session_store(RedisSessionStore::new(conn));
    TestServer::start_configured(Confirmer, config, HttpConfig::default()).await
}

async fn next_message(stream: &mut crate::support::Sse) -> Value {
    loop {
        let event = stream.next().await.expect("an event");
        if event.data.as_deref().is_some_and(|d| !d.is_empty()) {
            return event.json();
        }
    }
}

#[tokio::test]
async fn an_elicitation_asked_on_one_node_is_answered_through_the_other() {
    let redis = RedisServer::start();
    let prefix = format!("elicit-{}:", uuid::Uuid::new_v4().simple());
    let a = node(&redis, &prefix).await;
    let b = node(&redis, &prefix).await;

    let init = request(
        0,
        "initialize",
        json!({"protocolVersion": LEGACY, "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "scale-tests", "version": "1.0.0"}}),
    );
    let reply = a.post(&init).send().await;
    let session = reply.session_id().expect("a session id");
    let _ = reply.text().await;
    let ack = b
        .post_in(&session, &notification("notifications/initialized"))
        .send()
        .await;
    assert_eq!(ack.status, StatusCode::ACCEPTED);

    let call = request(1, "tools/call", json!({"name": "delete", "arguments": {}}));
    let mut stream = a.post_in(&session, &call).send().await.sse();
    let asked = next_message(&mut stream).await;
    assert_eq!(asked["method"], "elicitation/create");
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"].clone(),
                        "result": {"action": "accept", "content": {"ok": true}}});

    let accepted = b.post_in(&session, &answer).send().await;
    assert_eq!(
        accepted.status,
        StatusCode::ACCEPTED,
        "node B hands the answer to the handler waiting on A"
    );
    let result = next_message(&mut stream).await;
    assert_eq!(result["id"], 1);
    assert_eq!(
        first_text(&result["result"]),
        "delete accept",
        "the handler on A resumed"
    );

    // The answer was claimed: a second one, through either node, is refused.
    for (name, n) in [("A", &a), ("B", &b)] {
        let again = n.post_in(&session, &answer).send().await;
        assert_eq!(
            again.status,
            StatusCode::BAD_REQUEST,
            "a repeated answer through {name}"
        );
    }
}
