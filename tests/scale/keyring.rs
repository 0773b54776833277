//! A cluster that refuses to be mis-keyed: nodes on one Redis publish the tags of their
//! `requestState` keys; a node whose key shares none with them does not start, saying what to
//! set, and a node whose keyring overlaps theirs (a rotation) starts.

use std::time::Duration;

use phantom::Config;
use phantom::dispatch::Dispatcher;
use phantom::http::HttpConfig;
use phantom::input::StateKey;
use phantom::prelude::*;
use phantom_redis::{Redis, RedisKeyringStore};
use phantom_tests::redis::RedisServer;

#[derive(Clone, Default)]
struct Sealer;

#[mcp_router(name = "sealer", version = "1.0.0")]
impl Sealer {
    /// Answers.
    #[tool]
    async fn ping(&self) -> String {
        "pong".into()
    }
}

/// A node's dispatcher: its own connection to `url`, the shared prefix, and `key`.
async fn node(url: &str, prefix: &str, key: StateKey) -> Dispatcher<Sealer> {
    let redis = Redis::connect(url)
        .await
        .expect("connect")
        .with_prefix(prefix);
    let config = Config::default()
        .with_state_key(key)
        .with_keyring_store(RedisKeyringStore::new(redis));
    Dispatcher::with_config(Sealer, config)
}

#[tokio::test]
async fn a_node_with_a_disjoint_state_key_refuses_to_start_and_an_overlapping_one_starts() {
    let redis = RedisServer::start();
    let url = redis.url();
    let prefix = format!("keyring-{}:", uuid::Uuid::new_v4().simple());
    let (k1, k2, k3) = (
        StateKey::from_bytes([1; 32]),
        StateKey::from_bytes([2; 32]),
        StateKey::from_bytes([3; 32]),
    );
    let first = node(&url, &prefix, k1.clone()).await;
    first
        .check_state_key()
        .await
        .expect("the first node starts");
    // Same key: starts.
    node(&url, &prefix, k1.clone())
        .await
        .check_state_key()
        .await
        .expect("a node with the same key starts");

    // A disjoint key: served, it does not start, and says what to set.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let http = HttpConfig::for_addr(listener.local_addr().expect("address"));
    let mis_keyed = node(&url, &prefix, k2.clone()).await;
    let refused = tokio::time::timeout(
        Duration::from_secs(5),
        phantom::http::serve_dispatcher(listener, mis_keyed, http, std::future::pending()),
    )
    .await
    .expect("refused at once")
    .expect_err("a node with a disjoint key does not start");
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
    let message = refused.to_string();
    assert!(message.contains(&k2.id()), "{message}");
    assert!(message.contains("PHANTOM_STATE_KEY"), "{message}");
    assert!(message.contains("Config::with_state_key"), "{message}");
    // Nothing of the key is in Redis: only HMAC tags, neither the key nor its id.
    let mut cli = std::process::Command::new("redis-cli");
    cli.args([
        "-p",
        &redis.port().to_string(),
        "ZRANGE",
        &format!("{prefix}state-keys"),
        "0",
        "-1",
    ]);
    let listed = String::from_utf8(cli.output().expect("redis-cli").stdout).expect("UTF-8");
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert!(!listed.contains(&k1.id()), "{listed}");

    // A rotation: the new key with the old one behind it starts, and then so does a node with
    // the new key alone (it shares the new key with the rotated node).
    node(
        &url,
        &prefix,
        k3.clone().rotated_from(k1, Duration::from_secs(60)),
    )
    .await
    .check_state_key()
    .await
    .expect("an overlapping keyring starts");
    node(&url, &prefix, k3)
        .await
        .check_state_key()
        .await
        .expect("the new key alone starts once a node holds it");
    drop(first);
}
