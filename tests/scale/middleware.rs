//! The middleware's shared stores on Redis: a rate limit holds across two nodes, a response kept
//! on one node answers on the other until an update published on either drops it, and with Redis
//! down both let requests through (the limit fails open, the cache runs the handler).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use phantom::Config;
use phantom::http::HttpConfig;
use phantom::middleware::{RateLimit, ResponseCache};
use phantom::prelude::*;
use phantom_tests::redis::RedisServer;
use serde_json::{Value, json};

use crate::support::TestServer;

/// Counts its reads, on every node (the nodes share the counter).
#[derive(Clone, Default)]
struct Pages {
    reads: Arc<AtomicUsize>,
}

#[mcp_router(name = "pages", version = "1.0.0")]
impl Pages {
    /// Echo.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    /// A page.
    #[resource("pages:///p/<id>", mime_type = "text/plain")]
    async fn page(&self, id: u64) -> Option<String> {
        let n = self.reads.fetch_add(1, Ordering::SeqCst) + 1;
        Some(format!("page {id}, read {n}"))
    }
}

/// A node on `redis` under `prefix`, with a rate limit of 3 `echo` calls (never refilled) and a
/// response cache; its config too (for its notifier).
async fn node(redis: &RedisServer, prefix: &str, pages: Pages) -> (TestServer, Config) {
    let config = Config::default()
        .with_middleware(RateLimit::per_second(0.0, 3).tool("echo"))
        .with_middleware(ResponseCache::new())
        .with_state_key(crate::state_key())
        .with_backend(crate::backend(redis, prefix).await);
    let node = TestServer::start_configured(pages, config.clone(), HttpConfig::default()).await;
    (node, config)
}

async fn echo(node: &TestServer) -> u16 {
    node.post_modern(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    )
    .send()
    .await
    .status
    .as_u16()
}

async fn read(node: &TestServer) -> Value {
    let body = node
        .post_modern("resources/read", json!({"uri": "pages:///p/1"}))
        .send()
        .await
        .json()
        .await;
    body["result"]["contents"][0]["text"].clone()
}

#[tokio::test]
async fn the_rate_limit_and_the_cache_hold_across_nodes_and_fail_open_without_redis() {
    let mut redis = RedisServer::start();
    let prefix = format!("middleware-{}:", uuid::Uuid::new_v4().simple());
    let pages = Pages::default();
    let (a, _) = node(&redis, &prefix, pages.clone()).await;
    let (b, b_config) = node(&redis, &prefix, pages.clone()).await;

    // Anonymous 2026-07-28 callers share the peer's bucket: three tokens across both nodes.
    assert_eq!(echo(&a).await, 200);
    assert_eq!(echo(&b).await, 200);
    assert_eq!(echo(&a).await, 200);
    assert_eq!(
        echo(&b).await,
        429,
        "the 4th call, on B, finds the bucket A and B share empty"
    );
    assert_eq!(echo(&a).await, 429, "and so does the 5th, on A");

    assert_eq!(read(&a).await, "page 1, read 1");
    assert_eq!(
        read(&b).await,
        "page 1, read 1",
        "what A kept, B answers without running the handler"
    );
    assert_eq!(pages.reads.load(Ordering::SeqCst), 1);
    b_config
        .notifier()
        .notify_resource_updated("pages:///p/1")
        .await
        .expect("notify through B");
    assert_eq!(
        read(&a).await,
        "page 1, read 2",
        "an update published on B drops what A kept"
    );

    redis.kill();
    assert_eq!(
        echo(&a).await,
        200,
        "with Redis down the limit lets calls through (fails open)"
    );
    assert_eq!(
        read(&b).await,
        "page 1, read 3",
        "with Redis down the cache runs the handler"
    );
}
