//! Tasks over real HTTP: a task outlives the request and the connection that created it, and the
//! tasks methods carry `Mcp-Name: <taskId>`.

use std::time::Duration;

use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::{Value, json};

use crate::support::TestServer;

#[derive(Clone)]
struct Slow;

#[mcp_router(name = "slow", version = "1.0.0")]
impl Slow {
    /// Finishes after `ms`.
    #[task_handler(ttl = "1m", poll_interval = "50ms")]
    async fn finish(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        format!("finished after {ms} ms")
    }
}

/// `params` with a `_meta` that declares the tasks extension.
fn with_tasks(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    });
    params
}

#[tokio::test]
async fn a_task_outlives_the_connection_that_created_it() {
    let server = TestServer::start_with(Slow, HttpConfig::default()).await;
    let created = server
        .post_modern(
            "tools/call",
            with_tasks(json!({"name": "finish", "arguments": {"ms": 150}})),
        )
        .send()
        .await;
    let created = created.json().await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_owned();
    // That request and its connection are over; the task goes on and completes.
    let mut last = Value::Null;
    for _ in 0..100 {
        last = server
            .post_modern("tasks/get", with_tasks(json!({ "taskId": id })))
            .send()
            .await
            .json()
            .await;
        if last["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        last["result"]["result"]["content"][0]["text"], "finished after 150 ms",
        "{last}"
    );
    // `Mcp-Name` must repeat the task id.
    let mismatched = server
        .post_modern("tasks/get", with_tasks(json!({ "taskId": id })))
        .set_header("mcp-name", Some("another-task"))
        .send()
        .await;
    assert_eq!(mismatched.status, http::StatusCode::BAD_REQUEST);
    assert_eq!(mismatched.json().await["error"]["code"], -32020);
}
