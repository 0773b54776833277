//! Runtime registration across nodes: a tool disabled on node A is hidden and refused on node B
//! (and on a node started later), enabled again through B it is back on A, and with Redis down a
//! change is refused on every node instead of being made on one.

use std::time::Duration;

use phantom::Config;
use phantom::prelude::*;
use phantom::registry::RegistryError;
use phantom::testing::Client;
use phantom_redis::{Redis, RedisBus, RedisRegistryStore};
use phantom_tests::redis::RedisServer;
use serde_json::json;

#[derive(Clone, Default)]
struct Ops;

#[mcp_router(name = "ops", version = "1.0.0")]
impl Ops {
    /// Deploys.
    #[tool]
    async fn deploy(&self) -> String {
        "deployed".into()
    }

    /// Reports.
    #[tool]
    async fn status(&self) -> String {
        "green".into()
    }
}

/// A node: its own Redis connection, the shared prefix, a bus and a registry store over it.
async fn node(url: &str, prefix: &str) -> Client<Ops> {
    let redis = Redis::connect(url)
        .await
        .expect("connect")
        .with_prefix(prefix);
    let bus = RedisBus::new(redis.clone()).await.expect("bus");
    let config = Config::default()
        .with_notifier(phantom::Notifier::with_bus(bus))
        .with_registry_store(RedisRegistryStore::new(redis));
    Client::builder(Ops).config(config).modern()
}

async fn tools(client: &mut Client<Ops>) -> Vec<String> {
    client.list_tools(None).await.tool_names()
}

/// Polls `client`'s tool list until `deploy` is listed (`true`) or not (`false`).
async fn deploy_listed(client: &mut Client<Ops>, listed: bool) {
    for _ in 0..250 {
        if tools(client).await.iter().any(|t| t == "deploy") == listed {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("`deploy` listed should be {listed} within 5 s");
}

#[tokio::test]
async fn what_one_node_disables_every_node_hides() {
    let mut redis = RedisServer::start();
    let url = redis.url();
    let prefix = format!("registry-{}:", uuid::Uuid::new_v4().simple());
    let mut a = node(&url, &prefix).await;
    let mut b = node(&url, &prefix).await;
    assert_eq!(tools(&mut a).await, ["deploy", "status"]);
    assert_eq!(tools(&mut b).await, ["deploy", "status"]);

    a.registry()
        .disable_tool("deploy")
        .await
        .expect("disabled on A");
    deploy_listed(&mut b, false).await;
    let refused = b.call_tool("deploy", json!({})).await;
    refused.assert_error(-32602);
    b.call_tool("status", json!({}))
        .await
        .assert_tool_text("green");

    // A node that starts after the change loads it before its first answer.
    let mut c = node(&url, &prefix).await;
    assert_eq!(tools(&mut c).await, ["status"], "a new node hides it too");

    b.registry()
        .enable_tool("deploy")
        .await
        .expect("enabled through B");
    deploy_listed(&mut a, true).await;
    deploy_listed(&mut c, true).await;
    a.call_tool("deploy", json!({}))
        .await
        .assert_tool_text("deployed");

    // Redis down: the change is refused (naming the store), and no node makes it.
    redis.kill();
    let error = a
        .registry()
        .disable_tool("status")
        .await
        .expect_err("no store, no change");
    assert!(matches!(error, RegistryError::Store(_)), "{error}");
    assert!(error.to_string().contains("registry store"), "{error}");
    assert!(tools(&mut a).await.iter().any(|t| t == "status"));
}
