//! A gateway on Redis, built the way an app builds it: one `Config` with the Redis backend and a
//! rate limit, a `Dispatcher` made from it, an upstream mounted into its registry, the dispatcher
//! served. Two such nodes share legacy sessions, resource subscriptions, tasks, the rate limit
//! of a mounted tool and the answers to an elicitation the upstream asks.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use http::StatusCode;
use phantom::Config;
use phantom::dispatch::Dispatcher;
use phantom::gateway::Upstream;
use phantom::http::HttpConfig;
use phantom::middleware::RateLimit;
use phantom::prelude::*;
use phantom_tests::redis::RedisServer;
use serde_json::{Value, json};

use crate::support::{LEGACY, TestServer, first_text, request};

/// The upstream the gateway mounts under `shop`.
#[derive(Clone)]
struct Shop;

#[mcp_router(name = "shop", version = "1.0.0")]
impl Shop {
    /// Echo.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    /// Deletes nothing, after asking.
    #[tool]
    async fn delete(&self, ctx: Ctx) -> String {
        let form = Form::new().required("ok", Field::boolean());
        let answer: Elicitation<Value> = ctx.elicit("confirm", "Delete it?", form).await;
        format!("delete {}", answer.action())
    }
}

/// The gateway's own router: a resource to subscribe to, a tool that changes it, and a task.
#[derive(Clone, Default)]
struct Front {
    started: Arc<AtomicBool>,
}

#[mcp_router(name = "front", version = "1.0.0")]
impl Front {
    /// An item.
    #[resource("board:///items/<id>", mime_type = "text/plain")]
    async fn item(&self, id: u64) -> String {
        format!("item {id}")
    }

    /// Changes an item and says so.
    #[tool]
    async fn change(&self, notifier: Notifier, id: u64) -> String {
        notifier
            .notify_resource_updated(format!("board:///items/{id}"))
            .await
            .expect("published");
        "changed".into()
    }

    /// Works for a minute.
    #[task_handler(ttl = "5m")]
    async fn crunch(&self) -> String {
        self.started.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_secs(60)).await;
        "crunched".into()
    }
}

/// A gateway node: the natural order, with nothing to get wrong. The backend goes into the
/// `Config`, the dispatcher is made from it and the upstream mounted before it is served.
async fn node(
    redis: &RedisServer,
    prefix: &str,
    upstream: &TestServer,
    front: Front,
) -> TestServer {
    let config = Config::default()
        .with_middleware(RateLimit::per_second(0.0, 3).tool("shop_echo"))
        .with_state_key(crate::state_key())
        .with_backend(crate::backend(redis, prefix).await);
    let dispatcher = Dispatcher::with_config(front, config);
    Upstream::http(format!("http://{}/mcp", upstream.addr))
        .prefix("shop")
        .mount(&dispatcher.registry())
        .await
        .expect("the upstream is mounted");
    TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await
}

/// A 2026-07-28 request that declares the tasks extension.
async fn modern(node: &TestServer, method: &str, mut params: Value) -> (StatusCode, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    });
    let reply = node.post_modern(method, params).send().await;
    (reply.status, reply.json().await)
}

/// A legacy session that accepts elicitation, opened on `node`.
async fn session_on(node: &TestServer) -> String {
    let init = request(
        0,
        "initialize",
        json!({"protocolVersion": LEGACY, "capabilities": {"elicitation": {}},
               "clientInfo": {"name": "scale-tests", "version": "1.0.0"}}),
    );
    let reply = node.post(&init).send().await;
    let session = reply.session_id().expect("a session id");
    let _ = reply.text().await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let ack = node.post_in(&session, &initialized).send().await;
    assert_eq!(ack.status, StatusCode::ACCEPTED);
    session
}

#[tokio::test]
async fn two_gateway_nodes_on_redis_share_subscriptions_tasks_limits_and_answers() {
    let redis = RedisServer::start();
    let prefix = format!("gateway-{}:", uuid::Uuid::new_v4().simple());
    let upstream = TestServer::start_with(Shop, HttpConfig::default()).await;
    let front = Front::default();
    let a = node(&redis, &prefix, &upstream, front.clone()).await;
    let b = node(&redis, &prefix, &upstream, Front::default()).await;

    // Subscriptions: a legacy session opened and subscribed through A, its GET stream on B,
    // the change made through A.
    let session = session_on(&a).await;
    let subscribe = request(2, "resources/subscribe", json!({"uri": "board:///items/1"}));
    let subscribed = a.post_in(&session, &subscribe).send().await;
    assert_eq!(subscribed.status, StatusCode::OK);
    let mut get = b.get_stream(&session).await;
    let other = session_on(&a).await;
    let change = request(
        3,
        "tools/call",
        json!({"name": "change", "arguments": {"id": 1}}),
    );
    let changed = a.post_in(&other, &change).send().await;
    assert_eq!(first_text(&changed.json().await["result"]), "changed");
    assert_eq!(
        get.next_message().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "board:///items/1"}}),
        "the stream on B hears the update A published, for the subscription A stored"
    );

    // Tasks: created on A, looked up and cancelled through B.
    let (_, created) = modern(&a, "tools/call", json!({"name": "crunch", "arguments": {}})).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_owned();
    let (_, read) = modern(&b, "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(
        read["result"]["status"], "working",
        "B reads A's task: {read}"
    );
    assert!(front.started.load(Ordering::SeqCst), "the task runs on A");
    let (_, cancelled) = modern(&b, "tasks/cancel", json!({ "taskId": id })).await;
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    let (_, after) = modern(&a, "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(after["result"]["status"], "cancelled", "{after}");

    // The rate limit of the mounted tool: three tokens across both nodes.
    let echo = json!({"name": "shop_echo", "arguments": {"text": "x"}});
    for (n, node) in [&a, &b, &a].into_iter().enumerate() {
        let (status, body) = modern(node, "tools/call", echo.clone()).await;
        assert_eq!(status, StatusCode::OK, "call {n}: {body}");
        assert_eq!(first_text(&body["result"]), "x", "call {n}: {body}");
    }
    let (status, body) = modern(&b, "tools/call", echo.clone()).await;
    assert_eq!(
        status,
        StatusCode::TOO_MANY_REQUESTS,
        "the 4th call, on B, finds the bucket A and B share empty: {body}"
    );

    // Answers: the upstream asks through A, the client answers through B.
    let call = request(
        4,
        "tools/call",
        json!({"name": "shop_delete", "arguments": {}}),
    );
    let mut stream = a.post_in(&session, &call).send().await.sse();
    let asked = stream.next_message().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"].clone(),
                        "result": {"action": "accept", "content": {"ok": true}}});
    let accepted = b.post_in(&session, &answer).send().await;
    assert_eq!(accepted.status, StatusCode::ACCEPTED, "B takes the answer");
    let result = stream.next_message().await;
    assert_eq!(result["id"], 4, "{result}");
    assert_eq!(
        first_text(&result["result"]),
        "delete accept",
        "the upstream heard the answer given through B"
    );
}
