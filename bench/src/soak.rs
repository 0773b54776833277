//! `soak`: mixed traffic of both eras against `phantom-soak` for a fixed time, every response
//! checked, while the runner samples the server's RSS once a second; then the verdict (zero
//! errors, RSS flat) and the soak section of `RESULTS.md`.
//!
//! The driver (`phantom-bench load soak <url> <secs> <loops>`) runs `loops` loops of each era at
//! once, each on its own keep-alive connection (a stream gets a connection of its own), each
//! repeating its cycle until the time is up:
//!
//! - **2025-11-25 session**: `initialize` + `notifications/initialized`; [`ROUNDS`] × (`tools/list`,
//!   `tools/call echo`, `resources/read`, `prompts/get`); `tools/call ask`, whose two
//!   `elicitation/create` requests arrive on the call's SSE stream and are answered by POSTs on
//!   the session; `resources/subscribe`, a GET stream, `tools/call touch` and the
//!   `notifications/resources/updated` it must bring on that stream; `resources/unsubscribe`;
//!   `DELETE`, after which the GET stream must end.
//! - **2026-07-28, stateless**: `server/discover`; [`ROUNDS`] × (`tools/list`, `tools/call echo`,
//!   `resources/read`, `prompts/get`); `tools/call job` declaring the tasks extension, then
//!   `tasks/get` until the task is `completed`; `tools/call ask`: two `input_required` rounds, each
//!   answered by sending the call again with `inputResponses` and the `requestState`; a
//!   `subscriptions/listen` stream, acknowledged, that must hear the update a `touch` announces,
//!   then closed by the client.
//!
//! Every step is checked (HTTP status, the JSON-RPC reply to the request's id, no JSON-RPC error,
//! the expected result) and given [`STEP`] to finish; a failure is counted by step and kind, and
//! the loop starts its cycle again.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::load::{Conn, LEGACY, Reply, Target};
use crate::runner::{Env, Server};

/// The 2026-07-28 protocol version.
const MODERN: &str = "2026-07-28";
/// Times each cycle repeats its list, call, read and prompt requests.
const ROUNDS: usize = 4;
/// How long one step (a request, a stream event) may take before it counts as a timeout.
const STEP: Duration = Duration::from_secs(15);
/// How long the task of `tools/call job` sleeps, in ms.
const JOB_MS: u64 = 20;
/// How many failures the driver prints to stderr.
const SHOW_ERRORS: u64 = 5;
/// The RSS slope must stay under this, in % of the mean RSS per minute.
const MAX_SLOPE_PCT_PER_MIN: f64 = 1.0;
/// The slope is fitted over the last this many seconds (or the last 80 % of a shorter run).
const WINDOW_SECS: f64 = 240.0;

/// What one loop does, step by step: the closed set of counted operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    Initialize,
    Initialized,
    LegacyList,
    LegacyCall,
    LegacyRead,
    LegacyPrompt,
    LegacyAsk,
    Elicitation,
    Subscribe,
    GetStream,
    LegacyTouch,
    LegacyUpdate,
    Unsubscribe,
    Delete,
    StreamEnd,
    Discover,
    List,
    Call,
    Read,
    Prompt,
    TaskCreate,
    TaskGet,
    MrtrRound,
    Listen,
    Touch,
    ListenUpdate,
}

impl Op {
    const ALL: [Self; 26] = [
        Self::Initialize,
        Self::Initialized,
        Self::LegacyList,
        Self::LegacyCall,
        Self::LegacyRead,
        Self::LegacyPrompt,
        Self::LegacyAsk,
        Self::Elicitation,
        Self::Subscribe,
        Self::GetStream,
        Self::LegacyTouch,
        Self::LegacyUpdate,
        Self::Unsubscribe,
        Self::Delete,
        Self::StreamEnd,
        Self::Discover,
        Self::List,
        Self::Call,
        Self::Read,
        Self::Prompt,
        Self::TaskCreate,
        Self::TaskGet,
        Self::MrtrRound,
        Self::Listen,
        Self::Touch,
        Self::ListenUpdate,
    ];

    /// The key in the `RESULT` line and the report.
    const fn key(self) -> &'static str {
        match self {
            Self::Initialize => "legacy.initialize",
            Self::Initialized => "legacy.notifications/initialized",
            Self::LegacyList => "legacy.tools/list",
            Self::LegacyCall => "legacy.tools/call-echo",
            Self::LegacyRead => "legacy.resources/read",
            Self::LegacyPrompt => "legacy.prompts/get",
            Self::LegacyAsk => "legacy.tools/call-ask",
            Self::Elicitation => "legacy.elicitation-answer",
            Self::Subscribe => "legacy.resources/subscribe",
            Self::GetStream => "legacy.get-stream",
            Self::LegacyTouch => "legacy.tools/call-touch",
            Self::LegacyUpdate => "legacy.update-on-get-stream",
            Self::Unsubscribe => "legacy.resources/unsubscribe",
            Self::Delete => "legacy.delete",
            Self::StreamEnd => "legacy.get-stream-ends-after-delete",
            Self::Discover => "modern.server/discover",
            Self::List => "modern.tools/list",
            Self::Call => "modern.tools/call-echo",
            Self::Read => "modern.resources/read",
            Self::Prompt => "modern.prompts/get",
            Self::TaskCreate => "modern.tools/call-task",
            Self::TaskGet => "modern.tasks/get",
            Self::MrtrRound => "modern.tools/call-ask-round",
            Self::Listen => "modern.subscriptions/listen",
            Self::Touch => "modern.tools/call-touch",
            Self::ListenUpdate => "modern.update-on-listen",
        }
    }

    fn index(self) -> usize {
        Self::ALL.iter().position(|&o| o == self).unwrap_or(0)
    }
}

/// How a step failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Failure {
    /// An unexpected HTTP status.
    Status,
    /// A JSON-RPC error where a result was expected.
    Rpc,
    /// A reply that is not the expected one (bad JSON, another id, another result).
    Reply,
    /// The connection failed.
    Transport,
    /// The step took longer than [`STEP`].
    Timeout,
    /// A stream ended too early, or did not end when it should have.
    Stream,
}

impl Failure {
    const fn key(self) -> &'static str {
        match self {
            Self::Status => "status",
            Self::Rpc => "jsonrpc-error",
            Self::Reply => "bad-reply",
            Self::Transport => "transport",
            Self::Timeout => "timeout",
            Self::Stream => "stream",
        }
    }
}

/// A failed step.
#[derive(Debug)]
struct Fail {
    op: Op,
    kind: Failure,
    detail: String,
}

fn fail<T>(op: Op, kind: Failure, detail: impl Into<String>) -> Result<T, Fail> {
    Err(Fail {
        op,
        kind,
        detail: detail.into(),
    })
}

/// Counters shared by the loops.
struct Tally {
    next_id: AtomicU64,
    ok: [AtomicU64; Op::ALL.len()],
    errors: Mutex<BTreeMap<(Op, Failure), u64>>,
    shown: AtomicU64,
}

impl Tally {
    fn new() -> Self {
        Self {
            next_id: AtomicU64::new(0),
            ok: std::array::from_fn(|_| AtomicU64::new(0)),
            errors: Mutex::new(BTreeMap::new()),
            shown: AtomicU64::new(0),
        }
    }

    fn id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn ok(&self, op: Op) {
        self.ok[op.index()].fetch_add(1, Ordering::Relaxed);
    }

    fn failed(&self, f: &Fail) {
        if let Ok(mut errors) = self.errors.lock() {
            *errors.entry((f.op, f.kind)).or_default() += 1;
        }
        if self.shown.fetch_add(1, Ordering::Relaxed) < SHOW_ERRORS {
            eprintln!(
                "soak: {} failed ({}): {}",
                f.op.key(),
                f.kind.key(),
                f.detail
            );
        }
    }

    /// The `RESULT` line.
    fn result_line(&self, loops: usize, secs: f64) -> String {
        let counts: Vec<u64> = self.ok.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        let errors = self.errors.lock().map(|e| e.clone()).unwrap_or_default();
        let mut line = format!(
            "RESULT mode=soak loops={loops} secs={secs:.3} ok={} errors={}",
            counts.iter().sum::<u64>(),
            errors.values().sum::<u64>()
        );
        for (op, n) in Op::ALL.iter().zip(&counts) {
            let _ = write!(line, " ok.{}={n}", op.key());
        }
        for ((op, kind), n) in &errors {
            let _ = write!(line, " err.{}.{}={n}", op.key(), kind.key());
        }
        line
    }
}

/// Runs `fut` under the [`STEP`] timeout; counts `op` when it succeeds.
async fn step<T>(
    tally: &Tally,
    op: Op,
    fut: impl Future<Output = Result<T, Fail>>,
) -> Result<T, Fail> {
    match tokio::time::timeout(STEP, fut).await {
        Ok(Ok(v)) => {
            tally.ok(op);
            Ok(v)
        }
        Ok(Err(e)) => Err(e),
        Err(_) => fail(op, Failure::Timeout, format!("no answer within {STEP:?}")),
    }
}

/// The JSON-RPC message answering `id`: the JSON body, or one of the SSE `data:` lines.
fn answer_to(op: Op, reply: &Reply, id: u64) -> Result<Value, Fail> {
    let show = || String::from_utf8_lossy(&reply.body).into_owned();
    if reply.status != StatusCode::OK {
        return fail(
            op,
            Failure::Status,
            format!("status {}: {}", reply.status, show()),
        );
    }
    let parse = |bytes: &[u8]| -> Result<Value, Fail> {
        serde_json::from_slice(bytes)
            .or_else(|e| fail(op, Failure::Reply, format!("bad JSON ({e}): {}", show())))
    };
    let message = if reply.sse {
        let mut found = None;
        for event in sse_events(&reply.body) {
            if let Some(data) = event.filter(|d| !d.is_empty()) {
                let message = parse(data.as_bytes())?;
                if message["id"] == id {
                    found = Some(message);
                    break;
                }
            }
        }
        found
    } else {
        Some(parse(&reply.body)?).filter(|m| m["id"] == id)
    };
    let Some(message) = message else {
        return fail(
            op,
            Failure::Reply,
            format!("no reply to id {id}: {}", show()),
        );
    };
    if let Some(error) = message.get("error") {
        return fail(op, Failure::Rpc, error.to_string());
    }
    match message.get("result") {
        Some(result) => Ok(result.clone()),
        None => fail(op, Failure::Reply, format!("no result: {message}")),
    }
}

/// The `data` of each event of an SSE body (`None` for an event without data lines).
fn sse_events(body: &[u8]) -> Vec<Option<String>> {
    let text = String::from_utf8_lossy(body);
    text.split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(event_data)
        .collect()
}

/// The `data:` lines of one event, joined with `\n`; `None` when it has none.
fn event_data(event: &str) -> Option<String> {
    let lines: Vec<&str> = event
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| d.strip_prefix(' ').unwrap_or(d).trim_end_matches('\r'))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// The text of the first content block of a tool result or prompt message.
fn first_text(v: &Value) -> &str {
    v["content"][0]["text"].as_str().unwrap_or_default()
}

/// An SSE response read event by event, on a connection of its own (closed on drop).
struct EventStream {
    body: Incoming,
    buffer: String,
    conn: tokio::task::JoinHandle<()>,
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.conn.abort();
    }
}

impl EventStream {
    /// Sends `req` on a new connection; the response must be 200 `text/event-stream`.
    async fn open(op: Op, target: &Target, req: Request<Full<Bytes>>) -> Result<Self, Fail> {
        let transport = |e: String| Fail {
            op,
            kind: Failure::Transport,
            detail: e,
        };
        let tcp = TcpStream::connect(target.addr())
            .await
            .map_err(|e| transport(format!("connect: {e}")))?;
        tcp.set_nodelay(true)
            .map_err(|e| transport(e.to_string()))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .map_err(|e| transport(format!("handshake: {e}")))?;
        let conn = tokio::spawn(async move {
            let _ = conn.await;
        });
        let resp = sender
            .send_request(req)
            .await
            .map_err(|e| transport(format!("request: {e}")))?;
        let sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        if resp.status() != StatusCode::OK || !sse {
            let status = resp.status();
            let body = resp.into_body().collect().await.map(|b| b.to_bytes());
            let body = body.map_or_else(|_| String::new(), |b| String::from_utf8_lossy(&b).into());
            return fail(
                op,
                Failure::Status,
                format!("expected a 200 event stream, found {status}: {body}"),
            );
        }
        Ok(Self {
            body: resp.into_body(),
            buffer: String::new(),
            conn,
        })
    }

    /// The next event's data (`Some(None)` for an event without data), `None` at the end.
    async fn next_event(&mut self, op: Op) -> Result<Option<Option<String>>, Fail> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                return Ok(Some(event_data(&event)));
            }
            let Some(frame) = self.body.frame().await else {
                return Ok(None);
            };
            let frame = frame.or_else(|e| fail(op, Failure::Transport, format!("stream: {e}")))?;
            if let Ok(data) = frame.into_data() {
                self.buffer.push_str(&String::from_utf8_lossy(&data));
            }
        }
    }

    /// The next JSON-RPC message (events without data, priming events and comments skipped).
    async fn next_message(&mut self, op: Op) -> Result<Value, Fail> {
        loop {
            match self.next_event(op).await? {
                None => return fail(op, Failure::Stream, "the stream ended"),
                Some(Some(data)) if !data.is_empty() => {
                    return serde_json::from_str(&data)
                        .or_else(|e| fail(op, Failure::Reply, format!("bad JSON ({e}): {data}")));
                }
                Some(_) => {}
            }
        }
    }

    /// Reads until a message with `method` (and, when given, `params.uri`) arrives.
    async fn wait_for(&mut self, op: Op, method: &str, uri: Option<&str>) -> Result<(), Fail> {
        loop {
            let message = self.next_message(op).await?;
            if message["method"] == method && uri.is_none_or(|u| message["params"]["uri"] == u) {
                return Ok(());
            }
        }
    }
}

/// A request for an [`EventStream`], with the headers a conforming client sends.
fn stream_request(
    target: &Target,
    method: Method,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> Request<Full<Bytes>> {
    let mut req = Request::builder()
        .method(method)
        .uri(target.path())
        .header(HOST, target.host());
    req = if body.is_some() {
        req.header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
    } else {
        req.header(ACCEPT, "text/event-stream")
    };
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req.body(Full::new(body.map(Bytes::from).unwrap_or_default()))
        .unwrap_or_else(|_| Request::new(Full::new(Bytes::new())))
}

/// One loop: its connection, its number (for the URIs it follows) and the shared counters.
struct Loop {
    conn: Conn,
    target: Arc<Target>,
    tally: Arc<Tally>,
    n: usize,
}

impl Loop {
    async fn open(target: &Arc<Target>, tally: &Arc<Tally>, n: usize) -> Result<Self, String> {
        Ok(Self {
            conn: Conn::open(Arc::clone(target)).await?,
            target: Arc::clone(target),
            tally: Arc::clone(tally),
            n,
        })
    }

    /// One request on the loop's connection, read to the end.
    async fn send(
        &mut self,
        op: Op,
        method: Method,
        body: Option<&Value>,
        headers: &[(&'static str, &str)],
    ) -> Result<Reply, Fail> {
        self.conn
            .send(method, body.map(Value::to_string), headers)
            .await
            .or_else(|e| fail(op, Failure::Transport, e))
    }

    /// Sends a JSON-RPC request (`id` set here); its result must pass `check`.
    async fn rpc(
        &mut self,
        op: Op,
        headers: &[(&'static str, &str)],
        body: Value,
        check: impl FnOnce(&Value) -> Result<(), String>,
    ) -> Result<Value, Fail> {
        Ok(self.exchange(op, headers, body, check).await?.0)
    }

    /// [`rpc`](Self::rpc), also returning the `Mcp-Session-Id` of the response.
    async fn exchange(
        &mut self,
        op: Op,
        headers: &[(&'static str, &str)],
        mut body: Value,
        check: impl FnOnce(&Value) -> Result<(), String>,
    ) -> Result<(Value, Option<String>), Fail> {
        let id = self.tally.id();
        body["jsonrpc"] = json!("2.0");
        body["id"] = json!(id);
        let tally = Arc::clone(&self.tally);
        step(&tally, op, async {
            let reply = self.send(op, Method::POST, Some(&body), headers).await?;
            let session = reply
                .session
                .as_ref()
                .and_then(|s| s.to_str().ok())
                .map(str::to_owned);
            let result = answer_to(op, &reply, id)?;
            checked(op, &result, check)?;
            Ok((result, session))
        })
        .await
    }

    /// A POST that must answer 202 (a notification, an answer to the server's request).
    async fn post_accepted(
        &mut self,
        op: Op,
        headers: &[(&'static str, &str)],
        body: &Value,
    ) -> Result<(), Fail> {
        let tally = Arc::clone(&self.tally);
        step(&tally, op, async {
            let reply = self.send(op, Method::POST, Some(body), headers).await?;
            if reply.status == StatusCode::ACCEPTED {
                Ok(())
            } else {
                let body = String::from_utf8_lossy(&reply.body).into_owned();
                fail(
                    op,
                    Failure::Status,
                    format!("expected 202, found {}: {body}", reply.status),
                )
            }
        })
        .await
    }

    /// A 2026-07-28 request: `params` get the `_meta` envelope, the request the standard headers.
    async fn modern(
        &mut self,
        op: Op,
        method: &str,
        mut params: Value,
        capabilities: Value,
        check: impl FnOnce(&Value) -> Result<(), String>,
    ) -> Result<Value, Fail> {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "phantom-bench-soak", "version": "0.1"},
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        let name = match method {
            "tools/call" | "prompts/get" => params["name"].as_str(),
            "resources/read" => params["uri"].as_str(),
            "tasks/get" => params["taskId"].as_str(),
            _ => None,
        }
        .map(str::to_owned);
        let mut headers = vec![("mcp-protocol-version", MODERN), ("mcp-method", method)];
        if let Some(name) = &name {
            headers.push(("mcp-name", name));
        }
        self.rpc(
            op,
            &headers,
            json!({"method": method, "params": params}),
            check,
        )
        .await
    }

    /// `tools/list`, `tools/call echo`, `resources/read`, `prompts/get`: on the session of
    /// `headers` (legacy), or stateless (2026-07-28).
    async fn features(
        &mut self,
        era: Era,
        headers: &[(&'static str, &str)],
        round: usize,
    ) -> Result<(), Fail> {
        let tag = format!("{}-{round}", self.n);
        let item = format!("soak://items/{round}");
        let (list, call, read, prompt) = match era {
            Era::Legacy => (
                Op::LegacyList,
                Op::LegacyCall,
                Op::LegacyRead,
                Op::LegacyPrompt,
            ),
            Era::Modern => (Op::List, Op::Call, Op::Read, Op::Prompt),
        };
        let greeting = format!("Hello, {tag}!");
        let item_text = format!("item {round}");
        let steps: [(Op, &str, Value, Checker<'_>); 4] = [
            (
                list,
                "tools/list",
                json!({}),
                Box::new(|r| {
                    want(
                        r["tools"]
                            .as_array()
                            .is_some_and(|t| t.iter().any(|t| t["name"] == "echo")),
                        "a tool list with `echo`",
                    )
                }),
            ),
            (
                call,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": tag}}),
                Box::new(|r| want(first_text(r) == tag, "the text echoed")),
            ),
            (
                read,
                "resources/read",
                json!({ "uri": item }),
                Box::new(|r| {
                    want(
                        r["contents"][0]["text"] == item_text.as_str()
                            && r["contents"][0]["uri"] == item.as_str(),
                        "the item's contents",
                    )
                }),
            ),
            (
                prompt,
                "prompts/get",
                json!({"name": "greeting", "arguments": {"name": tag}}),
                Box::new(|r| {
                    want(
                        r["messages"][0]["content"]["text"] == greeting.as_str(),
                        "the greeting",
                    )
                }),
            ),
        ];
        for (op, method, params, check) in steps {
            match era {
                Era::Modern => {
                    let check = |r: &Value| {
                        want(r["resultType"] == "complete", "`resultType: complete`")?;
                        check(r)
                    };
                    self.modern(op, method, params, json!({}), check).await?;
                }
                Era::Legacy => {
                    let body = json!({"method": method, "params": params});
                    self.rpc(op, headers, body, check).await?;
                }
            }
        }
        Ok(())
    }

    // ---- 2025-11-25 ----

    /// One session cycle; the session is deleted at its end.
    async fn legacy_cycle(&mut self) -> Result<(), Fail> {
        let init = json!({"method": "initialize", "params": {
            "protocolVersion": LEGACY,
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "phantom-bench-soak", "version": "0.1"},
        }});
        let (_, session) = self
            .exchange(Op::Initialize, &[], init, |r| {
                want(
                    r["protocolVersion"] == LEGACY,
                    "the protocol version echoed",
                )
            })
            .await?;
        let Some(session) = session else {
            return fail(Op::Initialize, Failure::Reply, "no `Mcp-Session-Id` header");
        };
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", LEGACY),
        ];
        self.post_accepted(
            Op::Initialized,
            &headers,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await?;
        for round in 0..ROUNDS {
            self.features(Era::Legacy, &headers, round).await?;
        }
        self.legacy_ask(&headers).await?;
        self.legacy_subscription(&headers).await
    }

    /// `tools/call ask` on the session: the server's two `elicitation/create` requests arrive on
    /// the call's stream and are answered on the session; then the result.
    async fn legacy_ask(&mut self, headers: &[(&'static str, &str)]) -> Result<(), Fail> {
        let op = Op::LegacyAsk;
        let id = self.tally.id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "ask", "arguments": {}}});
        let req = stream_request(&self.target, Method::POST, headers, Some(body.to_string()));
        let tally = Arc::clone(&self.tally);
        step(&tally, op, async {
            let mut stream = EventStream::open(op, &self.target, req).await?;
            for (key, value) in [("name", "Ada"), ("color", "blue")] {
                let asked = stream.next_message(op).await?;
                checked(op, &asked, |m| {
                    want(
                        m["method"] == "elicitation/create" && !m["id"].is_null(),
                        &format!("an `elicitation/create` request for `{key}`"),
                    )
                })?;
                let answer = json!({"jsonrpc": "2.0", "id": asked["id"],
                                    "result": {"action": "accept", "content": {"value": value}}});
                self.post_accepted(Op::Elicitation, headers, &answer)
                    .await?;
            }
            let result = stream.next_message(op).await?;
            checked(op, &result, |m| {
                want(
                    m["id"] == id && first_text(&m["result"]) == "Ada likes blue",
                    "the result `Ada likes blue`",
                )
            })
        })
        .await
    }

    /// Subscribe, open the GET stream, `touch`, hear the update, unsubscribe, `DELETE`, and see
    /// the GET stream end.
    async fn legacy_subscription(&mut self, headers: &[(&'static str, &str)]) -> Result<(), Fail> {
        let uri = format!("soak://items/{}", 1000 + self.n);
        let empty = |r: &Value| want(*r == json!({}), "`{}`");
        let subscribe = json!({"method": "resources/subscribe", "params": {"uri": uri}});
        self.rpc(Op::Subscribe, headers, subscribe, empty).await?;
        let req = stream_request(&self.target, Method::GET, headers, None);
        let tally = Arc::clone(&self.tally);
        let mut stream = step(&tally, Op::GetStream, async {
            let mut stream = EventStream::open(Op::GetStream, &self.target, req).await?;
            // The priming event: the stream is attached to the session.
            match stream.next_event(Op::GetStream).await? {
                Some(_) => Ok(stream),
                None => fail(
                    Op::GetStream,
                    Failure::Stream,
                    "ended before its first event",
                ),
            }
        })
        .await?;
        let touch = json!({"method": "tools/call",
                           "params": {"name": "touch", "arguments": {"uri": uri}}});
        self.rpc(Op::LegacyTouch, headers, touch, touched).await?;
        step(
            &tally,
            Op::LegacyUpdate,
            stream.wait_for(
                Op::LegacyUpdate,
                "notifications/resources/updated",
                Some(&uri),
            ),
        )
        .await?;
        let unsubscribe = json!({"method": "resources/unsubscribe", "params": {"uri": uri}});
        self.rpc(Op::Unsubscribe, headers, unsubscribe, empty)
            .await?;
        step(&tally, Op::Delete, async {
            let reply = self.send(Op::Delete, Method::DELETE, None, headers).await?;
            match reply.status {
                StatusCode::OK | StatusCode::ACCEPTED | StatusCode::NO_CONTENT => Ok(()),
                s => fail(
                    Op::Delete,
                    Failure::Status,
                    format!("expected 200/202/204, found {s}"),
                ),
            }
        })
        .await?;
        step(&tally, Op::StreamEnd, async {
            while stream.next_event(Op::StreamEnd).await?.is_some() {}
            Ok(())
        })
        .await
    }

    // ---- 2026-07-28 ----

    /// One stateless cycle.
    async fn modern_cycle(&mut self) -> Result<(), Fail> {
        self.modern(Op::Discover, "server/discover", json!({}), json!({}), |r| {
            want(
                r["supportedVersions"]
                    .as_array()
                    .is_some_and(|v| v.iter().any(|v| v == MODERN)),
                "`supportedVersions` with 2026-07-28",
            )
        })
        .await?;
        for round in 0..ROUNDS {
            self.features(Era::Modern, &[], round).await?;
        }
        self.task().await?;
        self.mrtr().await?;
        self.listen().await
    }

    /// `tools/call job` declaring the tasks extension, then `tasks/get` until it completes.
    async fn task(&mut self) -> Result<(), Fail> {
        let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        let created = self
            .modern(
                Op::TaskCreate,
                "tools/call",
                json!({"name": "job", "arguments": {"ms": JOB_MS}}),
                tasks.clone(),
                |r| {
                    want(
                        r["resultType"] == "task" && r["taskId"].is_string(),
                        "`resultType: task` with a `taskId`",
                    )
                },
            )
            .await?;
        let task_id = created["taskId"].as_str().unwrap_or_default().to_owned();
        let text = format!("slept {JOB_MS} ms");
        let started = Instant::now();
        loop {
            tokio::time::sleep(Duration::from_millis(10)).await;
            let got = self
                .modern(
                    Op::TaskGet,
                    "tasks/get",
                    json!({ "taskId": task_id }),
                    tasks.clone(),
                    |r| match r["status"].as_str() {
                        Some("working") => Ok(()),
                        Some("completed") => want(
                            first_text(&r["result"]) == text,
                            "the task's result `slept … ms`",
                        ),
                        _ => Err("a `working` or `completed` task".into()),
                    },
                )
                .await?;
            if got["status"] == "completed" {
                return Ok(());
            }
            if started.elapsed() > STEP {
                return fail(
                    Op::TaskGet,
                    Failure::Timeout,
                    format!("still working: {got}"),
                );
            }
        }
    }

    /// `tools/call ask`: `input_required` for `name`, then for `color`, then the result; each
    /// round sends the call again with the answer and the `requestState` it was given.
    async fn mrtr(&mut self) -> Result<(), Fail> {
        let op = Op::MrtrRound;
        let caps = json!({"elicitation": {}});
        let mut params = json!({"name": "ask", "arguments": {}});
        for (key, value) in [("name", "Ada"), ("color", "blue")] {
            let r = self
                .modern(op, "tools/call", params.clone(), caps.clone(), |r| {
                    want(
                        r["resultType"] == "input_required"
                            && r["inputRequests"][key]["method"] == "elicitation/create"
                            && r["requestState"].is_string(),
                        &format!("`input_required` asking for `{key}`"),
                    )
                })
                .await?;
            params["inputResponses"] =
                json!({ key: {"action": "accept", "content": {"value": value}} });
            params["requestState"] = r["requestState"].clone();
        }
        self.modern(op, "tools/call", params, caps, |r| {
            want(
                r["resultType"] == "complete" && first_text(r) == "Ada likes blue",
                "the result `Ada likes blue`",
            )
        })
        .await?;
        Ok(())
    }

    /// A listen following one URI: acknowledged, then the update a `touch` announces; then the
    /// client closes it.
    async fn listen(&mut self) -> Result<(), Fail> {
        let uri = format!("soak://items/{}", 2000 + self.n);
        let id = self.tally.id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
            "notifications": {"resourceSubscriptions": [uri]},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        }});
        let req = stream_request(
            &self.target,
            Method::POST,
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "subscriptions/listen"),
            ],
            Some(body.to_string()),
        );
        let tally = Arc::clone(&self.tally);
        let mut stream = step(&tally, Op::Listen, async {
            let mut stream = EventStream::open(Op::Listen, &self.target, req).await?;
            let ack = stream.next_message(Op::Listen).await?;
            checked(Op::Listen, &ack, |m| {
                want(
                    m["method"] == "notifications/subscriptions/acknowledged",
                    "the acknowledgement",
                )
            })?;
            Ok(stream)
        })
        .await?;
        let touch = json!({"name": "touch", "arguments": {"uri": uri}});
        self.modern(Op::Touch, "tools/call", touch, json!({}), touched)
            .await?;
        step(
            &tally,
            Op::ListenUpdate,
            stream.wait_for(
                Op::ListenUpdate,
                "notifications/resources/updated",
                Some(&uri),
            ),
        )
        .await
    }
}

/// A check of a result: `Err` says what was expected.
type Checker<'a> = Box<dyn FnOnce(&Value) -> Result<(), String> + Send + 'a>;

/// `Ok` when `ok`, otherwise what was expected.
fn want(ok: bool, what: &str) -> Result<(), String> {
    if ok { Ok(()) } else { Err(what.to_owned()) }
}

/// `value` passed `check`, or a bad-reply failure saying what was expected and what was found.
fn checked(
    op: Op,
    value: &Value,
    check: impl FnOnce(&Value) -> Result<(), String>,
) -> Result<(), Fail> {
    check(value).or_else(|what| {
        fail(
            op,
            Failure::Reply,
            format!("expected {what}, found {value}"),
        )
    })
}

/// The result of `touch`.
fn touched(r: &Value) -> Result<(), String> {
    want(first_text(r) == "touched", "`touched`")
}

/// The era of a loop.
#[derive(Debug, Clone, Copy)]
enum Era {
    Legacy,
    Modern,
}

const DRIVER_USAGE: &str = "usage: phantom-bench load soak <url> <secs> <loops per era>";

/// `phantom-bench load soak <url> <secs> <loops>`: prints one `RESULT` line.
pub(crate) fn drive(args: &[String]) -> Result<String, String> {
    let [url, secs, loops] = args else {
        return Err(DRIVER_USAGE.into());
    };
    let target = Arc::new(Target::parse(url)?);
    let secs: f64 = secs.parse().map_err(|_| DRIVER_USAGE)?;
    let loops: usize = loops.parse().map_err(|_| DRIVER_USAGE)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        let tally = Arc::new(Tally::new());
        let started = Instant::now();
        let deadline = started + Duration::from_secs_f64(secs);
        let mut tasks = Vec::new();
        for n in 0..loops {
            for era in [Era::Legacy, Era::Modern] {
                let (target, tally) = (Arc::clone(&target), Arc::clone(&tally));
                let n = match era {
                    Era::Legacy => n,
                    Era::Modern => loops + n,
                };
                tasks.push(tokio::spawn(async move {
                    let mut l = Loop::open(&target, &tally, n).await?;
                    while Instant::now() < deadline {
                        let cycle = match era {
                            Era::Legacy => l.legacy_cycle().await,
                            Era::Modern => l.modern_cycle().await,
                        };
                        if let Err(e) = cycle {
                            tally.failed(&e);
                        }
                    }
                    Ok::<_, String>(())
                }));
            }
        }
        for t in tasks {
            t.await.map_err(|e| e.to_string())??;
        }
        Ok(tally.result_line(loops, started.elapsed().as_secs_f64()))
    })
}

// ---- the runner's side: the run, the figures, the verdict, the report ----

/// Options of `phantom-bench soak`.
#[derive(Debug)]
pub(crate) struct Options {
    /// How long the traffic runs.
    pub(crate) secs: u32,
    /// Loops per era.
    pub(crate) loops: usize,
}

impl Options {
    pub(crate) fn parse(args: &[String]) -> Result<Self, String> {
        let mut o = Self {
            secs: 300,
            loops: 4,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("`{a}` needs a value"));
            match a.as_str() {
                "--secs" => o.secs = value()?.parse().map_err(|_| "bad --secs")?,
                "--loops" => o.loops = value()?.parse().map_err(|_| "bad --loops")?,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        if o.secs == 0 || o.loops == 0 {
            return Err("--secs and --loops must be at least 1".into());
        }
        Ok(o)
    }
}

/// The server's RSS over the measuring window.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rss {
    /// The window's start and end, in seconds since the traffic started.
    pub(crate) window: (f64, f64),
    /// Samples in the window.
    pub(crate) samples: usize,
    pub(crate) mean_kb: f64,
    pub(crate) min_kb: f64,
    pub(crate) max_kb: f64,
    /// Least-squares slope, in kB per minute.
    pub(crate) slope_kb_per_min: f64,
}

impl Rss {
    /// Fits `(seconds, kB)` samples taken within the last `window` seconds of `secs`.
    pub(crate) fn fit(samples: &[(f64, f64)], secs: f64, window: f64) -> Option<Self> {
        let from = (secs - window).max(0.0);
        let xs: Vec<(f64, f64)> = samples
            .iter()
            .copied()
            .filter(|&(t, _)| t >= from && t <= secs)
            .collect();
        if xs.len() < 2 {
            return None;
        }
        #[allow(clippy::cast_precision_loss)]
        let n = xs.len() as f64;
        let mean_t = xs.iter().map(|p| p.0).sum::<f64>() / n;
        let mean_kb = xs.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = xs.iter().map(|p| (p.0 - mean_t).powi(2)).sum();
        let sxy: f64 = xs.iter().map(|p| (p.0 - mean_t) * (p.1 - mean_kb)).sum();
        if sxx <= 0.0 {
            return None;
        }
        Some(Self {
            window: (from, secs),
            samples: xs.len(),
            mean_kb,
            min_kb: xs.iter().map(|p| p.1).fold(f64::INFINITY, f64::min),
            max_kb: xs.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max),
            slope_kb_per_min: sxy / sxx * 60.0,
        })
    }

    /// The slope in % of the mean RSS per minute.
    pub(crate) fn slope_pct_per_min(&self) -> f64 {
        self.slope_kb_per_min / self.mean_kb * 100.0
    }
}

/// What a soak run measured.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub(crate) secs: f64,
    pub(crate) loops: usize,
    /// Successful operations by kind (every kind, zeros included).
    pub(crate) ok: Vec<(String, u64)>,
    /// Failures by `<kind>.<failure>`.
    pub(crate) errors: Vec<(String, u64)>,
    /// `(seconds, kB)` once a second.
    pub(crate) rss_kb_at: Vec<(f64, f64)>,
    pub(crate) rss: Option<Rss>,
    pub(crate) cpu_secs: f64,
    /// The 1-minute load average when the run started.
    pub(crate) load_before: f64,
}

impl Outcome {
    pub(crate) fn total_errors(&self) -> u64 {
        self.errors.iter().map(|e| e.1).sum()
    }

    fn total_ok(&self) -> u64 {
        self.ok.iter().map(|o| o.1).sum()
    }

    /// Kinds that never succeeded.
    pub(crate) fn missing(&self) -> Vec<&str> {
        self.ok
            .iter()
            .filter(|(_, n)| *n == 0)
            .map(|(k, _)| k.as_str())
            .collect()
    }

    /// Zero errors, every kind exercised, and the RSS slope under the limit.
    pub(crate) fn passed(&self) -> bool {
        self.total_errors() == 0
            && self.missing().is_empty()
            && self
                .rss
                .as_ref()
                .is_some_and(|r| r.slope_pct_per_min() < MAX_SLOPE_PCT_PER_MIN)
    }

    /// One line for the console.
    pub(crate) fn summary(&self) -> String {
        let total = self.total_ok();
        let rss = self.rss.as_ref().map_or_else(
            || "RSS: too few samples".into(),
            |r| {
                format!(
                    "RSS mean {:.1} MB (min {:.1}, max {:.1}), slope {:+.1} KB/min = {:+.3} %/min",
                    r.mean_kb / 1024.0,
                    r.min_kb / 1024.0,
                    r.max_kb / 1024.0,
                    r.slope_kb_per_min,
                    r.slope_pct_per_min()
                )
            },
        );
        format!(
            "soak: {:.0} s, {} + {} loops: {total} ok, {} errors; {rss}",
            self.secs,
            self.loops,
            self.loops,
            self.total_errors()
        )
    }

    /// The section of `RESULTS.md`, between its markers.
    pub(crate) fn section(&self, command: &str, pinning: &str) -> String {
        let mut w = String::new();
        let total = self.total_ok();
        let _ = writeln!(w, "{BEGIN}");
        let _ = writeln!(
            w,
            "## soak: mixed traffic of both eras against `phantom-soak`\n\n\
             Generated by `{command}` (this section only; `all` keeps it). {} loops per era for \
             {:.0} s, each on its own keep-alive connection, every response checked \
             (`bench/src/soak.rs` lists the cycles); the server's VmRSS sampled once a second; \
             pinning: {pinning}; 1-minute load average when it started: {:.2} (the server and \
             the driver make about 2, more means other processes shared the two cores).\n",
            self.loops, self.secs, self.load_before
        );
        let verdict = if self.passed() {
            "**PASS**"
        } else {
            "**FAIL**"
        };
        let _ = writeln!(w, "| figure | value |\n|---|---:|");
        let _ = writeln!(
            w,
            "| requests and stream deliveries, checked | {total} ({:.0}/s) |",
            per_sec(total, self.secs)
        );
        let _ = writeln!(w, "| errors | {} |", self.total_errors());
        if let Some(r) = &self.rss {
            let _ = writeln!(
                w,
                "| RSS over {:.0}–{:.0} s ({} samples): mean / min / max | {:.2} / {:.2} / {:.2} MB |",
                r.window.0,
                r.window.1,
                r.samples,
                r.mean_kb / 1024.0,
                r.min_kb / 1024.0,
                r.max_kb / 1024.0
            );
            let _ = writeln!(
                w,
                "| RSS slope over that window (least squares) | {:+.1} KB/min = {:+.3} % of the mean per minute |",
                r.slope_kb_per_min,
                r.slope_pct_per_min()
            );
        }
        if let (Some(first), Some(peak)) = (
            self.rss_kb_at.first(),
            self.rss_kb_at.iter().map(|p| p.1).reduce(f64::max),
        ) {
            let _ = writeln!(
                w,
                "| RSS at the start / peak over the whole run | {:.2} / {:.2} MB |",
                first.1 / 1024.0,
                peak / 1024.0
            );
        }
        let _ = writeln!(
            w,
            "| server CPU | {:.1} s ({:.0} % of one core) |",
            self.cpu_secs,
            self.cpu_secs / self.secs * 100.0
        );
        let _ = writeln!(
            w,
            "| verdict (slope < {MAX_SLOPE_PCT_PER_MIN} %/min, zero errors, every kind exercised) | {verdict} |\n"
        );
        let minutes = per_minute(&self.rss_kb_at, self.secs);
        if !minutes.is_empty() {
            let head: Vec<String> = (1..=minutes.len()).map(|m| format!("min {m}")).collect();
            let cells: Vec<String> = minutes
                .iter()
                .map(|kb| format!("{:.2}", kb / 1024.0))
                .collect();
            let _ = writeln!(
                w,
                "Mean RSS (MB) per minute:\n\n| {} |\n|{}\n| {} |\n",
                head.join(" | "),
                "---:|".repeat(minutes.len()),
                cells.join(" | ")
            );
        }
        let _ = writeln!(w, "| kind | checked | per second |\n|---|---:|---:|");
        for (kind, n) in &self.ok {
            let _ = writeln!(w, "| `{kind}` | {n} | {:.1} |", per_sec(*n, self.secs));
        }
        if !self.errors.is_empty() {
            let _ = writeln!(w, "\n| failed step . kind | count |\n|---|---:|");
            for (kind, n) in &self.errors {
                let _ = writeln!(w, "| `{kind}` | {n} |");
            }
        }
        let _ = writeln!(w, "\n{END}");
        w
    }
}

#[allow(clippy::cast_precision_loss)]
fn per_sec(n: u64, secs: f64) -> f64 {
    n as f64 / secs
}

/// A count from the `RESULT` line.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn count(x: f64) -> u64 {
    x.max(0.0).round() as u64
}

/// The mean of the samples of each whole minute of the run.
fn per_minute(samples: &[(f64, f64)], secs: f64) -> Vec<f64> {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let minutes = (secs / 60.0).floor() as usize;
    (0..minutes)
        .filter_map(|m| {
            #[allow(clippy::cast_precision_loss)]
            let (from, to) = (m as f64 * 60.0, (m + 1) as f64 * 60.0);
            let xs: Vec<f64> = samples
                .iter()
                .filter(|p| p.0 >= from && p.0 < to)
                .map(|p| p.1)
                .collect();
            #[allow(clippy::cast_precision_loss)]
            (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
        })
        .collect()
}

/// Starts `phantom-soak`, runs the driver for `secs` with `loops` loops per era, and gathers the
/// figures.
pub(crate) fn run(env: &Env, secs: u32, loops: usize) -> Result<Outcome, String> {
    let args = [secs.to_string(), loops.to_string()];
    // Cycles that started before the end finish, each step within its timeout.
    let timeout = Duration::from_secs(u64::from(secs) + 10 * STEP.as_secs());
    let sampled = env.sampled(Server::Soak, "soak", &args, timeout)?;
    let get = |k: &str| sampled.result.get(k).copied().unwrap_or(0.0);
    let ok = Op::ALL
        .iter()
        .map(|op| (op.key().to_owned(), count(get(&format!("ok.{}", op.key())))))
        .collect();
    let errors = sampled
        .result
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("err.")?.to_owned(), count(*v))))
        .collect();
    let secs = get("secs").max(1.0);
    let window = WINDOW_SECS.min(secs * 0.8);
    Ok(Outcome {
        rss: Rss::fit(&sampled.rss_kb_at, secs, window),
        secs,
        loops,
        ok,
        errors,
        rss_kb_at: sampled.rss_kb_at,
        cpu_secs: sampled.cpu_secs,
        load_before: sampled.load_before,
    })
}

const BEGIN: &str = "<!-- soak:begin -->";
const END: &str = "<!-- soak:end -->";

/// The soak section of a `RESULTS.md`, markers included.
pub(crate) fn kept(doc: &str) -> Option<&str> {
    let start = doc.find(BEGIN)?;
    let end = doc[start..].find(END)? + start + END.len();
    Some(&doc[start..end])
}

/// `doc` with its soak section replaced by `section`, or `section` put before `## Notes` (at the
/// end when there is none).
pub(crate) fn splice(doc: &str, section: &str) -> String {
    let section = section.trim_end();
    if let Some(old) = kept(doc) {
        return doc.replacen(old, section, 1);
    }
    match doc.find("\n## Notes") {
        Some(at) => format!("{}{section}\n\n{}", &doc[..=at], &doc[at + 1..]),
        None => format!("{}\n\n{section}\n", doc.trim_end()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slope_is_fitted_over_the_window_only() {
        // Growing for a minute, then flat at 10 MB with a sawtooth: the last 4 minutes are flat.
        let samples: Vec<(f64, f64)> = (0..=300)
            .map(|t| {
                let t = f64::from(t);
                let kb = if t < 60.0 {
                    5000.0 + t * 85.0
                } else {
                    10240.0 + (t % 7.0)
                };
                (t, kb)
            })
            .collect();
        let r = Rss::fit(&samples, 300.0, 240.0).expect("a fit");
        assert_eq!(r.samples, 241);
        assert!(r.slope_pct_per_min().abs() < 0.01, "{r:?}");
        assert!((r.mean_kb - 10243.0).abs() < 1.0, "{r:?}");
        // A steady growth of 1 MB a minute on 100 MB is 1 % per minute.
        let growing: Vec<(f64, f64)> = (0..=300)
            .map(|t| {
                (
                    f64::from(t),
                    102_400.0 + (f64::from(t) - 180.0) / 60.0 * 1024.0,
                )
            })
            .collect();
        let r = Rss::fit(&growing, 300.0, 240.0).expect("a fit");
        assert!((r.slope_kb_per_min - 1024.0).abs() < 1e-6, "{r:?}");
        assert!((r.slope_pct_per_min() - 1.0).abs() < 1e-9, "{r:?}");
        assert_eq!(Rss::fit(&growing[..1], 300.0, 240.0), None);
    }

    #[test]
    fn the_section_is_replaced_or_put_before_the_notes() {
        let section = format!("{BEGIN}\n## soak: new\n{END}\n");
        let doc = "# R\n\n## a\n\ntext\n\n## Notes\n\n- n\n";
        let once = splice(doc, &section);
        assert_eq!(
            once,
            format!("# R\n\n## a\n\ntext\n\n{BEGIN}\n## soak: new\n{END}\n\n## Notes\n\n- n\n")
        );
        let again = splice(&once, &format!("{BEGIN}\n## soak: newer\n{END}"));
        assert_eq!(again, once.replace("new\n", "newer\n"));
        assert_eq!(
            kept(&again),
            Some(format!("{BEGIN}\n## soak: newer\n{END}").as_str())
        );
        assert_eq!(
            splice("# R\n", &section),
            format!("# R\n\n{BEGIN}\n## soak: new\n{END}\n")
        );
    }

    #[test]
    fn sse_events_give_their_data() {
        let body = b"id: 0\nretry: 3000\ndata: \n\n: keep-alive\n\ndata: {\"id\":1}\nid: 1\n\n";
        assert_eq!(
            sse_events(body),
            [Some(String::new()), None, Some("{\"id\":1}".into())]
        );
    }
}
