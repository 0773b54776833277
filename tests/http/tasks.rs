//! Tasks over real HTTP: a task outlives the request and the connection that created it, the
//! tasks methods carry `Mcp-Name: <taskId>`, and a task that asks a client which cannot be asked
//! fails at once.

use std::time::Duration;

use phantom::http::HttpConfig;
use phantom::prelude::*;
use phantom_tests::paging::Paging;
use serde_json::{Value, json};

use crate::support::{LEGACY, TestServer, initialize_request, notification, request};

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

/// A shutdown's end for tasks: during the drain delay a node still starts them (a balancer may
/// not have seen its readiness turn 503 yet, and a refused call is a failed request it does not
/// retry: the rolling restart test found 63 such); one still running at the end of the grace
/// period is stored `failed`, saying the node shut down, rather than `working` for ever.
#[tokio::test]
async fn a_draining_node_starts_tasks_until_its_grace_and_fails_the_running_ones_at_its_end() {
    use phantom::store::TaskStore as _;
    let store = std::sync::Arc::new(phantom::store::MemoryTaskStore::default());
    let http = HttpConfig::default()
        .with_drain_delay(Duration::from_millis(600))
        .with_grace(Duration::from_millis(300));
    let config = phantom::Config::default().with_task_store(std::sync::Arc::clone(&store));
    let mut server = TestServer::start_configured(Slow, config, http).await;
    let call = |server: &TestServer, ms: u64| {
        server.post_modern(
            "tools/call",
            with_tasks(json!({"name": "finish", "arguments": {"ms": ms}})),
        )
    };
    let created: Value = call(&server, 60_000).send().await.json().await;
    let id = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    let quick: Value = call(&server, 10).send().await.json().await;
    let quick = quick["result"]["taskId"]
        .as_str()
        .expect("taskId")
        .to_owned();

    server.shut_down();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Still accepting and serving (the drain delay): a task starts here, and ends within the
    // grace.
    let late: Value = call(&server, 10).send().await.json().await;
    let late = late["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task started during the drain delay: {late}"))
        .to_owned();
    // The running task is still working during the delay and the grace.
    let working: Value = server
        .post_modern("tasks/get", with_tasks(json!({ "taskId": id })))
        .send()
        .await
        .json()
        .await;
    assert_eq!(working["result"]["status"], "working", "{working}");

    // Delay (600 ms) + grace (300 ms): then the task is stored failed, with the reason.
    let mut stored = None;
    for _ in 0..60 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let task = store.get(&id).await.expect("the store").expect("the task");
        if task.task.status.is_terminal() {
            stored = Some(task.task);
            break;
        }
    }
    let task = stored.expect("the task ended within the grace period");
    assert_eq!(task.status, phantom::tasks::TaskStatus::Failed, "{task:?}");
    let said = serde_json::to_string(&task).expect("JSON");
    assert!(said.contains("shut down before it finished"), "{said}");
    // The tasks that ended by themselves (one started during the drain delay) kept their results.
    for id in [quick, late] {
        let done = store.get(&id).await.expect("the store").expect("the task");
        assert_eq!(
            done.task.status,
            phantom::tasks::TaskStatus::Completed,
            "{id}"
        );
    }
}

/// `method` with `params` (a request that declares the tasks extension): in the legacy
/// `session` when there is one, else a 2026-07-28 request. The response's body.
async fn send(server: &TestServer, session: Option<&str>, method: &str, params: Value) -> Value {
    let call = match session {
        Some(session) => server.post_in(session, &request(1, method, params)),
        None => server.post_modern(method, with_tasks(params)),
    };
    call.send().await.json().await
}

/// A 2025-11-25 session whose client declared the tasks extension (and nothing else).
async fn legacy_session_with_tasks(server: &TestServer) -> String {
    let mut initialize = initialize_request(LEGACY);
    initialize["params"]["capabilities"] =
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let reply = server.post(&initialize).send().await;
    let session = reply.session_id().expect("a session");
    let _ = reply.text().await;
    let initialized = server
        .post_in(&session, &notification("notifications/initialized"))
        .send()
        .await;
    assert_eq!(initialized.status, http::StatusCode::ACCEPTED);
    session
}

#[tokio::test]
async fn a_task_that_asks_a_client_without_elicitation_fails_at_once_in_both_eras() {
    let server = TestServer::start_with(Paging, HttpConfig::default()).await;
    let legacy = legacy_session_with_tasks(&server).await;
    for session in [None, Some(legacy.as_str())] {
        let era = if session.is_some() {
            "2025-11-25"
        } else {
            "2026-07-28"
        };
        let call = json!({"name": "page", "arguments": {}});
        let created = send(&server, session, "tools/call", call).await;
        let id = created["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("a task ({era}): {created}"))
            .to_owned();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(1);
        let task = loop {
            let got = send(&server, session, "tasks/get", json!({ "taskId": id })).await;
            let task = got["result"].clone();
            if task["status"] != "working" {
                break task;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "still working after a second ({era}): {got}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(task["status"], "failed", "{era}: {task}");
        assert_eq!(task["error"]["code"], -32021, "{era}: {task}");
        assert_eq!(
            task["error"]["data"]["requiredCapabilities"],
            json!({"elicitation": {"form": {}}}),
            "{era}: {task}"
        );
        let message = task["statusMessage"].as_str().unwrap_or_default();
        assert!(
            message.contains("`severity`") && message.contains("elicitation.form"),
            "{era}: {task}"
        );
    }
}
