//! Tasks across nodes: created on node A, read, answered and cancelled through node B (the
//! handler on A hears both), and a task whose node died is `failed` once its lease lapsed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use phantom::Config;
use phantom::http::HttpConfig;
use phantom::prelude::*;
use phantom::store::{Owner, StoredTask, TaskStore as _};
use phantom::tasks::Task;
use phantom_redis::{Redis, RedisTaskStore};
use phantom_tests::redis::RedisServer;
use serde_json::{Value, json};

use crate::support::{Dropped, TestServer};

#[derive(Clone, Default)]
struct Jobs {
    started: Arc<AtomicBool>,
    dropped: Arc<AtomicBool>,
}

#[mcp_router(name = "jobs", version = "1.0.0")]
impl Jobs {
    /// Works for a minute unless it is cancelled.
    #[task_handler(ttl = "5m")]
    async fn crunch(&self) -> String {
        let _guard = Dropped(Arc::clone(&self.dropped));
        self.started.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_secs(60)).await;
        "crunched".into()
    }

    /// Asks to confirm (key `confirm`) while running as a task.
    #[task_handler(ttl = "5m")]
    async fn confirm(&self, ctx: Ctx) -> String {
        let form = Form::new().required("ok", Field::boolean());
        let answer = ctx.elicit::<Value>("confirm", "Go ahead?", form).await;
        format!("confirm {}", answer.action())
    }

    /// Asks two things at once (keys `first` and `second`) while running as a task.
    #[task_handler(ttl = "5m")]
    async fn both(&self, ctx: Ctx) -> String {
        let ask = |key: &str| {
            Elicit::<Value>::new(key, key, Form::new().required("ok", Field::boolean()))
        };
        let (first, second) = ctx.input((ask("first"), ask("second"))).await;
        format!("both {} {}", first.action(), second.action())
    }
}

fn with_tasks(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    });
    params
}

async fn node(redis: &RedisServer, prefix: &str, jobs: Jobs) -> TestServer {
    let config = Config::default()
        .with_state_key(crate::state_key())
        .with_backend(crate::backend(redis, prefix).await);
    TestServer::start_configured(jobs, config, HttpConfig::default()).await
}

async fn call(node: &TestServer, method: &str, params: Value) -> Value {
    node.post_modern(method, with_tasks(params))
        .send()
        .await
        .json()
        .await
}

async fn status_within(node: &TestServer, id: &str, want: &str) -> Value {
    let mut last = Value::Null;
    for _ in 0..100 {
        last = call(node, "tasks/get", json!({ "taskId": id })).await;
        if last["result"]["status"] == want {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the task did not become {want}: {last}");
}

#[tokio::test]
async fn a_task_created_on_one_node_is_read_and_cancelled_through_the_other() {
    let redis = RedisServer::start();
    let prefix = format!("tasks-{}:", uuid::Uuid::new_v4().simple());
    let jobs = Jobs::default();
    let a = node(&redis, &prefix, jobs.clone()).await;
    let b = node(&redis, &prefix, Jobs::default()).await;

    let created = call(&a, "tools/call", json!({"name": "crunch", "arguments": {}})).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_owned();
    let read = call(&b, "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(
        read["result"]["status"], "working",
        "node B reads the task A runs: {read}"
    );
    assert!(jobs.started.load(Ordering::SeqCst), "the handler runs on A");

    let cancelled = call(&b, "tasks/cancel", json!({ "taskId": id })).await;
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    status_within(&a, &id, "cancelled").await;
    for _ in 0..100 {
        if jobs.dropped.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        jobs.dropped.load(Ordering::SeqCst),
        "the handler on A stopped when B cancelled its task"
    );
    let after = call(&a, "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(
        after["result"]["status"], "cancelled",
        "A's handler did not overwrite the cancel: {after}"
    );
}

#[tokio::test]
async fn a_task_on_one_node_gets_its_input_through_the_other() {
    let redis = RedisServer::start();
    let prefix = format!("input-{}:", uuid::Uuid::new_v4().simple());
    let a = node(&redis, &prefix, Jobs::default()).await;
    let b = node(&redis, &prefix, Jobs::default()).await;
    let created = call(
        &a,
        "tools/call",
        json!({"name": "confirm", "arguments": {}}),
    )
    .await;
    let id = created["result"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_owned();
    let asking = status_within(&b, &id, "input_required").await;
    assert!(
        asking["result"]["inputRequests"]["confirm"].is_object(),
        "node B sees what A's handler asks: {asking}"
    );
    let answer = json!({"action": "accept", "content": {"ok": true}});
    let updated = call(
        &b,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"confirm": answer}}),
    )
    .await;
    assert!(updated.get("error").is_none(), "{updated}");
    let done = status_within(&a, &id, "completed").await;
    assert_eq!(
        done["result"]["result"]["content"][0]["text"], "confirm accept",
        "the handler on A got the answer posted to B: {done}"
    );
}

#[tokio::test]
async fn a_task_whose_node_died_fails_once_its_lease_lapsed() {
    let redis = RedisServer::start();
    let prefix = format!("orphans-{}:", uuid::Uuid::new_v4().simple());
    let conn = Redis::connect(&redis.url())
        .await
        .expect("connect")
        .with_prefix(&prefix);
    let store = RedisTaskStore::new(conn).with_lease(Duration::from_millis(300));
    // A node took the task and its lease, then died: nothing renews the lease.
    let task = Task::working("orphan-1".to_owned(), Some(60_000));
    store
        .put(StoredTask::new(task, Owner::Anonymous))
        .await
        .expect("put");
    store.lease("orphan-1", "dead-node").await.expect("lease");
    let b = node(&redis, &prefix, Jobs::default()).await;

    let early = call(&b, "tasks/get", json!({"taskId": "orphan-1"})).await;
    assert_eq!(
        early["result"]["status"], "working",
        "the lease still holds: {early}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let late = call(&b, "tasks/get", json!({"taskId": "orphan-1"})).await;
    assert_eq!(late["result"]["status"], "failed", "{late}");
    let message = late["result"]["statusMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("stopped before it finished"),
        "a reason: {late}"
    );
    assert!(
        store
            .get("orphan-1")
            .await
            .expect("get")
            .is_some_and(|t| t.task.status.is_terminal()),
        "stored failed"
    );
}

#[tokio::test]
async fn a_partial_answer_leaves_input_requests_before_the_update_is_answered() {
    let redis = RedisServer::start();
    let prefix = format!("partial-{}:", uuid::Uuid::new_v4().simple());
    let a = node(&redis, &prefix, Jobs::default()).await;
    let b = node(&redis, &prefix, Jobs::default()).await;
    let created = call(&a, "tools/call", json!({"name": "both", "arguments": {}})).await;
    let id = created["result"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_owned();
    for _ in 0..100 {
        let asking = status_within(&b, &id, "input_required").await;
        if asking["result"]["inputRequests"]["second"].is_object() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A stops: nothing hears the answer B passes on, so only `tasks/update` itself can take the
    // answered request out of the task (its lease has not lapsed yet).
    drop(a);
    let answer = json!({"action": "accept", "content": {"ok": true}});
    let updated = call(
        &b,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"first": answer}}),
    )
    .await;
    assert!(updated.get("error").is_none(), "{updated}");
    let read = call(&b, "tasks/get", json!({ "taskId": id })).await;
    assert_eq!(read["result"]["status"], "input_required", "{read}");
    let asked: Vec<&String> = read["result"]["inputRequests"]
        .as_object()
        .expect("inputRequests")
        .keys()
        .collect();
    assert_eq!(
        asked,
        ["second"],
        "the answered request is gone at once: {read}"
    );
}
