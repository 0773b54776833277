//! A name, URI or task id written with JSON escapes (`"w\u0069pe"`, `"esc:\/\/\/secret"`) is the
//! same string as its plain spelling. Over real HTTP, in both eras, every consumer of what a
//! request names treats the two alike: global middleware, `tool_middleware`, `RateLimit` (per
//! tool and per method), `Timeout::tool`, `ResponseCache`, `Audit`, the `Mcp-Name` and
//! `Mcp-Param-*` checks, allow-lists, `#[tool(scopes)]`, tasks and telemetry's `mcp.name`. The
//! escaped spelling here also escapes the method (`tools\/call`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::StatusCode;
use phantom::auth::AuthInfo;
use phantom::http::HttpConfig;
use phantom::{BoxFuture, Config};
use phantom::middleware::{Answer, Audit, Call, Middleware, Next, RateLimit, ResponseCache, Timeout};
use phantom::prelude::*;
use phantom::protocol::Method;
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt as _};

use crate::support::{LEGACY, MODERN, TestServer, modern_request, request};

#[derive(Clone, Default)]
struct Vault {
    counted: Arc<AtomicU64>,
}

#[mcp_router(name = "vault", version = "1.0.0")]
impl Vault {
    /// Echo the text back.
    #[tool]
    async fn echo(&self, text: String) -> String {
        format!("said {text}")
    }

    /// Wipes everything (the middleware refuses it).
    #[tool]
    async fn wipe(&self) -> String {
        "wiped".into()
    }

    /// Takes its time.
    #[tool]
    async fn slow(&self) -> String {
        tokio::time::sleep(Duration::from_secs(5)).await;
        "slept".into()
    }

    /// Counts its calls.
    #[tool(read_only)]
    async fn count(&self) -> String {
        format!("call {}", self.counted.fetch_add(1, Ordering::SeqCst) + 1)
    }

    /// For administrators.
    #[tool(scopes = ["vault:admin"])]
    async fn admin(&self) -> String {
        "administered".into()
    }

    /// Kept from everyone by the allow-list.
    #[tool]
    async fn hidden(&self) -> String {
        "found".into()
    }

    /// The weather of a region, mirrored in `Mcp-Param-Region`.
    #[tool]
    async fn weather(&self, #[arg(header = "Region")] region: String) -> String {
        format!("sunny in {region}")
    }

    /// Exports, as a task.
    #[task_handler(ttl = "1m", poll_interval = "50ms")]
    async fn export(&self) -> String {
        "exported".into()
    }

    /// The secret (the middleware refuses it).
    #[resource("esc:///secret")]
    async fn secret(&self) -> String {
        "the secret".into()
    }

    /// A note.
    #[resource("esc:///notes/<id>")]
    async fn note(&self, id: u64) -> String {
        format!("note {id}")
    }

    /// Greets someone.
    #[prompt]
    async fn greet(&self, who: String) -> PromptReply {
        PromptReply::default().user(format!("Hello, {who}."))
    }

    /// `hidden` is on no one's allow-list; `x-role: admin` holds `vault:admin`.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        session.allowed_tools = Session::allow([
            "echo", "wipe", "slow", "count", "admin", "weather", "export",
        ]);
        if request.header("x-role") == Some("admin") {
            session.principal = Some("root".into());
            session.auth = Some(Arc::new(AuthInfo::new("root").scopes(["vault:admin"])));
        }
        Connect::Ok
    }
}

/// Records what each call names and refuses the tool `wipe` and the resource `esc:///secret`, as
/// a user writes it.
#[derive(Clone, Default)]
struct Refuse {
    seen: Arc<Mutex<Vec<String>>>,
}

impl Middleware for Refuse {
    fn on_request<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        self.seen
            .lock()
            .expect("seen")
            .push(format!("{} {}", call.method, call.name.unwrap_or("-")));
        let refused = call.name == Some("wipe") || call.name == Some("esc:///secret");
        Box::pin(async move {
            if refused {
                return Answer::error(Error::new(-32000, "refused by policy"));
            }
            next.run(call).await
        })
    }
}

/// Records the calls it wraps (as a `tool_middleware`).
#[derive(Clone, Default)]
struct Tag {
    seen: Arc<Mutex<Vec<String>>>,
}

impl Middleware for Tag {
    fn on_request<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        self.seen
            .lock()
            .expect("tagged")
            .push(call.name.unwrap_or("-").to_owned());
        next.run(call)
    }
}

/// Every other character of `text` written as a `\uXXXX` escape, and every `/` as `\/`.
fn escaped(text: &str) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| match c {
            '/' => "\\/".to_owned(),
            c if i % 2 == 0 => format!("\\u{:04x}", u32::from(c)),
            c => c.to_string(),
        })
        .collect()
}

/// `body` as text, with each of `words` (JSON strings in it) written escaped when `escape`.
fn spelled(body: &Value, words: &[&str], escape: bool) -> String {
    let mut text = body.to_string();
    if escape {
        for word in words {
            text = text.replace(&format!("\"{word}\""), &format!("\"{}\"", escaped(word)));
        }
    }
    text
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Era {
    Legacy,
    Modern,
}

/// A client of one era: a legacy session, or none.
struct Client<'a> {
    server: &'a TestServer,
    era: Era,
    session: Option<String>,
    role: Option<&'static str>,
}

/// Declares the tasks extension, in either era.
fn capabilities() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

impl<'a> Client<'a> {
    async fn new(server: &'a TestServer, era: Era, role: Option<&'static str>) -> Self {
        let mut client = Self {
            server,
            era,
            session: None,
            role,
        };
        if era == Era::Legacy {
            let init = request(
                0,
                "initialize",
                json!({
                    "protocolVersion": LEGACY,
                    "capabilities": capabilities(),
                    "clientInfo": {"name": "escaped", "version": "1"},
                }),
            );
            let reply = client.call(&init.to_string(), &[]).send().await;
            assert_eq!(reply.status, StatusCode::OK);
            client.session = reply.session_id();
            let _ = reply.text().await;
            let ack = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            let ack = client.call(&ack.to_string(), &[]).send().await;
            assert_eq!(ack.status, StatusCode::ACCEPTED);
        }
        client
    }

    fn call(&self, body: &str, headers: &[(&str, &str)]) -> crate::support::Call {
        let mut call = self
            .server
            .request(http::Method::POST)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_owned());
        if let Some(session) = &self.session {
            call = call.header("mcp-session-id", session);
        }
        if let Some(role) = self.role {
            call = call.header("x-role", role);
        }
        for (name, value) in headers {
            call = call.header(name, value);
        }
        call
    }

    /// `method` with `params` naming `target`, spelled plainly or escaped (the method, the
    /// target and each of `also`); a 2026-07-28 request's `Mcp-Name` is `header`, else the
    /// plain target.
    async fn send(
        &self,
        method: &str,
        params: Value,
        target: &str,
        escape: bool,
        header: Option<&str>,
    ) -> (StatusCode, Value) {
        self.send_with(method, params, &[target], escape, header, &[])
            .await
    }

    /// [`send`](Self::send) of a request naming `words[0]` with the other `words` escaped too,
    /// and `extra` headers.
    async fn send_with(
        &self,
        method: &str,
        mut params: Value,
        words: &[&str],
        escape: bool,
        header: Option<&str>,
        extra: &[(&str, &str)],
    ) -> (StatusCode, Value) {
        let (body, mut headers) = match self.era {
            Era::Legacy => (request(1, method, params), Vec::new()),
            Era::Modern => {
                params["_meta"] = json!({
                    "io.modelcontextprotocol/protocolVersion": MODERN,
                    "io.modelcontextprotocol/clientCapabilities": capabilities(),
                });
                let name = header.unwrap_or(words[0]);
                let headers = vec![
                    ("mcp-protocol-version", MODERN),
                    ("mcp-method", method),
                    ("mcp-name", name),
                ];
                (modern_request(1, method, params), headers)
            }
        };
        headers.extend_from_slice(extra);
        let text = spelled(&body, &[&[method], words].concat(), escape);
        let reply = self.call(&text, &headers).send().await;
        let status = reply.status;
        let text = reply.text().await;
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, value)
    }

    /// The plain and the escaped spelling of one request, each on its own: both answers.
    async fn both(
        &self,
        method: &str,
        params: Value,
        target: &str,
    ) -> [(StatusCode, Value); 2] {
        [
            self.send(method, params.clone(), target, false, None).await,
            self.send(method, params, target, true, None).await,
        ]
    }
}

/// A server of `Vault` with `config`, and a client of each era.
async fn each_era(config: Config) -> (TestServer, Vault) {
    let vault = Vault::default();
    let server = TestServer::start_with(vault.clone(), HttpConfig::default().config(config)).await;
    (server, vault)
}

const ERAS: [Era; 2] = [Era::Legacy, Era::Modern];

fn text_of(reply: &(StatusCode, Value)) -> &str {
    reply.1["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {reply:?}"))
}

#[tokio::test]
async fn middleware_and_tool_middleware_see_the_unescaped_name_and_uri() {
    let refuse = Refuse::default();
    let tag = Tag::default();
    let config = Config::default()
        .middleware(refuse.clone())
        .tool_middleware("echo", tag.clone());
    let (server, _) = each_era(config).await;
    for era in ERAS {
        let client = Client::new(&server, era, None).await;
        let echo = json!({"name": "echo", "arguments": {"text": "hi"}});
        let [plain, escaped] = client.both("tools/call", echo, "echo").await;
        assert_eq!(plain, escaped, "{era:?}");
        assert_eq!(text_of(&plain), "said hi");

        let [plain, escaped] = client
            .both("tools/call", json!({"name": "wipe"}), "wipe")
            .await;
        assert_eq!(plain, escaped, "{era:?}");
        assert_eq!(plain.1["error"]["message"], "refused by policy", "{era:?}");

        let secret = json!({"uri": "esc:///secret"});
        let [plain, escaped] = client.both("resources/read", secret, "esc:///secret").await;
        assert_eq!(plain, escaped, "{era:?}");
        assert_eq!(plain.1["error"]["message"], "refused by policy", "{era:?}");

        let note = json!({"uri": "esc:///notes/3"});
        let [plain, escaped] = client.both("resources/read", note, "esc:///notes/3").await;
        assert_eq!(plain, escaped, "{era:?}");
        assert_eq!(plain.1["result"]["contents"][0]["text"], "note 3", "{era:?}");

        let greet = json!({"name": "greet", "arguments": {"who": "Ada"}});
        let [plain, escaped] = client.both("prompts/get", greet, "greet").await;
        assert_eq!(plain, escaped, "{era:?}");
        assert!(plain.1["result"]["messages"].is_array(), "{plain:?}");
    }
    let seen = refuse.seen.lock().expect("seen").clone();
    let once = [
        "tools/call echo",
        "tools/call echo",
        "tools/call wipe",
        "tools/call wipe",
        "resources/read esc:///secret",
        "resources/read esc:///secret",
        "resources/read esc:///notes/3",
        "resources/read esc:///notes/3",
        "prompts/get greet",
        "prompts/get greet",
    ];
    assert_eq!(seen, [once, once].concat());
    assert_eq!(*tag.seen.lock().expect("tagged"), ["echo"; 4]);
}

#[tokio::test]
async fn rate_limits_count_both_spellings_in_one_bucket() {
    for era in ERAS {
        let config = Config::default()
            .middleware(RateLimit::per_second(0.001, 1).tool("echo"))
            .middleware(RateLimit::per_second(0.001, 1).method(Method::ResourcesRead));
        let (server, _) = each_era(config).await;
        let client = Client::new(&server, era, None).await;
        let echo = json!({"name": "echo", "arguments": {"text": "hi"}});
        let first = client.send("tools/call", echo.clone(), "echo", true, None).await;
        assert_eq!(text_of(&first), "said hi", "{era:?}");
        for escape in [false, true] {
            let limited = client.send("tools/call", echo.clone(), "echo", escape, None).await;
            assert_eq!(limited.0, StatusCode::TOO_MANY_REQUESTS, "{era:?} {limited:?}");
        }
        // Another tool is not limited.
        let count = client.send("tools/call", json!({"name": "count"}), "count", true, None).await;
        assert_eq!(text_of(&count), "call 1", "{era:?}");

        let note = json!({"uri": "esc:///notes/1"});
        let first = client.send("resources/read", note.clone(), "esc:///notes/1", true, None).await;
        assert_eq!(first.1["result"]["contents"][0]["text"], "note 1", "{era:?}");
        for escape in [false, true] {
            let limited = client
                .send("resources/read", note.clone(), "esc:///notes/1", escape, None)
                .await;
            assert_eq!(limited.0, StatusCode::TOO_MANY_REQUESTS, "{era:?} {limited:?}");
        }
    }
}

#[tokio::test]
async fn a_tool_timeout_and_the_response_cache_key_on_the_unescaped_name() {
    let config = Config::default()
        .middleware(Timeout::new().tool("slow", Duration::from_millis(100)))
        .middleware(ResponseCache::new().calls(Duration::from_secs(60)).tool("count"));
    let (server, vault) = each_era(config).await;
    for era in ERAS {
        let client = Client::new(&server, era, None).await;
        let [plain, escaped] = client.both("tools/call", json!({"name": "slow"}), "slow").await;
        assert_eq!(plain, escaped, "{era:?}");
        assert_eq!(
            text_of(&plain),
            "Tool `slow` timed out after 100ms",
            "{era:?}"
        );

        // The escaped call is answered from the plain one's cache entry.
        let before = vault.counted.load(Ordering::SeqCst);
        let [plain, escaped] = client.both("tools/call", json!({"name": "count"}), "count").await;
        assert_eq!(plain, escaped, "{era:?}");
        assert_eq!(vault.counted.load(Ordering::SeqCst), before + 1, "{era:?}");
    }
}

#[tokio::test]
async fn allow_lists_and_scopes_hold_for_the_escaped_spelling() {
    let (server, _) = each_era(Config::default()).await;
    for era in ERAS {
        let anonymous = Client::new(&server, era, None).await;
        let [plain, escaped] = anonymous
            .both("tools/call", json!({"name": "hidden"}), "hidden")
            .await;
        assert_eq!(plain, escaped, "{era:?}");
        assert!(plain.1["error"].is_object(), "{plain:?}");

        let [plain, escaped] = anonymous.both("tools/call", json!({"name": "admin"}), "admin").await;
        assert_eq!(plain, escaped, "{era:?}");
        assert_eq!(plain.0, StatusCode::FORBIDDEN, "{era:?} {plain:?}");

        let admin = Client::new(&server, era, Some("admin")).await;
        let [plain, escaped] = admin.both("tools/call", json!({"name": "admin"}), "admin").await;
        assert_eq!(plain, escaped, "{era:?}");
        assert_eq!(text_of(&plain), "administered");
    }
}

#[tokio::test]
async fn mcp_name_and_mcp_param_headers_are_checked_against_the_unescaped_body() {
    let (server, _) = each_era(Config::default()).await;
    let client = Client::new(&server, Era::Modern, None).await;
    let echo = json!({"name": "echo", "arguments": {"text": "hi"}});
    // An escaped body name against a plain header: they agree.
    let agreed = client.send("tools/call", echo.clone(), "echo", true, Some("echo")).await;
    assert_eq!(text_of(&agreed), "said hi");
    // A header that spells the escape itself does not name the body's tool.
    let literal = escaped("echo");
    let refused = client.send("tools/call", echo.clone(), "echo", false, Some(&literal)).await;
    assert_eq!(refused.0, StatusCode::BAD_REQUEST, "{refused:?}");
    assert_eq!(refused.1["error"]["code"], -32020);
    // An escaped body against a header naming another tool: the message quotes the body's name
    // as it reads.
    let other = client.send("tools/call", echo.clone(), "echo", true, Some("wipe")).await;
    assert_eq!(other.1["error"]["code"], -32020);
    assert_eq!(
        other.1["error"]["message"],
        "Header mismatch: Mcp-Name 'wipe' != body 'echo'"
    );
    let read = json!({"uri": "esc:///notes/2"});
    let ok = client.send("resources/read", read.clone(), "esc:///notes/2", true, None).await;
    assert_eq!(ok.1["result"]["contents"][0]["text"], "note 2", "{ok:?}");

    // `Mcp-Param-Region` is checked for the tool the escaped body names, against its arguments
    // (their keys and values escaped too).
    let weather = json!({"name": "weather", "arguments": {"region": "north/east"}});
    let words = ["weather", "region", "north/east"];
    for escape in [false, true] {
        let region = [("mcp-param-region", "north/east")];
        let sent = client
            .send_with("tools/call", weather.clone(), &words, escape, None, &region)
            .await;
        assert_eq!(text_of(&sent), "sunny in north/east", "{sent:?}");
        let other = [("mcp-param-region", "south")];
        let differs = client
            .send_with("tools/call", weather.clone(), &words, escape, None, &other)
            .await;
        assert_eq!(differs.0, StatusCode::BAD_REQUEST, "{differs:?}");
        assert_eq!(
            differs.1["error"]["message"],
            "Header mismatch: Mcp-Param-Region 'south' != argument `region` \"north/east\""
        );
        let missing = client
            .send_with("tools/call", weather.clone(), &words, escape, None, &[])
            .await;
        assert_eq!(missing.0, StatusCode::BAD_REQUEST, "{missing:?}");
        assert_eq!(
            missing.1["error"]["message"],
            "Header mismatch: missing Mcp-Param-Region header for argument `region`"
        );
    }
    let keys = spelled(&modern_request(1, "tools/call", weather), &words, true);
    assert!(keys.contains(r#""\u0072e\u0067i\u006fn""#), "{keys}");
}

#[tokio::test]
async fn a_task_started_and_read_by_escaped_names_behaves_as_plain() {
    let (server, _) = each_era(Config::default()).await;
    for era in ERAS {
        let client = Client::new(&server, era, None).await;
        let mut ids = Vec::new();
        for escape in [false, true] {
            let started = client
                .send("tools/call", json!({"name": "export"}), "export", escape, None)
                .await;
            let id = started.1["result"]["taskId"]
                .as_str()
                .or(started.1["result"]["task"]["taskId"].as_str())
                .unwrap_or_else(|| panic!("{era:?}: no task in {started:?}"))
                .to_owned();
            ids.push(id);
        }
        for id in &ids {
            let mut answers = Vec::new();
            for escape in [false, true] {
                let mut last = (StatusCode::OK, Value::Null);
                for _ in 0..100 {
                    last = client
                        .send("tasks/get", json!({"taskId": id}), id, escape, None)
                        .await;
                    if last.1["result"]["status"] == "completed" {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                assert_eq!(last.1["result"]["status"], "completed", "{era:?} {last:?}");
                answers.push(last.1["result"]["taskId"].clone());
            }
            assert_eq!(answers, [json!(id), json!(id)], "{era:?}");
        }
    }
}

type Fields = HashMap<String, String>;

/// The `name` of every `phantom::audit` event and the `mcp.name` of every request span.
#[derive(Clone, Default)]
struct Captured {
    audited: Arc<Mutex<Vec<Fields>>>,
    spans: Arc<Mutex<Vec<(Id, Fields)>>>,
}

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Captured {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        if attrs.metadata().name() == "mcp.request" {
            let mut fields = Fields::new();
            attrs.record(&mut Collect(&mut fields));
            self.spans.lock().expect("spans").push((id.clone(), fields));
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = self.spans.lock().expect("spans");
        if let Some((_, fields)) = spans.iter_mut().find(|(i, _)| i == id) {
            values.record(&mut Collect(fields));
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == "phantom::audit" {
            let mut fields = Fields::new();
            event.record(&mut Collect(&mut fields));
            self.audited.lock().expect("audited").push(fields);
        }
    }
}

#[tokio::test]
async fn audit_and_telemetry_record_the_unescaped_name() {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::registry().with(captured.clone());
    let _guard = tracing::subscriber::set_default(subscriber);
    let (server, _) = each_era(Config::default().middleware(Audit::new())).await;
    for era in ERAS {
        let client = Client::new(&server, era, None).await;
        let echo = json!({"name": "echo", "arguments": {"text": "hi"}});
        let [plain, escaped] = client.both("tools/call", echo, "echo").await;
        assert_eq!(plain, escaped);
    }
    let audited: Vec<(String, String)> = captured
        .audited
        .lock()
        .expect("audited")
        .iter()
        .map(|f| (f["method"].clone(), f["name"].clone()))
        .collect();
    let call = ("tools/call".to_owned(), "echo".to_owned());
    assert_eq!(audited, vec![call; 4]);
    let names: Vec<Option<String>> = captured
        .spans
        .lock()
        .expect("spans")
        .iter()
        .filter(|(_, f)| f.get("rpc.method").map(String::as_str) == Some("tools/call"))
        .map(|(_, f)| f.get("mcp.name").cloned())
        .collect();
    assert_eq!(names, vec![Some("echo".to_owned()); 4]);
}
