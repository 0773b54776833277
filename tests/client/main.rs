//! `phantom::client` against phantom servers: over real HTTP in both eras (and `auto`), with
//! elicitation answered by the client's handler in a legacy session and in 2026-07-28 rounds,
//! and over stdio with a child process; errors a caller can match on.

#[allow(dead_code, unreachable_pub)]
#[path = "../http/support.rs"]
mod support;

#[allow(dead_code, unreachable_pub)]
#[path = "../bin/chain.rs"]
mod chain;

mod asks;
mod cache;
mod defects;
mod dpop;
mod gateway;
mod machine;
mod middleware;
mod oauth;
mod others;
mod remote;
#[allow(dead_code, unreachable_pub)]
mod scripted;
mod tls;

use std::sync::{Arc, Mutex};

use phantom::client::{Client, ClientError, Era};
use phantom::http::HttpConfig;
use phantom::prelude::*;
use phantom::protocol::{ElicitRequest, ElicitResult};
use serde_json::{Map, Value, json};

use crate::support::{Confirmer, Dropped, TestServer};

/// A tool that runs until it is stopped, and says when it was.
#[derive(Clone, Default)]
struct Slow {
    stopped: Arc<std::sync::atomic::AtomicBool>,
}

#[mcp_router(name = "slow", version = "1.0.0")]
impl Slow {
    /// Waits for ever.
    #[tool]
    async fn wait(&self) -> String {
        let _guard = Dropped(Arc::clone(&self.stopped));
        std::future::pending::<()>().await;
        unreachable!()
    }
}

async fn stopped_within(flag: &std::sync::atomic::AtomicBool, what: &str) {
    for _ in 0..250 {
        if flag.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("{what}: the server's handler was not stopped within 5 s");
}

#[tokio::test]
async fn a_dropped_or_timed_out_call_stops_the_server_handler() {
    use std::time::Duration;
    for era in [Era::Legacy, Era::Modern] {
        let slow = Slow::default();
        let stopped = Arc::clone(&slow.stopped);
        let server = TestServer::start_with(slow, HttpConfig::default()).await;
        let client = Client::http(&url(&server))
            .era(era)
            .connect()
            .await
            .expect("connects");
        // The caller stops waiting: its future is dropped.
        let gave_up = tokio::time::timeout(
            Duration::from_millis(200),
            client.call_tool("wait", json!({})),
        )
        .await;
        assert!(gave_up.is_err(), "{era:?}: the call does not answer");
        stopped_within(&stopped, &format!("{era:?}, dropped")).await;
        stopped.store(false, std::sync::atomic::Ordering::SeqCst);
        // The client's own timeout.
        let impatient = Client::http(&url(&server))
            .era(era)
            .timeout(Duration::from_millis(200))
            .connect()
            .await
            .expect("connects");
        let error = impatient
            .call_tool("wait", json!({}))
            .await
            .expect_err("times out");
        assert!(matches!(error, ClientError::Timeout(_)), "{era:?}: {error}");
        stopped_within(&stopped, &format!("{era:?}, timed out")).await;
        // The clients go on.
        assert!(
            !client
                .list_tools(None)
                .await
                .expect("tools/list")
                .items
                .is_empty()
        );
    }
}

fn url(server: &TestServer) -> String {
    format!("http://{}/mcp", server.addr)
}

async fn accept(_request: ElicitRequest) -> ElicitResult {
    ElicitResult::accept(content(json!({"ok": true})))
}

/// A JSON object as an accepted form's content.
fn content(object: Value) -> Map<String, Value> {
    match object {
        Value::Object(map) => map,
        other => panic!("content is an object, not {other}"),
    }
}

#[tokio::test]
async fn both_eras_over_http_list_call_and_read() {
    let server = TestServer::start(HttpConfig::default()).await;
    for era in [Era::Modern, Era::Legacy, Era::Auto] {
        let client = Client::http(&url(&server))
            .era(era)
            .connect()
            .await
            .expect("connects");
        let expected = if era == Era::Legacy {
            Era::Legacy
        } else {
            Era::Modern
        };
        assert_eq!(client.era(), expected, "{era:?}");
        assert_eq!(client.server_info()["name"], "lab", "{era:?}");
        assert_eq!(client.session_id().is_some(), era == Era::Legacy, "{era:?}");
        let tools = client.list_tools(None).await.expect("tools/list");
        assert!(tools.items.iter().any(|t| t.name == "echo"), "{era:?}");
        let echo = client
            .call_tool("echo", json!({"text": "hi"}))
            .await
            .expect("tools/call");
        assert_eq!(echo.text_content(), "echo: hi", "{era:?}");
        assert!(!echo.is_error);
        let contents = client.read_resource("lab:///notes/3").await.expect("read");
        assert_eq!(contents[0].text.as_deref(), Some("note 3"), "{era:?}");
        let templates = client
            .list_resource_templates(None)
            .await
            .expect("templates");
        assert_eq!(
            templates.items[0].uri_template, "lab:///notes/{id}",
            "{era:?}"
        );
        client.ping().await.expect("ping");
        client.close().await;
    }
}

#[tokio::test]
async fn errors_a_caller_can_match_on() {
    let server = TestServer::start(HttpConfig::default()).await;
    for era in [Era::Modern, Era::Legacy] {
        let client = Client::http(&url(&server))
            .era(era)
            .connect()
            .await
            .expect("connects");
        let unknown = client
            .call_tool("nope", json!({}))
            .await
            .expect_err("no such tool");
        assert_eq!(unknown.code(), Some(-32602), "{era:?}: {unknown}");
        let method = client
            .request("no/such", json!({}))
            .await
            .expect_err("no such method");
        assert_eq!(method.code(), Some(-32601), "{era:?}: {method}");
        // The resource handler answers `None` past id 9: not found (`-32002` in 2025-11-25,
        // `-32602` in 2026-07-28).
        let code = if era == Era::Legacy { -32002 } else { -32602 };
        let missing = client
            .read_resource("lab:///notes/42")
            .await
            .expect_err("missing");
        assert_eq!(missing.code(), Some(code), "{era:?}: {missing}");
    }
    // connect refuses (`x-role: banned`): HTTP 403 with a JSON-RPC error, which comes back.
    let refused = Client::http(&url(&server))
        .era(Era::Legacy)
        .header("x-role", "banned")
        .connect()
        .await
        .expect_err("forbidden");
    assert_eq!(refused.code(), Some(-32001), "{refused}");
    assert!(
        refused.to_string().contains("banned from the lab"),
        "{refused}"
    );
    // An HTTP answer that is no JSON-RPC message keeps its status.
    let lost = Client::http(&format!("http://{}/elsewhere", server.addr))
        .connect()
        .await
        .expect_err("no endpoint there");
    assert!(
        matches!(lost, ClientError::Http { status: 404, .. }),
        "{lost}"
    );
    // Nobody listens.
    let down = Client::http("http://127.0.0.1:9/mcp")
        .connect()
        .await
        .expect_err("down");
    assert!(matches!(down, ClientError::Transport(_)), "{down}");
    let bad = Client::http("not a url")
        .connect()
        .await
        .expect_err("bad url");
    assert!(matches!(bad, ClientError::Transport(_)), "{bad}");
}

#[tokio::test]
async fn the_handler_answers_elicitation_in_both_eras() {
    let server = TestServer::start_with(Confirmer, HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&asked);
        let client = Client::http(&url(&server))
            .era(era)
            .on_elicit(move |request: ElicitRequest| {
                seen.lock().unwrap().push(json!(request.message()));
                accept(request)
            })
            .connect()
            .await
            .expect("connects");
        let result = client
            .call_tool("delete", json!({}))
            .await
            .expect("tools/call");
        assert_eq!(result.text_content(), "delete accept", "{era:?}");
        assert_eq!(*asked.lock().unwrap(), vec![json!("Delete it?")], "{era:?}");
        client.close().await;
    }
    // Without a handler the client declares no elicitation, and the server says it needs it.
    let bare = Client::http(&url(&server))
        .era(Era::Modern)
        .connect()
        .await
        .expect("connects");
    let refused = bare
        .call_tool("delete", json!({}))
        .await
        .expect_err("needs elicitation");
    assert_eq!(refused.code(), Some(-32021), "{refused}");
}

#[tokio::test]
async fn a_stdio_server_as_a_child_process_in_both_eras() {
    for era in [Era::Auto, Era::Legacy] {
        let notified = Arc::new(Mutex::new(Vec::<String>::new()));
        let heard = Arc::clone(&notified);
        let client = Client::stdio(env!("CARGO_BIN_EXE_stdio-server"), Vec::<String>::new())
            .era(era)
            .on_elicit(|_| async { ElicitResult::accept(content(json!({"name": "Ada"}))) })
            .on_notification(move |method, _| heard.lock().unwrap().push(method.to_owned()))
            .connect()
            .await
            .expect("starts and connects");
        let expected = if era == Era::Legacy {
            Era::Legacy
        } else {
            Era::Modern
        };
        assert_eq!(client.era(), expected);
        assert_eq!(client.server_info()["name"], "desk", "{era:?}");
        let echo = client
            .call_tool("echo", json!({"text": "x"}))
            .await
            .expect("echo");
        assert_eq!(echo.text_content(), "echo: x");
        let greet = client.call_tool("greet", json!({})).await.expect("greet");
        assert_eq!(greet.text_content(), "Hello, Ada!", "{era:?}");
        let count = client
            .request(
                "tools/call",
                json!({"name": "count", "arguments": {}, "_meta": {"progressToken": "p"}}),
            )
            .await
            .expect("count");
        assert_eq!(count["content"][0]["text"], "3");
        let heard = notified.lock().unwrap().clone();
        assert_eq!(
            heard
                .iter()
                .filter(|m| *m == "notifications/progress")
                .count(),
            3,
            "{era:?}: {heard:?}"
        );
        client.ping().await.expect("ping");
        // The process dies mid-call: a transport error, not a hang.
        let crashed = client
            .call_tool("crash", json!({}))
            .await
            .expect_err("exited");
        assert!(matches!(crashed, ClientError::Transport(_)), "{crashed}");
    }
}

/// Tools that run as tasks for clients that declare the extension.
#[derive(Clone)]
struct Jobs;

#[mcp_router(name = "jobs", version = "1.0.0")]
impl Jobs {
    /// Finishes after a moment.
    #[task_handler(ttl = "5m", poll_interval = "20ms")]
    async fn crunch(&self) -> String {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        "crunched".into()
    }

    /// Asks to confirm while it runs.
    #[task_handler(ttl = "5m", poll_interval = "20ms")]
    async fn confirm(&self, ctx: Ctx) -> String {
        let form = Form::new().required("ok", Field::boolean());
        let answer: Elicitation<Value> = ctx.elicit("go", "Go ahead?", form).await;
        format!("confirm {}", answer.action())
    }

    /// Runs until cancelled.
    #[task_handler(ttl = "5m")]
    async fn forever(&self) -> String {
        std::future::pending::<()>().await;
        unreachable!()
    }
}

#[tokio::test]
async fn tasks_run_polled_answered_and_cancelled_in_both_eras() {
    use phantom::client::ToolCall;
    use phantom::tasks::TaskStatus;
    use std::time::Duration;
    let server = TestServer::start_with(Jobs, HttpConfig::default()).await;
    for era in [Era::Modern, Era::Legacy] {
        let client = Client::http(&url(&server))
            .era(era)
            .tasks()
            .on_elicit(accept)
            .connect()
            .await
            .expect("connects");
        let ToolCall::Task(task) = client
            .call_tool_or_task("crunch", json!({}))
            .await
            .expect("call")
        else {
            panic!("{era:?}: a task");
        };
        let done = client
            .wait_task(&task.task_id, &[], Duration::from_secs(10))
            .await
            .expect("ends");
        assert_eq!(done.status, TaskStatus::Completed, "{era:?}");
        assert_eq!(
            done.result.expect("a result")["content"][0]["text"],
            "crunched"
        );

        let ToolCall::Task(asking) = client
            .call_tool_or_task("confirm", json!({}))
            .await
            .expect("call")
        else {
            panic!("{era:?}: a task");
        };
        let waiting = client
            .wait_task(
                &asking.task_id,
                &[TaskStatus::InputRequired],
                Duration::from_secs(10),
            )
            .await
            .expect("asks");
        assert_eq!(waiting.status, TaskStatus::InputRequired, "{era:?}");
        client
            .update_task(
                &asking.task_id,
                json!({"go": {"action": "accept", "content": {"ok": true}}}),
            )
            .await
            .expect("tasks/update");
        let confirmed = client
            .wait_task(&asking.task_id, &[], Duration::from_secs(10))
            .await
            .expect("ends");
        assert_eq!(
            confirmed.result.expect("a result")["content"][0]["text"],
            "confirm accept"
        );

        let ToolCall::Task(endless) = client
            .call_tool_or_task("forever", json!({}))
            .await
            .expect("call")
        else {
            panic!("{era:?}: a task");
        };
        client
            .cancel_task(&endless.task_id)
            .await
            .expect("tasks/cancel");
        let cancelled = client.get_task(&endless.task_id).await.expect("tasks/get");
        assert_eq!(cancelled.status, TaskStatus::Cancelled, "{era:?}");
        let unknown = client.get_task("no-such-task").await.expect_err("unknown");
        assert_eq!(unknown.code(), Some(-32602), "{era:?}: {unknown}");
    }
    // Without the extension the same tool answers inline.
    let inline = Client::http(&url(&server))
        .era(Era::Modern)
        .connect()
        .await
        .expect("connects");
    let answered = inline
        .call_tool_or_task("crunch", json!({}))
        .await
        .expect("call");
    assert!(
        matches!(&answered, ToolCall::Done(r) if r.text_content() == "crunched"),
        "{answered:?}"
    );
}

#[tokio::test]
async fn the_test_kit_drives_a_server_in_another_process_with_its_assertions() {
    use phantom::testing::Remote;
    let server = TestServer::start_with(Confirmer, HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let remote = Remote::http(&url(&server))
            .era(era)
            .on_elicit(|_| json!({"action": "accept", "content": {"ok": true}}))
            .connect()
            .await;
        let response = remote.call_tool("delete", json!({})).await;
        response.assert_tool_text("delete accept");
        assert_eq!(response.requests.len(), 1, "{era:?}: {response:?}");
        assert_eq!(response.requests[0]["method"], "elicitation/create");
        remote
            .call_tool("nope", json!({}))
            .await
            .assert_error(-32602);
        assert!(
            remote
                .list_tools(None)
                .await
                .tool_names()
                .contains(&"delete".to_owned())
        );
        remote.close().await;
    }
    let stdio = Remote::stdio(env!("CARGO_BIN_EXE_stdio-server"), Vec::<String>::new())
        .connect()
        .await;
    let counted = stdio
        .request(
            "tools/call",
            json!({"name": "count", "arguments": {}, "_meta": {"progressToken": 7}}),
        )
        .await;
    counted.assert_tool_text("3");
    let progress = counted
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .count();
    assert_eq!(progress, 3, "{counted:?}");
}

#[tokio::test]
async fn lists_are_paged_with_the_servers_cursor_in_both_eras() {
    let config = phantom::Config::default().with_page_size(2);
    let server = TestServer::start_configured(Jobs, config, HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let client = Client::http(&url(&server))
            .era(era)
            .connect()
            .await
            .expect("connects");
        let first = client.list_tools(None).await.expect("page 1");
        assert_eq!(first.items.len(), 2, "{era:?}: a page of 2");
        let cursor = first
            .next_cursor
            .clone()
            .unwrap_or_else(|| panic!("{era:?}: a cursor to the rest"));
        let second = client.list_tools(Some(&cursor)).await.expect("page 2");
        assert!(second.next_cursor.is_none(), "{era:?}: the last page");
        let mut names: Vec<String> = first
            .items
            .iter()
            .chain(&second.items)
            .map(|t| t.name.clone())
            .collect();
        names.sort();
        assert_eq!(names, ["confirm", "crunch", "forever"], "{era:?}");
        client.close().await;
    }
}
