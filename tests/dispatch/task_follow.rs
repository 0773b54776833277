//! Following tasks on `subscriptions/listen` (`taskIds`): the listen hears `notifications/tasks`
//! at each change until the task ends, only for tasks its session may see (authorized once when
//! it opens, fetched again before each notification), and only with the tasks extension.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use phantom::Config;
use phantom::prelude::*;
use phantom::store::MemoryBus;
use phantom::testing::{Client, Listen};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// How long a test waits to be sure nothing more arrives.
const QUIET: Duration = Duration::from_millis(150);

fn tasks_ext() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

#[derive(Clone, Default)]
struct Board {
    gate: Arc<Notify>,
}

#[mcp_router(name = "board", version = "1.0.0")]
impl Board {
    /// Reports a status once let through, and ends once let through again.
    #[task_handler(ttl = "1m")]
    async fn staged(&self, ctx: Ctx) -> String {
        self.gate.notified().await;
        ctx.status("half way").await;
        self.gate.notified().await;
        "done".into()
    }

    /// `x-user` names the principal.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        session.principal = request.header("x-user").map(Into::into);
        Connect::Ok
    }
}

fn user(board: &Board, name: &str, notifier: &Notifier) -> Client<Board> {
    Client::builder(board.clone())
        .header("x-user", name)
        .capabilities(tasks_ext())
        .config(Config::default().with_notifier(notifier.clone()))
        .modern()
}

async fn next(listen: &mut Listen) -> Value {
    tokio::time::timeout(Duration::from_secs(5), listen.next())
        .await
        .expect("a message in time")
        .expect("the listen is open")
}

#[tokio::test]
async fn a_listen_follows_its_task_until_it_ends_and_another_principal_hears_nothing() {
    let board = Board::default();
    // Both users' clients serve with one notifier, as two nodes share one bus.
    let notifier = Notifier::with_bus(MemoryBus::new());
    let mut ada = user(&board, "ada", &notifier);
    let mut bob = user(&board, "bob", &notifier);
    let created = ada.call_tool("staged", json!({})).await;
    let id = created.result()["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned();

    let mut following = ada.listen(json!({ "taskIds": [id, "unknown", id] }));
    let ack = next(&mut following).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([id]),
        "{ack}"
    );
    let tag = ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].clone();

    let mut foreign = bob.listen(json!({ "taskIds": [id] }));
    let ack = next(&mut foreign).await;
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!([]),
        "{ack}"
    );

    board.gate.notify_one();
    let working = next(&mut following).await;
    assert_eq!(working["method"], "notifications/tasks", "{working}");
    assert_eq!(working["params"]["taskId"], json!(id));
    assert_eq!(working["params"]["status"], "working");
    assert_eq!(working["params"]["statusMessage"], "half way");
    assert_eq!(
        working["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        tag
    );
    // The same status reads back from tasks/get.
    let got = ada.get_task(&id).await;
    assert_eq!(got.result()["statusMessage"], "half way");

    board.gate.notify_one();
    let completed = next(&mut following).await;
    assert_eq!(completed["params"]["status"], "completed", "{completed}");
    assert_eq!(completed["params"]["result"]["content"][0]["text"], "done");

    // Ended: no longer followed, whatever is announced about it.
    notifier
        .notify_task_updated(id.clone())
        .await
        .expect("published");
    assert_eq!(following.next_within(QUIET).await, None);
    assert_eq!(foreign.next_within(QUIET).await, None);
}

#[tokio::test]
async fn following_tasks_needs_the_extension() {
    let mut plain = Client::modern(Board::default());
    let mut listen = plain.listen(json!({ "taskIds": ["t-1"] }));
    let refused = next(&mut listen).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
}

/// App-managed tasks: `get_task` decides what a session sees; `authorize_task_subscriptions`
/// is asked once per listen.
#[derive(Clone, Default)]
struct Shared {
    revoked: Arc<AtomicBool>,
    asked: Arc<Mutex<Vec<Vec<String>>>>,
}

#[mcp_router(name = "shared", version = "1.0.0")]
impl Shared {
    /// `t-1` only, until revoked.
    async fn get_task(&self, task_id: &str, _session: &Session) -> Result<Task, TaskError> {
        if task_id == "t-1" && !self.revoked.load(Ordering::SeqCst) {
            Ok(Task::working("t-1", None).message("counting"))
        } else {
            Err(TaskError::NotFound)
        }
    }

    /// Records what it is asked, and allows all of it and an id it was not asked about.
    async fn authorize_task_subscriptions(
        &self,
        task_ids: Vec<String>,
        _session: &Session,
    ) -> Vec<String> {
        self.asked.lock().expect("asked").push(task_ids.clone());
        task_ids.into_iter().chain(["t-extra".to_owned()]).collect()
    }
}

#[tokio::test]
async fn a_revoked_task_stops_notifying_and_authorization_is_asked_once() {
    let shared = Shared::default();
    let mut client = Client::builder(shared.clone())
        .capabilities(tasks_ext())
        .modern();
    let notifier = client.notifier().clone();
    let mut listen = client.listen(json!({ "taskIds": ["t-1", "t-2", "t-1"] }));
    let ack = next(&mut listen).await;
    // Ids the callback allowed without being asked are ignored.
    assert_eq!(
        ack["params"]["notifications"]["taskIds"],
        json!(["t-1", "t-2"]),
        "{ack}"
    );
    assert_eq!(*shared.asked.lock().expect("asked"), [vec!["t-1", "t-2"]]);

    notifier
        .notify_task_updated("t-1")
        .await
        .expect("published");
    let heard = next(&mut listen).await;
    assert_eq!(heard["params"]["taskId"], "t-1");
    assert_eq!(heard["params"]["statusMessage"], "counting");
    // `t-2` is not found for the session when it changes: nothing is sent.
    notifier
        .notify_task_updated("t-2")
        .await
        .expect("published");
    assert_eq!(listen.next_within(QUIET).await, None);

    shared.revoked.store(true, Ordering::SeqCst);
    notifier
        .notify_task_updated("t-1")
        .await
        .expect("published");
    assert_eq!(listen.next_within(QUIET).await, None);
    // Once revoked it stays unfollowed.
    shared.revoked.store(false, Ordering::SeqCst);
    notifier
        .notify_task_updated("t-1")
        .await
        .expect("published");
    assert_eq!(listen.next_within(QUIET).await, None);
    assert_eq!(shared.asked.lock().expect("asked").len(), 1);
}

/// A handler that reports with both calls, run inline or as a task.
#[derive(Clone)]
struct Reporter {
    /// One permit per step the handler may take.
    steps: Arc<tokio::sync::Semaphore>,
}

impl Reporter {
    fn new() -> Self {
        Self {
            steps: Arc::new(tokio::sync::Semaphore::new(0)),
        }
    }

    async fn step(&self) {
        self.steps.acquire().await.expect("open").forget();
    }
}

#[mcp_router(name = "reporter", version = "1.0.0")]
impl Reporter {
    /// A status, progress with a message, progress without one and a status, a step each;
    /// answers whether each status reached someone.
    #[task_handler(ttl = "1m")]
    async fn report(&self, ctx: Ctx) -> String {
        self.step().await;
        let first = ctx.status("looking up").await;
        self.step().await;
        ctx.progress(1.0, Some(2.0), Some("half way")).await;
        self.step().await;
        ctx.progress(1.5, Some(2.0), None).await;
        let last = ctx.status("wrapping up").await;
        self.step().await;
        format!("{first} {last}")
    }
}

#[tokio::test]
async fn inline_a_status_is_a_progress_notification_when_the_request_has_a_token() {
    let reporter = Reporter::new();
    for mut client in [
        Client::modern(reporter.clone()),
        Client::legacy(reporter.clone()).await,
    ] {
        let era = client.era();
        reporter.steps.add_permits(4);
        let response = client
            .request(
                "tools/call",
                json!({"name": "report", "arguments": {}, "_meta": {"progressToken": "r"}}),
            )
            .await;
        response.assert_tool_text("true true");
        let progress = |value: f64, total: Option<f64>, message: Option<&str>| {
            let mut params = json!({"progressToken": "r", "progress": value});
            if let Some(total) = total {
                params["total"] = json!(total);
            }
            if let Some(message) = message {
                params["message"] = json!(message);
            }
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
        };
        assert_eq!(
            response.notifications,
            [
                // A first status: progress 0, no total yet.
                progress(0.0, None, Some("looking up")),
                progress(1.0, Some(2.0), Some("half way")),
                progress(1.5, Some(2.0), None),
                // A later one: the last total, and the value just above the last (it must grow).
                progress(1.5f64.next_up(), Some(2.0), Some("wrapping up")),
            ],
            "{era:?}"
        );

        // Without a token, neither call reaches anyone.
        reporter.steps.add_permits(4);
        let silent = client.call_tool("report", json!({})).await;
        silent.assert_tool_text("false false");
        assert!(silent.notifications.is_empty(), "{era:?}");
    }
}

#[tokio::test]
async fn as_a_task_a_progress_message_is_the_status_message() {
    let reporter = Reporter::new();
    let mut client = Client::builder(reporter.clone())
        .capabilities(tasks_ext())
        .modern();
    let created = client
        .request(
            "tools/call",
            json!({"name": "report", "arguments": {}, "_meta": {"progressToken": "r"}}),
        )
        .await;
    assert!(
        created.notifications.is_empty(),
        "{:?}",
        created.notifications
    );
    let id = created.result()["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned();
    let mut listen = client.listen(json!({ "taskIds": [id] }));
    let ack = next(&mut listen).await;
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([id]));
    // One step at a time, each heard before the next (a listen reads the task as it is then).
    let mut heard = Vec::new();
    for _ in 0..4 {
        reporter.steps.add_permits(1);
        let task = next(&mut listen).await;
        assert_eq!(task["method"], "notifications/tasks", "{task}");
        let params = &task["params"];
        heard.push((
            params["status"].as_str().unwrap_or_default().to_owned(),
            params["statusMessage"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        ));
        if params["status"] == "completed" {
            assert_eq!(params["result"]["content"][0]["text"], "true true");
        }
    }
    // The progress without a message changed nothing; the outcome keeps the last status.
    let said = |status: &str, message: &str| (status.to_owned(), message.to_owned());
    assert_eq!(
        heard,
        [
            said("working", "looking up"),
            said("working", "half way"),
            said("working", "wrapping up"),
            said("completed", "wrapping up"),
        ]
    );
    assert_eq!(listen.next_within(QUIET).await, None);
}
