//! The stdio transport over in-memory pipes (and once over the process's own stdin and stdout):
//! newline-delimited JSON, one session, callbacks at EOF, a `Config`.

use std::sync::{Arc, Mutex};

use phantom::dispatch::Dispatcher;
use phantom::prelude::*;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::task::JoinHandle;

#[derive(Clone, Default)]
struct Recorder {
    events: Arc<Mutex<Vec<String>>>,
}

#[mcp_router(name = "recorder", version = "0.0.1")]
impl Recorder {
    /// Echo.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    /// Logs the text before answering.
    #[tool]
    async fn shout(&self, ctx: Ctx, text: String) -> String {
        ctx.log(LogLevel::Notice, &text).await;
        text.to_uppercase()
    }

    /// Reports progress, logs, then asks the user for a name (elicitation).
    #[tool]
    async fn interview(&self, ctx: Ctx) -> String {
        ctx.progress(1.0, Some(2.0), Some("asking")).await;
        ctx.log(LogLevel::Info, "about to ask").await;
        let form = Form::new().required("name", Field::string());
        let answer: Elicitation<Value> = ctx.elicit("name", "Your name?", form).await;
        ctx.progress(2.0, Some(2.0), None).await;
        format!(
            "{} {}",
            answer.action(),
            answer.accepted().map_or(Value::Null, |v| v["name"].clone())
        )
    }

    /// One note by id.
    #[resource("recorder:///notes/<id>", mime_type = "text/plain")]
    async fn note(&self, id: u64) -> String {
        format!("note {id}")
    }

    /// Announces that a note changed.
    #[tool]
    async fn touch(&self, notifier: Notifier, id: u64) -> &'static str {
        notifier
            .notify_resource_updated(format!("recorder:///notes/{id}"))
            .await
            .expect("the in-memory bus");
        "touched"
    }

    async fn disconnect(&self, session: &Session) {
        let who = session
            .client_info
            .as_ref()
            .map_or("?", |c| c.name.as_str())
            .to_owned();
        self.events
            .lock()
            .expect("lock")
            .push(format!("disconnect {who}"));
    }

    async fn terminate(&self, _session: &Session) -> Result<(), Error> {
        self.events.lock().expect("lock").push("terminate".into());
        Ok(())
    }
}

type Pipe = (
    JoinHandle<std::io::Result<()>>,
    Lines<BufReader<ReadHalf<DuplexStream>>>,
    WriteHalf<DuplexStream>,
);

/// `server` on stdio over in-memory pipes: the serving task, the client's reader of the server's
/// lines, and the client's writer (shut it down to end the server's input).
fn pipe(server: Recorder) -> Pipe {
    pipe_to(Dispatcher::new(server))
}

fn pipe_to(dispatcher: Dispatcher<Recorder>) -> Pipe {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let task = tokio::spawn(phantom::stdio::serve(dispatcher, server_read, server_write));
    let (client_read, client_write) = tokio::io::split(client_end);
    (task, BufReader::new(client_read).lines(), client_write)
}

/// Writes one message as a line of the server's input.
async fn send_json(input: &mut WriteHalf<DuplexStream>, msg: &Value) {
    input
        .write_all(format!("{msg}\n").as_bytes())
        .await
        .expect("write");
}

/// The server's next line, as JSON (failing after five seconds without one).
async fn next_json(lines: &mut Lines<BufReader<ReadHalf<DuplexStream>>>) -> Value {
    let line = tokio::time::timeout(std::time::Duration::from_secs(5), lines.next_line())
        .await
        .expect("a line in time")
        .expect("read")
        .expect("a line");
    serde_json::from_str(&line).expect("json")
}

#[tokio::test]
async fn serves_lines_and_runs_disconnect_and_terminate_at_eof() {
    let server = Recorder::default();
    let (task, mut lines, mut client_write) = pipe(server.clone());
    let input = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pipe", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": "two", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}),
    ];
    for msg in &input {
        client_write
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .expect("write");
    }
    client_write
        .write_all(b"\n{not json\n")
        .await
        .expect("write");

    let first: Value =
        serde_json::from_str(&lines.next_line().await.expect("read").expect("line")).expect("json");
    assert_eq!(first["result"]["protocolVersion"], "2025-06-18");
    let second: Value =
        serde_json::from_str(&lines.next_line().await.expect("read").expect("line")).expect("json");
    assert_eq!(second["id"], "two");
    assert_eq!(second["result"]["content"][0]["text"], "hi");
    let third: Value =
        serde_json::from_str(&lines.next_line().await.expect("read").expect("line")).expect("json");
    assert_eq!(
        third["error"]["code"], -32700,
        "a bad line gets a parse error, the stream goes on"
    );
    assert_eq!(third["id"], Value::Null);

    client_write.shutdown().await.expect("close stdin");
    drop(client_write);
    task.await.expect("join").expect("serve ends cleanly");
    assert_eq!(
        *server.events.lock().expect("lock"),
        ["disconnect pipe", "terminate"]
    );
}

#[tokio::test]
async fn messages_sent_before_a_result_are_lines_before_it() {
    let (task, mut lines, mut client_write) = pipe(Recorder::default());
    let input = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "pipe", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "info"}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "shout", "arguments": {"text": "hey"}}}),
    ];
    for msg in &input {
        client_write
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .expect("write");
    }
    client_write.shutdown().await.expect("close stdin");
    let mut out = Vec::new();
    while let Some(line) = lines.next_line().await.expect("read") {
        out.push(serde_json::from_str::<Value>(&line).expect("json"));
    }
    task.await.expect("join").expect("serve");
    assert_eq!(out.len(), 4, "{out:?}");
    assert_eq!(out[1]["id"], 2);
    assert_eq!(
        out[2],
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "notice", "data": "hey"}})
    );
    assert_eq!(out[3]["result"]["content"][0]["text"], "HEY");
}

#[tokio::test]
async fn progress_log_and_elicitation_over_stdio() {
    let (task, mut lines, mut client_write) = pipe(Recorder::default());
    let mut send = async |msg: Value| send_json(&mut client_write, &msg).await;
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "pipe", "version": "1"}}}),
    )
    .await;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "info"}})).await;
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "interview", "arguments": {}, "_meta": {"progressToken": "p"}}}),
    )
    .await;
    let mut next = async || next_json(&mut lines).await;
    assert_eq!(next().await["id"], 1);
    assert_eq!(next().await["id"], 2);
    let progress = next().await;
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "p");
    let log = next().await;
    assert_eq!(log["method"], "notifications/message");
    assert_eq!(log["params"]["data"], "about to ask");
    let asked = next().await;
    assert_eq!(asked["method"], "elicitation/create");
    // The answer arrives while the handler waits; the transport reads it at once.
    send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"name": "Ada"}}})).await;
    let progress = next().await;
    assert_eq!(progress["params"]["progress"], 2.0);
    let result = next().await;
    assert_eq!(result["id"], 3);
    assert_eq!(result["result"]["content"][0]["text"], "accept \"Ada\"");
    client_write.shutdown().await.expect("close stdin");
    task.await.expect("join").expect("serve");
}

#[tokio::test]
async fn list_changes_and_resource_updates_are_lines_between_requests() {
    let config = phantom::Config::default();
    let notifier = config.notifier().clone();
    let (task, mut lines, mut client_write) =
        pipe_to(Dispatcher::with_config(Recorder::default(), config));
    let mut send = async |msg: Value| send_json(&mut client_write, &msg).await;
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "pipe", "version": "1"}}}),
    )
    .await;
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                "params": {"uri": "recorder:///notes/1"}}),
    )
    .await;
    let mut next = async || next_json(&mut lines).await;
    assert_eq!(next().await["id"], 1);
    assert_eq!(next().await["result"], json!({}));
    // From outside any request (a background job): written while the server waits for input.
    notifier.notify_tools_changed().await.expect("bus");
    assert_eq!(
        next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    notifier
        .notify_resources_updated(["recorder:///notes/2", "recorder:///notes/1"])
        .await
        .expect("bus");
    assert_eq!(
        next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "recorder:///notes/1"}}),
        "only the subscribed note"
    );
    // From a handler: the update and the tool's result, in either order.
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "touch", "arguments": {"id": 1}}}))
    .await;
    let mut got = [next().await, next().await];
    got.sort_by_key(|m| m.get("id").is_some());
    assert_eq!(
        got[0]["method"], "notifications/resources/updated",
        "{got:?}"
    );
    assert_eq!(got[1]["result"]["content"][0]["text"], "touched");
    client_write.shutdown().await.expect("close stdin");
    task.await.expect("join").expect("serve");
}

#[tokio::test]
async fn a_listen_over_stdio_runs_beside_other_requests_until_cancelled() {
    let config = phantom::Config::default();
    let notifier = config.notifier().clone();
    let (task, mut lines, mut client_write) =
        pipe_to(Dispatcher::with_config(Recorder::default(), config));
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let mut send = async |msg: Value| send_json(&mut client_write, &msg).await;
    send(
        json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
                "params": {"notifications": {"toolsListChanged": true}, "_meta": meta}}),
    )
    .await;
    let ack = next_json(&mut lines).await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    // The listen does not hold the line: a later request is answered.
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "still here"}, "_meta": meta}}))
    .await;
    assert_eq!(
        next_json(&mut lines).await["result"]["content"][0]["text"],
        "still here"
    );
    notifier.notify_tools_changed().await.expect("bus");
    let changed = next_json(&mut lines).await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );
    // Cancelled: nothing more on it, not even a result.
    send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": "sub"}}),
    )
    .await;
    // Lines are read in order: once this is answered, the cancellation was handled.
    send(
        json!({"jsonrpc": "2.0", "id": "sync", "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "sync"}, "_meta": meta}}),
    )
    .await;
    assert_eq!(next_json(&mut lines).await["id"], "sync");
    notifier.notify_tools_changed().await.expect("bus");
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "last"}, "_meta": meta}}))
    .await;
    assert_eq!(next_json(&mut lines).await["id"], 3);
    client_write.shutdown().await.expect("close stdin");
    task.await.expect("join").expect("serve");
    assert!(
        lines.next_line().await.expect("read").is_none(),
        "nothing after the last reply"
    );
}

/// Set in the child process of [`run_with_config_serves_the_process_stdio_with_its_config`].
const CHILD: &str = "PHANTOM_STDIO_CHILD";

/// `stdio::run_with_config` serves the process's own stdin and stdout, so this test runs twice:
/// the parent starts this test binary again with only this test selected and [`CHILD`] set, and
/// the child serves with `page_size(1)`. The parent skips the lines the test harness prints
/// around the child's test (none of them is JSON).
#[tokio::test]
async fn run_with_config_serves_the_process_stdio_with_its_config() {
    if std::env::var_os(CHILD).is_some() {
        let config = phantom::Config::default().with_page_size(1);
        phantom::stdio::run_with_config(Recorder::default(), config)
            .await
            .expect("serves until stdin closes");
        return;
    }
    let mut child = phantom_tests::child::rerun(
        "run_with_config_serves_the_process_stdio_with_its_config",
        CHILD,
    );
    let (mut stdin, mut recv) = json_lines(&mut child);
    write_lines(
        &mut stdin,
        &opened_then(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})),
    );
    assert_eq!(recv()["result"]["serverInfo"]["name"], "recorder");
    let page = recv();
    assert_eq!(page["id"], 2);
    let tools = page["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 1, "one tool a page: {page}");
    assert!(page["result"]["nextCursor"].is_string(), "{page}");
    drop(stdin);
    assert!(child.wait().expect("the child ends").success());
}

/// The child's stdin, and a reader of the JSON lines on its stdout (the lines its test harness
/// prints around them skipped: none is JSON).
fn json_lines(
    child: &mut std::process::Child,
) -> (std::process::ChildStdin, impl FnMut() -> Value + use<>) {
    use std::io::BufRead as _;
    let stdin = child.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let recv = move || loop {
        let mut line = String::new();
        assert_ne!(
            stdout.read_line(&mut line).expect("read"),
            0,
            "the child ended"
        );
        if line.starts_with('{') {
            return serde_json::from_str::<Value>(&line).expect("a JSON reply");
        }
    };
    (stdin, recv)
}

/// A 2025-11-25 session's opening (`initialize` as id 1, `notifications/initialized`), then
/// `request`.
fn opened_then(request: Value) -> [Value; 3] {
    [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "parent", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        request,
    ]
}

/// Writes each message as a line, then flushes.
fn write_lines(stdin: &mut std::process::ChildStdin, messages: &[Value]) {
    use std::io::Write as _;
    for msg in messages {
        writeln!(stdin, "{msg}").expect("write");
    }
    stdin.flush().expect("flush");
}

/// Set in the child process of [`sigterm_finishes_the_request_in_flight_and_exits_0`].
const SIGTERM_CHILD: &str = "PHANTOM_STDIO_SIGTERM_CHILD";

/// `stdio::run` on `SIGTERM`: the child (this test binary again, as above) is sent `SIGTERM`
/// while a tool call takes 1 s; it writes the call's answer and exits 0, though its stdin is
/// still open.
#[tokio::test]
async fn sigterm_finishes_the_request_in_flight_and_exits_0() {
    if std::env::var_os(SIGTERM_CHILD).is_some() {
        phantom::stdio::run(phantom_tests::slow::Slow)
            .await
            .expect("serves until SIGTERM");
        return;
    }
    let mut child = phantom_tests::child::rerun(
        "sigterm_finishes_the_request_in_flight_and_exits_0",
        SIGTERM_CHILD,
    );
    let (mut stdin, mut recv) = json_lines(&mut child);
    write_lines(
        &mut stdin,
        &opened_then(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "wait", "arguments": {"ms": 1000}}})),
    );
    assert_eq!(recv()["result"]["serverInfo"]["name"], "slow");
    std::thread::sleep(std::time::Duration::from_millis(300));
    phantom_tests::child::terminate(&child);
    let answer = recv();
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "done", "{answer}");
    // stdin is still open: the child ends anyway.
    let status = phantom_tests::child::exit_status(&mut child, std::time::Duration::from_secs(10));
    assert!(status.success(), "the child exited with {status}");
    drop(stdin);
}
