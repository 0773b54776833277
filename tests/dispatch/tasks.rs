//! `#[task_handler]` and the Tasks extension: task creation only after storing, background runs to
//! `completed` / `failed`, cancellation that stops the handler (and clears its status message),
//! TTL expiry, the owner check, the `-32021` gates, the task id a handler sees, and a task that
//! asks a client which cannot be asked failing at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use phantom::prelude::*;
use phantom::testing::Client;
use phantom_tests::paging::Paging;
use serde_json::{Value, json};

#[derive(Clone, Default)]
struct Jobs {
    finished: Arc<AtomicUsize>,
}

#[mcp_router(name = "jobs", version = "1.0.0")]
impl Jobs {
    /// Sleeps `ms`, counts itself finished, answers.
    #[task_handler(ttl = "10m", poll_interval = "100ms")]
    async fn work(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        self.finished.fetch_add(1, Ordering::SeqCst);
        format!("worked {ms} ms")
    }

    /// A tool error.
    #[task_handler(mode = "required")]
    async fn refuse(&self) -> Result<String, String> {
        Err("no".into())
    }

    /// A panic: a protocol error.
    #[task_handler]
    async fn crash(&self) -> String {
        panic!("crashed")
    }

    /// Kept 50 ms.
    #[task_handler(ttl = "50ms")]
    async fn brief(&self) -> &'static str {
        "brief"
    }

    /// `x-user` names the principal.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        session.principal = request.header("x-user").map(Into::into);
        Connect::Ok
    }
}

fn tasks_ext() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

fn client(jobs: &Jobs, user: &str) -> Client<Jobs> {
    Client::builder(jobs.clone())
        .header("x-user", user)
        .capabilities(tasks_ext())
        .modern()
}

async fn get(client: &mut Client<Jobs>, id: &str) -> phantom::testing::Response {
    client.request("tasks/get", json!({ "taskId": id })).await
}

async fn settle(client: &mut Client<Jobs>, id: &str) -> Value {
    for _ in 0..200 {
        let got = get(client, id).await;
        let status = got.result()["status"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if ["completed", "failed", "cancelled"].contains(&status.as_str()) {
            return got.result().clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} did not end");
}

#[tokio::test]
async fn a_task_is_stored_before_it_is_answered_and_completes_after_its_request() {
    let jobs = Jobs::default();
    let mut ada = client(&jobs, "ada");
    let created = ada.call_tool("work", json!({"ms": 30})).await;
    let result = created.result();
    assert_eq!(result["resultType"], "task", "{result}");
    assert_eq!(result["status"], "working");
    assert_eq!(result["ttlMs"], 600_000);
    assert_eq!(result["pollIntervalMs"], 100);
    assert!(result.get("ttl").is_none() && result.get("result").is_none());
    let id = result["taskId"].as_str().expect("taskId").to_owned();
    assert!(id.len() >= 22, "{id}");
    // The creating request is over; the task is there at once, then completes.
    assert_eq!(get(&mut ada, &id).await.result()["status"], "working");
    let done = settle(&mut ada, &id).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "worked 30 ms");
    assert_eq!(done["resultType"], "complete");
}

#[tokio::test]
async fn tool_errors_complete_and_protocol_errors_fail() {
    let jobs = Jobs::default();
    let mut ada = client(&jobs, "ada");
    let refused = ada.call_tool("refuse", json!({})).await;
    let id = refused.result()["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let done = settle(&mut ada, &id).await;
    assert_eq!(
        (done["status"].as_str(), done["result"]["isError"].as_bool()),
        (Some("completed"), Some(true))
    );
    let crashed = ada.call_tool("crash", json!({})).await;
    let id = crashed.result()["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let done = settle(&mut ada, &id).await;
    assert_eq!(done["status"], "failed");
    assert_eq!(done["error"]["code"], -32603);
    assert!(done.get("result").is_none());
}

#[tokio::test]
async fn cancellation_stops_the_handler_and_is_idempotent() {
    let jobs = Jobs::default();
    let mut ada = client(&jobs, "ada");
    let created = ada.call_tool("work", json!({"ms": 300})).await;
    let id = created.result()["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let ack = ada.request("tasks/cancel", json!({ "taskId": id })).await;
    assert_eq!(
        ack.result().as_object().map(|m| m.contains_key("taskId")),
        Some(false)
    );
    assert_eq!(get(&mut ada, &id).await.result()["status"], "cancelled");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        jobs.finished.load(Ordering::SeqCst),
        0,
        "the handler was stopped"
    );
    assert_eq!(get(&mut ada, &id).await.result()["status"], "cancelled");
    // Again, on the ended task: the same empty acknowledgement.
    ada.request("tasks/cancel", json!({ "taskId": id }))
        .await
        .result();
}

#[tokio::test]
async fn an_expired_task_is_gone() {
    let jobs = Jobs::default();
    let mut ada = client(&jobs, "ada");
    let created = ada.call_tool("brief", json!({})).await;
    let id = created.result()["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    tokio::time::sleep(Duration::from_millis(120)).await;
    get(&mut ada, &id).await.assert_error(-32602);
}

#[tokio::test]
async fn another_principal_cannot_get_update_or_cancel_a_task() {
    let jobs = Jobs::default();
    let mut ada = client(&jobs, "ada");
    let mut bob = client(&jobs, "bob");
    let created = ada.call_tool("work", json!({"ms": 200})).await;
    let id = created.result()["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    for (method, params) in [
        ("tasks/get", json!({ "taskId": id })),
        (
            "tasks/update",
            json!({ "taskId": id, "inputResponses": {} }),
        ),
        ("tasks/cancel", json!({ "taskId": id })),
    ] {
        bob.request(method, params).await.assert_error(-32602);
    }
    assert_eq!(
        settle(&mut ada, &id).await["status"],
        "completed",
        "bob cancelled nothing"
    );
}

#[tokio::test]
async fn without_the_extension_optional_tools_run_inline_and_required_ones_refuse() {
    let jobs = Jobs::default();
    let mut plain = Client::builder(jobs.clone())
        .header("x-user", "ada")
        .modern();
    let inline = plain.call_tool("work", json!({"ms": 1})).await;
    assert_eq!(inline.result()["resultType"], "complete");
    assert_eq!(inline.result()["content"][0]["text"], "worked 1 ms");
    let refused = plain.call_tool("refuse", json!({})).await;
    refused.assert_error(-32021);
    assert_eq!(
        refused.error()["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    plain
        .request("tasks/get", json!({"taskId": "x"}))
        .await
        .assert_error(-32021);
    let mut ada = client(&jobs, "ada");
    ada.request("tasks/list", json!({}))
        .await
        .assert_error(-32601);
    ada.request("tasks/result", json!({"taskId": "x"}))
        .await
        .assert_error(-32601);
    let listed = ada.list_tools(None).await;
    let tools = listed.result()["tools"].as_array().expect("tools").clone();
    let work = tools.iter().find(|t| t["name"] == "work").expect("work");
    assert_eq!(work["execution"]["taskSupport"], "optional");
    let discover = ada.request("server/discover", json!({})).await;
    assert_eq!(
        discover.result()["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
}

/// A task that asks two questions at once, then answers with both.
#[derive(Clone, Default)]
struct Asking;

#[mcp_router(name = "asking", version = "1.0.0")]
impl Asking {
    /// Asks `first` and `second` (elicitation forms), then greets.
    #[task_handler(ttl = "10m")]
    async fn two(&self, ctx: Ctx) -> String {
        let ask = |key: &str| {
            Elicit::<Value>::new(key, "Name?", Form::new().required("name", Field::string()))
        };
        let (a, b) = ctx.input((ask("first"), ask("second"))).await;
        let name = |e: Elicitation<Value>| {
            e.accepted()
                .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default()
        };
        format!("{} and {}", name(a), name(b))
    }
}

/// The task, once it is `input_required`.
async fn input_required(client: &mut Client<Asking>, id: &str) -> Value {
    for _ in 0..200 {
        let got = client.request("tasks/get", json!({ "taskId": id })).await;
        if got.result()["status"] == "input_required" {
            return got.result().clone();
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("never input_required");
}

#[tokio::test]
async fn a_task_waits_for_its_input_and_resumes_when_every_key_is_answered() {
    let caps = json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    let mut client = Client::builder(Asking).capabilities(caps).modern();
    let created = client.call_tool("two", json!({})).await;
    let id = created.result()["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let asked = input_required(&mut client, &id).await;
    let keys: Vec<&String> = asked["inputRequests"]
        .as_object()
        .expect("a map")
        .keys()
        .collect();
    assert_eq!(keys, ["first", "second"]);
    assert_eq!(
        asked["inputRequests"]["first"]["method"],
        "elicitation/create"
    );
    let answer = |name: &str| json!({"action": "accept", "content": {"name": name}});
    // One answer (and one for a key nobody asked): still waiting, for the other key only.
    let update =
        json!({"taskId": id, "inputResponses": {"first": answer("Ada"), "nobody": answer("x")}});
    let ack = client.request("tasks/update", update).await;
    assert_eq!(ack.result()["resultType"], "complete");
    // The task takes the answer on its own time: wait until only `second` is asked.
    let mut keys = Vec::new();
    for _ in 0..200 {
        let still = input_required(&mut client, &id).await;
        keys = still["inputRequests"]
            .as_object()
            .expect("a map")
            .keys()
            .cloned()
            .collect();
        if keys.len() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(keys, ["second"]);
    let update = json!({"taskId": id, "inputResponses": {"second": answer("Grace")}});
    client.request("tasks/update", update).await.result();
    for _ in 0..200 {
        let got = client.request("tasks/get", json!({ "taskId": id })).await;
        if got.result()["status"] == "completed" {
            assert_eq!(
                got.result()["result"]["content"][0]["text"],
                "Ada and Grace"
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the task did not complete");
}

/// App-managed tasks: `get_task` is the source of truth and the access check.
#[derive(Clone, Default)]
struct Ledger {
    updates: Arc<std::sync::Mutex<Vec<Value>>>,
    cancels: Arc<AtomicUsize>,
}

#[mcp_router(name = "ledger", version = "1.0.0")]
impl Ledger {
    /// Task `t-ada` belongs to `ada`, waiting for `approve`.
    async fn get_task(&self, task_id: &str, session: &Session) -> Result<Task, TaskError> {
        if task_id != "t-ada" || session.principal.as_deref() != Some("ada") {
            return Err(TaskError::NotFound);
        }
        let asks = serde_json::Map::from_iter([(
            "approve".to_owned(),
            json!({"method": "elicitation/create"}),
        )]);
        Ok(Task::working("t-ada", None).input_required(asks))
    }

    /// Records the answers it gets.
    async fn update_task(
        &self,
        _task: Task,
        input_responses: serde_json::Map<String, Value>,
        _session: &Session,
    ) -> Result<(), ErrorObject> {
        self.updates
            .lock()
            .expect("updates")
            .push(Value::Object(input_responses));
        Ok(())
    }

    /// Counts cancellations.
    async fn cancel_task(&self, _task: Task, _session: &Session) -> Result<(), ErrorObject> {
        self.cancels.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    /// `x-user` names the principal.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        session.principal = request.header("x-user").map(Into::into);
        Connect::Ok
    }
}

#[tokio::test]
async fn an_app_managed_get_task_is_the_source_of_truth_and_hides_other_principals_tasks() {
    let ledger = Ledger::default();
    let ext = tasks_ext();
    let mut ada = Client::builder(ledger.clone())
        .header("x-user", "ada")
        .capabilities(ext.clone())
        .modern();
    let mut bob = Client::builder(ledger.clone())
        .header("x-user", "bob")
        .capabilities(ext)
        .modern();
    let discover = ada.request("server/discover", json!({})).await;
    assert_eq!(
        discover.result()["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    let got = ada.request("tasks/get", json!({"taskId": "t-ada"})).await;
    assert_eq!(got.result()["status"], "input_required");
    bob.request("tasks/get", json!({"taskId": "t-ada"}))
        .await
        .assert_error(-32602);
    bob.request("tasks/cancel", json!({"taskId": "t-ada"}))
        .await
        .assert_error(-32602);
    // Only the keys the task asks for reach `update_task`.
    let update =
        json!({"taskId": "t-ada", "inputResponses": {"approve": {"action": "accept"}, "other": 1}});
    ada.request("tasks/update", update).await.result();
    assert_eq!(
        *ledger.updates.lock().expect("updates"),
        [json!({"approve": {"action": "accept"}})]
    );
    ada.request("tasks/cancel", json!({"taskId": "t-ada"}))
        .await
        .result();
    assert_eq!(ledger.cancels.load(Ordering::SeqCst), 1);
}

/// A task handler that asks in the client's request first (`prepare`).
#[derive(Clone, Default)]
struct Greeter {
    started: Arc<AtomicUsize>,
}

#[mcp_router(name = "greeter", version = "1.0.0")]
impl Greeter {
    /// Asks a name inline (key `who`), then greets from a task.
    #[task_handler(mode = "required", prepare)]
    async fn greet_later(&self, ctx: Ctx) -> String {
        let form = Form::new().required("name", Field::string());
        let who = ctx.elicit::<Value>("who", "Who?", form).await;
        let name = who
            .accepted()
            .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        ctx.task().await;
        self.started.fetch_add(1, Ordering::SeqCst);
        format!("Hello, {name}")
    }
}

#[tokio::test]
async fn a_prepared_task_asks_in_the_request_then_starts_with_the_answers() {
    let greeter = Greeter::default();
    let caps = json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    let mut client = Client::builder(greeter.clone()).capabilities(caps).modern();
    let round1 = client.call_tool("greet_later", json!({})).await;
    let r1 = round1.result().clone();
    assert_eq!(r1["resultType"], "input_required", "{r1}");
    assert!(r1.get("taskId").is_none());
    assert!(r1["inputRequests"]["who"].is_object());
    let mut retry = json!({
        "name": "greet_later",
        "arguments": {},
        "inputResponses": {"who": {"action": "accept", "content": {"name": "Ada"}}},
    });
    if let Some(state) = r1.get("requestState") {
        retry["requestState"] = state.clone();
    }
    let round2 = client.request("tools/call", retry).await;
    let r2 = round2.result().clone();
    assert_eq!(r2["resultType"], "task", "{r2}");
    assert!(r2.get("requestState").is_none() && r2.get("inputRequests").is_none());
    let id = r2["taskId"].as_str().expect("a task").to_owned();
    for _ in 0..200 {
        let got = client.request("tasks/get", json!({ "taskId": id })).await;
        if got.result()["status"] == "completed" {
            assert_eq!(got.result()["result"]["content"][0]["text"], "Hello, Ada");
            // The inline rounds stopped at `ctx.task()`: only the task went past it.
            assert_eq!(greeter.started.load(Ordering::SeqCst), 1);
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the task did not complete");
}

/// Work a task hands its `Ctx` to hears the task's cancellation.
#[derive(Clone, Default)]
struct Watcher {
    stopped: Arc<tokio::sync::Notify>,
}

#[mcp_router(name = "watcher", version = "1.0.0")]
impl Watcher {
    /// Hands its `Ctx` to background work, then waits forever.
    #[task_handler]
    async fn watch(&self, ctx: Ctx) -> String {
        let stopped = Arc::clone(&self.stopped);
        tokio::spawn(async move {
            ctx.cancelled().await;
            stopped.notify_one();
        });
        std::future::pending::<String>().await
    }
}

#[tokio::test]
async fn work_handed_a_tasks_ctx_sees_the_task_cancelled() {
    let watcher = Watcher::default();
    let mut client = Client::builder(watcher.clone())
        .capabilities(tasks_ext())
        .modern();
    let created = client.call_tool("watch", json!({})).await;
    let id = created.result()["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned();
    let heard = tokio::time::timeout(Duration::from_millis(200), watcher.stopped.notified()).await;
    assert!(heard.is_err(), "nothing is cancelled yet");
    client.cancel_task(&id).await.result();
    tokio::time::timeout(Duration::from_secs(5), watcher.stopped.notified())
        .await
        .expect("the spawned work saw the cancellation");
    let got = client.wait_task(&id, &["cancelled"]).await;
    assert_eq!(got.result()["status"], "cancelled");
}

/// A task handler that tells what it is doing.
#[derive(Clone, Default)]
struct Busy;

#[mcp_router(name = "busy", version = "1.0.0")]
impl Busy {
    /// Says what it is doing, then works until it is cancelled.
    #[task_handler]
    async fn busy(&self, ctx: Ctx) -> String {
        ctx.status("step 1 of 3").await;
        std::future::pending::<String>().await
    }
}

#[tokio::test]
async fn a_cancelled_task_keeps_no_status_message() {
    let mut client = Client::builder(Busy).capabilities(tasks_ext()).modern();
    let created = client.call_tool("busy", json!({})).await;
    let id = created.result()["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while client.get_task(&id).await.result()["statusMessage"] != "step 1 of 3" {
        assert!(tokio::time::Instant::now() < deadline, "no status message");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    client.cancel_task(&id).await.result();
    let got = client.get_task(&id).await;
    let task = got.result();
    assert_eq!(task["status"], "cancelled", "{task}");
    assert!(task.get("statusMessage").is_none(), "{task}");
}

/// Task handlers that know their task.
#[derive(Clone, Default)]
struct Linked;

#[mcp_router(name = "linked", version = "1.0.0")]
impl Linked {
    /// Answers the id of the task it runs as, or `none`.
    #[task_handler]
    async fn own_id(&self, ctx: Ctx) -> String {
        ctx.task_id().unwrap_or("none").to_owned()
    }

    /// The same, as a plain tool.
    #[tool]
    async fn plain_id(&self, ctx: Ctx) -> String {
        ctx.task_id().unwrap_or("none").to_owned()
    }
}

#[tokio::test]
async fn a_task_handler_sees_the_task_id_its_tools_call_answered() {
    for mut client in [
        Client::builder(Linked).capabilities(tasks_ext()).modern(),
        Client::builder(Linked)
            .capabilities(tasks_ext())
            .legacy()
            .await,
    ] {
        let era = client.era();
        let created = client.call_tool("own_id", json!({})).await;
        let id = created.result()["taskId"]
            .as_str()
            .expect("a task id")
            .to_owned();
        let done = client.wait_task(&id, &["completed"]).await;
        assert_eq!(
            done.result()["result"]["content"][0]["text"],
            id.as_str(),
            "{era:?}"
        );
    }
}

#[tokio::test]
async fn task_id_is_none_for_a_plain_tool_and_a_task_handler_run_inline() {
    let mut tasks = Client::builder(Linked).capabilities(tasks_ext()).modern();
    tasks
        .call_tool("plain_id", json!({}))
        .await
        .assert_tool_text("none");
    // A client without the extension: the optional task handler runs inline, as no task.
    let mut inline = Client::modern(Linked);
    inline
        .call_tool("own_id", json!({}))
        .await
        .assert_tool_text("none");
}

/// A 2026-07-28 request declaring the tasks extension, handed to `dispatcher` itself; its answer.
async fn direct(
    dispatcher: phantom::dispatch::Dispatcher<Jobs>,
    method: &str,
    params: Value,
) -> Value {
    let params = phantom::testing::with_envelope(params, &tasks_ext());
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut slot = phantom::dispatch::SessionSlot::default();
    let reply = dispatcher
        .handle(
            &message.to_string(),
            &Request::default(),
            &mut slot,
            &phantom::dispatch::Outbound::none(),
        )
        .await
        .expect("a reply");
    serde_json::from_str::<Value>(&reply.body).expect("JSON")
}

/// A node shutting down starts tasks while it drains (a balancer may still send it some before
/// it sees the readiness turn 503), and none once its grace began (`Dispatcher::finish_tasks`):
/// a late call is refused `-32603` at once, so that its client sends it again, to another node.
#[tokio::test]
async fn a_draining_node_starts_tasks_and_refuses_them_once_its_grace_began() {
    let dispatcher = phantom::dispatch::Dispatcher::new(Jobs::default());
    let call = |ms: u64| {
        direct(
            dispatcher.clone(),
            "tools/call",
            json!({"name": "work", "arguments": {"ms": ms}}),
        )
    };

    dispatcher.drain();
    let started = call(300).await;
    assert!(started["result"]["taskId"].is_string(), "{started}");

    let finishing = tokio::spawn({
        let dispatcher = dispatcher.clone();
        async move { dispatcher.finish_tasks(Duration::from_secs(5)).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let refused = call(10).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("shutting down") && message.contains("send the call again"),
        "{refused}"
    );
    // The task started while draining completes within the grace.
    tokio::time::timeout(Duration::from_secs(5), finishing)
        .await
        .expect("the tasks finished within the grace")
        .expect("finish_tasks");
}

/// A host that must not leave task handlers running after a request (a serverless function)
/// waits for none to run (`Dispatcher::tasks_finished`), bounded by its deadline, and fails
/// those still running then (`Dispatcher::fail_tasks`): stored `failed` with its reason, and
/// tasks still start afterwards.
#[tokio::test]
async fn a_host_waits_for_the_running_task_handlers_and_fails_those_left() {
    let dispatcher = phantom::dispatch::Dispatcher::new(Jobs::default());
    let send = |method: &'static str, params: Value| direct(dispatcher.clone(), method, params);
    let start = |ms: u64| {
        let call = send(
            "tools/call",
            json!({"name": "work", "arguments": {"ms": ms}}),
        );
        async move {
            let created = call.await;
            created["result"]["taskId"]
                .as_str()
                .unwrap_or_else(|| panic!("a task: {created}"))
                .to_owned()
        }
    };

    // None running: the wait ends at once.
    assert!(!dispatcher.runs_tasks());
    tokio::time::timeout(Duration::from_millis(50), dispatcher.tasks_finished())
        .await
        .expect("no handler runs");

    // One running: the wait ends when it does, and the task completed.
    let quick = start(200).await;
    assert!(dispatcher.runs_tasks());
    let began = tokio::time::Instant::now();
    tokio::time::timeout(Duration::from_secs(5), dispatcher.tasks_finished())
        .await
        .expect("the handler ended");
    assert!(
        began.elapsed() >= Duration::from_millis(150),
        "{:?}",
        began.elapsed()
    );
    assert!(!dispatcher.runs_tasks());
    let done = send("tasks/get", json!({"taskId": quick})).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");

    // One that outlives the deadline: failed, with the host's reason.
    let slow = start(60_000).await;
    assert!(
        tokio::time::timeout(Duration::from_millis(200), dispatcher.tasks_finished())
            .await
            .is_err(),
        "the handler still runs"
    );
    dispatcher
        .fail_tasks("the invocation running this task ended before the task finished")
        .await;
    assert!(!dispatcher.runs_tasks());
    let failed = send("tasks/get", json!({"taskId": slow})).await;
    assert_eq!(failed["result"]["status"], "failed", "{failed}");
    assert_eq!(
        failed["result"]["statusMessage"],
        "the invocation running this task ended before the task finished",
        "{failed}"
    );
    assert_eq!(failed["result"]["error"]["code"], -32603, "{failed}");

    // Tasks still start and complete afterwards.
    let after = start(10).await;
    tokio::time::timeout(Duration::from_secs(5), dispatcher.tasks_finished())
        .await
        .expect("the handler ended");
    let done = send("tasks/get", json!({"taskId": after})).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");
}

/// The task once it ended, polled for at most `within`.
async fn ended_within(client: &mut Client<Paging>, id: &str, within: Duration) -> Value {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let got = client.get_task(id).await;
        let task = got.result().clone();
        let status = task["status"].as_str().unwrap_or_default();
        if ["completed", "failed", "cancelled"].contains(&status) {
            return task;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still {status} after {within:?}: {task}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn a_task_that_asks_a_client_which_cannot_be_asked_fails_at_once() {
    let logs = crate::notifier::Logs::default();
    let _guard = logs.capture();
    for mut client in [
        Client::builder(Paging).capabilities(tasks_ext()).modern(),
        Client::builder(Paging)
            .capabilities(tasks_ext())
            .legacy()
            .await,
    ] {
        let era = client.era();
        let created = client.call_tool("page", json!({})).await;
        let id = created.result()["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("a task ({era:?}): {}", created.json))
            .to_owned();
        let task = ended_within(&mut client, &id, Duration::from_secs(1)).await;
        assert_eq!(task["status"], "failed", "{era:?}: {task}");
        assert_eq!(task["error"]["code"], -32021, "{era:?}: {task}");
        assert_eq!(
            task["error"]["data"]["requiredCapabilities"],
            json!({"elicitation": {"form": {}}}),
            "{era:?}: {task}"
        );
        // The status message says what was asked, not what the handler did before.
        let message = task["statusMessage"].as_str().unwrap_or_default();
        assert!(
            message.contains("`severity`")
                && message.contains("elicitation/create")
                && message.contains("elicitation.form"),
            "{era:?}: {task}"
        );
    }
    let warned = logs.text();
    assert_eq!(
        warned.matches("WARN").count(),
        2,
        "one warning per task: {warned}"
    );
    assert!(warned.contains("`severity`"), "{warned}");
}

#[tokio::test]
async fn a_task_that_asks_a_client_which_can_be_asked_waits_for_it() {
    let caps = json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    let mut client = Client::builder(Paging).capabilities(caps).modern();
    let created = client.call_tool("page", json!({})).await;
    let id = created.result()["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    let asked = client.wait_task(&id, &["input_required"]).await;
    assert!(
        asked.result()["inputRequests"]["severity"].is_object(),
        "{}",
        asked.json
    );
    let update = json!({"taskId": id, "inputResponses": {"severity": {"action": "decline"}}});
    client.request("tasks/update", update).await.result();
    let done = client.wait_task(&id, &["completed"]).await;
    assert_eq!(
        done.result()["result"]["content"][0]["text"],
        "paged: decline"
    );
}
