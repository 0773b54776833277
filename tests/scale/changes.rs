//! What crosses nodes on the bus: the bus and subscription contracts on Redis, a resource
//! update published on node A heard on node B's GET stream and listen, a cancellation sent to B
//! stopping the request A runs, and the gap a subscriber hears when Redis comes back.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::StreamExt as _;
use http::StatusCode;
use phantom::Config;
use phantom::http::HttpConfig;
use phantom::prelude::*;
use phantom::store::{BusEvent, NotificationBus as _, SubscriptionStore as _};
use phantom_redis::{Redis, RedisBus, RedisSessionStore, RedisSubscriptions};
use phantom_tests::redis::{RedisCluster, RedisServer};
use serde_json::{Value, json};

use crate::support::{
    Dropped, LEGACY, MODERN, Sse, TestServer, first_text, modern_request, request,
};

fn prefix(what: &str) -> String {
    format!("{what}-{}:", uuid::Uuid::new_v4().simple())
}

/// The bus and subscription contracts on two connections to one Redis.
async fn bus_and_subscription_contracts(a: Redis, b: Redis) {
    let prefix = prefix("bus");
    let (a, b) = (a.with_prefix(&prefix), b.with_prefix(&prefix));
    phantom::testing::contract::notification_bus(
        RedisBus::new(a.clone()).await.expect("bus a"),
        RedisBus::new(b.clone()).await.expect("bus b"),
    )
    .await;
    phantom::testing::contract::subscription_store(
        RedisSubscriptions::new(a),
        RedisSubscriptions::new(b),
    )
    .await;
}

/// `subscribed_each` over more sessions than are asked at once: every session's flags, in the
/// order asked, across the windows of `RedisSubscriptions::IN_FLIGHT`.
async fn many_sessions_are_answered_in_order(redis: Redis) {
    let store = RedisSubscriptions::new(redis.with_prefix(prefix("many")));
    let uris = ["many://a".to_owned(), "many://b".to_owned()];
    let count = RedisSubscriptions::IN_FLIGHT * 2 + 7;
    let sessions: Vec<String> = (0..count)
        .map(|i| format!("{i}-{}", uuid::Uuid::new_v4().simple()))
        .collect();
    let expected: Vec<bool> = (0..count).flat_map(|i| [i % 3 == 0, i % 5 == 0]).collect();
    for (session, wanted) in sessions.iter().zip(expected.chunks(2)) {
        for (uri, _) in uris.iter().zip(wanted).filter(|(_, yes)| **yes) {
            store.add(session, uri).await.expect("add");
        }
    }
    let keys: Vec<&str> = sessions.iter().map(String::as_str).collect();
    let flags = store
        .subscribed_each(&keys, &uris)
        .await
        .expect("subscribed_each");
    assert_eq!(flags.len(), expected.len());
    let wrong: Vec<usize> = (0..count)
        .filter(|i| flags[i * 2..i * 2 + 2] != expected[i * 2..i * 2 + 2])
        .collect();
    assert!(wrong.is_empty(), "sessions answered wrongly: {wrong:?}");
    for session in &sessions {
        store.forget(session).await.expect("clean up");
    }
}

#[tokio::test]
async fn many_sessions_are_answered_in_order_by_redis_and_by_a_cluster() {
    let redis = RedisServer::start();
    many_sessions_are_answered_in_order(Redis::connect(&redis.url()).await.expect("connect")).await;
    let cluster = RedisCluster::start();
    many_sessions_are_answered_in_order(Redis::cluster(cluster.urls()).await.expect("connect"))
        .await;
}

/// An idle subscription checks its connection every 5 s; the check must not itself break the
/// connection (a gap would lose what is published while it resubscribes).
#[tokio::test]
async fn an_idle_bus_keeps_its_subscription_past_its_connection_check() {
    let redis = RedisServer::start();
    let conn = Redis::connect(&redis.url()).await.expect("connect");
    let bus = RedisBus::new(conn.with_prefix(prefix("idle")))
        .await
        .expect("bus");
    let mut heard = bus.subscribe();
    tokio::time::sleep(Duration::from_millis(6500)).await;
    let change = phantom::store::Change::ResourcesUpdated {
        uris: vec!["idle://1".into()],
    };
    bus.publish(&change).await.expect("publish");
    let next = tokio::time::timeout(Duration::from_secs(5), heard.next()).await;
    assert!(
        matches!(&next, Ok(Some(BusEvent::Change(c))) if *c == change),
        "the change, with no gap before it: {next:?}"
    );
}

#[tokio::test]
async fn the_bus_and_subscription_contracts_hold_on_redis() {
    let redis = RedisServer::start();
    let url = redis.url();
    let (a, b) = (Redis::connect(&url).await, Redis::connect(&url).await);
    bus_and_subscription_contracts(a.expect("connect"), b.expect("connect")).await;
}

#[tokio::test]
async fn the_bus_and_subscription_contracts_hold_on_a_redis_cluster() {
    let cluster = RedisCluster::start();
    let (a, b) = (
        Redis::cluster(cluster.urls()).await,
        Redis::cluster(cluster.urls()).await,
    );
    bus_and_subscription_contracts(a.expect("connect"), b.expect("connect")).await;
}

#[tokio::test]
async fn a_subscriber_hears_a_gap_when_redis_comes_back() {
    let mut redis = RedisServer::start();
    let conn = Redis::connect(&redis.url())
        .await
        .expect("connect")
        .with_prefix(prefix("gap"));
    let bus = RedisBus::new(conn).await.expect("bus");
    let mut events = bus.subscribe();
    redis.restart();
    let heard = tokio::time::timeout(Duration::from_secs(20), events.next()).await;
    assert!(
        matches!(heard, Ok(Some(BusEvent::Gap))),
        "after Redis restarted the subscription reports a gap: {heard:?}"
    );
    // And it works again.
    let change = phantom::store::Change::ToolsChanged { names: vec![] };
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if bus.publish(&change).await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("publishing works again");
    let heard = tokio::time::timeout(Duration::from_secs(5), events.next()).await;
    assert!(
        matches!(&heard, Ok(Some(BusEvent::Change(c))) if *c == change),
        "{heard:?}"
    );
}

/// A board whose items change; `slow` runs until it is cancelled.
#[derive(Clone, Default)]
struct Board {
    started: Arc<AtomicBool>,
    dropped: Arc<AtomicBool>,
}

#[mcp_router(name = "board", version = "1.0.0")]
impl Board {
    /// One item by id.
    #[resource("board:///items/<id>", mime_type = "text/plain")]
    async fn item(&self, id: u64) -> String {
        format!("item {id}")
    }

    /// Marks an item changed.
    #[tool]
    async fn change(&self, id: u64, notifier: Notifier) -> &'static str {
        notifier
            .notify_resources_updated([format!("board:///items/{id}")])
            .await
            .expect("the bus takes the change");
        "changed"
    }

    /// Waits a minute, unless it is cancelled first.
    #[tool]
    async fn slow(&self) -> &'static str {
        let _guard = Dropped(Arc::clone(&self.dropped));
        self.started.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_secs(60)).await;
        "slept"
    }
}

/// A node of `board` on `redis`: sessions, subscriptions and the bus all in Redis.
async fn node(redis: &RedisServer, prefix: &str, board: Board) -> TestServer {
    let conn = Redis::connect(&redis.url())
        .await
        .expect("connect")
        .with_prefix(prefix);
    let config = Config::default()
        .with_notification_bus(RedisBus::new(conn.clone()).await.expect("bus"))
        .with_subscriptions(RedisSubscriptions::new(conn.clone()))
        .with_session_store(RedisSessionStore::new(conn));
    TestServer::start_configured(board, config, HttpConfig::default()).await
}

async fn next_message(stream: &mut Sse) -> Value {
    stream.next_message().await
}

#[tokio::test]
async fn a_resource_update_published_on_one_node_reaches_streams_on_the_other() {
    let redis = RedisServer::start();
    let prefix = prefix("changes");
    let a = node(&redis, &prefix, Board::default()).await;
    let b = node(&redis, &prefix, Board::default()).await;

    // A legacy session subscribes through A and opens its GET stream on B.
    let session = a.initialize(LEGACY).await;
    let subscribed = a
        .post_in(
            &session,
            &request(2, "resources/subscribe", json!({"uri": "board:///items/1"})),
        )
        .send()
        .await;
    assert_eq!(subscribed.status, StatusCode::OK);
    let mut get = b.get_stream(&session).await;

    // A 2026-07-28 listen on B.
    let mut body = modern_request(
        0,
        "subscriptions/listen",
        json!({
            "notifications": {"resourceSubscriptions": ["board:///items/1"]}
        }),
    );
    body["id"] = json!("listen-1");
    let listen = b
        .post(&body)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "subscriptions/listen")
        .send()
        .await;
    assert_eq!(listen.status, StatusCode::OK);
    let mut listen = listen.sse();
    let ack = next_message(&mut listen).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    // The change is made through A (by a tool on a session of its own).
    let other = a.initialize(LEGACY).await;
    let changed = a
        .post_in(
            &other,
            &request(
                3,
                "tools/call",
                json!({"name": "change", "arguments": {"id": 1}}),
            ),
        )
        .send()
        .await;
    assert_eq!(changed.status, StatusCode::OK);
    assert_eq!(first_text(&changed.json().await["result"]), "changed");

    let on_get = next_message(&mut get).await;
    assert_eq!(
        on_get,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "board:///items/1"}}),
        "the GET stream on B hears the update published on A"
    );
    let on_listen = next_message(&mut listen).await;
    assert_eq!(on_listen["method"], "notifications/resources/updated");
    assert_eq!(on_listen["params"]["uri"], "board:///items/1");
    assert_eq!(
        on_listen["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );
}

/// A listen's subscriptions across a gap: Redis drops the node's pub/sub connection (as it does
/// a frozen serverless instance's), so whatever was published meanwhile is lost; the node
/// reconnects, and tells each listen that every resource it subscribed to may have changed.
#[tokio::test]
async fn a_listen_hears_its_resources_updated_after_a_gap() {
    let redis = RedisServer::start();
    let b = node(&redis, &prefix("after-gap"), Board::default()).await;
    let mut body = modern_request(
        0,
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": ["board:///items/1"]}}),
    );
    body["id"] = json!("listen-gap");
    let listen = b
        .post(&body)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "subscriptions/listen")
        .send()
        .await;
    assert_eq!(listen.status, StatusCode::OK);
    let mut listen = listen.sse();
    let ack = next_message(&mut listen).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");

    let url = redis.url();
    let port = url
        .trim_start_matches("redis://127.0.0.1:")
        .trim_end_matches('/');
    let killed = std::process::Command::new("redis-cli")
        .args(["-p", port, "CLIENT", "KILL", "TYPE", "pubsub"])
        .output()
        .expect("redis-cli");
    assert!(killed.status.success(), "{killed:?}");

    let heard = tokio::time::timeout(Duration::from_secs(10), next_message(&mut listen))
        .await
        .expect("the listen hears of its resource after the gap");
    assert_eq!(
        heard["method"], "notifications/resources/updated",
        "{heard}"
    );
    assert_eq!(heard["params"]["uri"], "board:///items/1", "{heard}");
    assert_eq!(
        heard["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-gap"
    );
}

#[tokio::test]
async fn a_request_running_on_one_node_is_cancelled_through_the_other() {
    let redis = RedisServer::start();
    let prefix = prefix("cancel");
    let board = Board::default();
    let a = node(&redis, &prefix, board.clone()).await;
    let b = node(&redis, &prefix, Board::default()).await;
    let session = a.initialize(LEGACY).await;

    let call = a.post_in(
        &session,
        &request(41, "tools/call", json!({"name": "slow", "arguments": {}})),
    );
    let running = tokio::spawn(call.send());
    tokio::time::timeout(Duration::from_secs(10), async {
        while !board.started.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the slow tool starts on A");

    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 41, "reason": "changed my mind"}});
    let accepted = b.post_in(&session, &cancel).send().await;
    assert_eq!(accepted.status, StatusCode::ACCEPTED);

    let reply = tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .expect("the cancelled request ends within 10 s, not after its minute")
        .expect("the call task");
    assert_eq!(
        reply.status,
        StatusCode::ACCEPTED,
        "a cancelled request gets no response"
    );
    assert!(
        board.dropped.load(Ordering::SeqCst),
        "the handler on A was dropped"
    );
}
