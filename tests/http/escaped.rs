//! A name, URI or task id written with JSON escapes (`"w\u0069pe"`, `"esc:\/\/\/secret"`) is the
//! same string as its plain spelling. Over real HTTP, in both eras, every consumer of what a
//! request names treats the two alike: global middleware, `tool_middleware`, `RateLimit` (per
//! tool and per method), `Timeout::tool`, `ResponseCache`, `Audit`, the `Mcp-Name` and
//! `Mcp-Param-*` checks, allow-lists, `#[tool(scopes)]`, tasks and telemetry's `mcp.name`. The
//! escaped spelling here also escapes the method (`tools\/call`). A property respells requests at
//! random, keys, methods and the `_meta` envelope's keys included, over HTTP, stdio and the
//! in-process test client; a batch of a 2025-03-26 session carries both spellings.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::StatusCode;
use phantom::auth::AuthInfo;
use phantom::http::HttpConfig;
use phantom::middleware::{
    Answer, Audit, Call, Middleware, Next, RateLimit, ResponseCache, Timeout,
};
use phantom::prelude::*;
use phantom::protocol::Method;
use phantom::{BoxFuture, Config};
use serde_json::{Value, json};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt as _};

use crate::support::{LEGACY, MODERN, TestServer, escaped, modern_request, request, spelled};
use crate::telemetry::Collect;

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

    /// Starts inline, then becomes a task (`prepare`: the 2026-07-28 call escalates).
    #[task_handler(ttl = "1m", poll_interval = "50ms", prepare)]
    async fn export_later(&self, ctx: Ctx) -> String {
        ctx.task().await;
        "exported later".into()
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
            "echo",
            "wipe",
            "slow",
            "count",
            "admin",
            "weather",
            "export",
            "export_later",
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
        self.seen.lock().expect("seen").push(format!(
            "{} {}",
            call.method,
            call.name.unwrap_or("-")
        ));
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
    async fn both(&self, method: &str, params: Value, target: &str) -> [(StatusCode, Value); 2] {
        [
            self.send(method, params.clone(), target, false, None).await,
            self.send(method, params, target, true, None).await,
        ]
    }
}

/// A server of `Vault` with `config`, and a client of each era.
async fn each_era(config: Config) -> (TestServer, Vault) {
    let vault = Vault::default();
    let server = TestServer::start_configured(vault.clone(), config, HttpConfig::default()).await;
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
        .with_middleware(refuse.clone())
        .with_tool_middleware("echo", tag.clone());
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
        assert_eq!(
            plain.1["result"]["contents"][0]["text"], "note 3",
            "{era:?}"
        );

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
            .with_middleware(RateLimit::per_second(0.001, 1).tool("echo"))
            .with_middleware(RateLimit::per_second(0.001, 1).method(Method::ResourcesRead));
        let (server, _) = each_era(config).await;
        let client = Client::new(&server, era, None).await;
        let echo = json!({"name": "echo", "arguments": {"text": "hi"}});
        let first = client
            .send("tools/call", echo.clone(), "echo", true, None)
            .await;
        assert_eq!(text_of(&first), "said hi", "{era:?}");
        for escape in [false, true] {
            let limited = client
                .send("tools/call", echo.clone(), "echo", escape, None)
                .await;
            assert_eq!(
                limited.0,
                StatusCode::TOO_MANY_REQUESTS,
                "{era:?} {limited:?}"
            );
        }
        // Another tool is not limited.
        let count = client
            .send("tools/call", json!({"name": "count"}), "count", true, None)
            .await;
        assert_eq!(text_of(&count), "call 1", "{era:?}");

        let note = json!({"uri": "esc:///notes/1"});
        let first = client
            .send("resources/read", note.clone(), "esc:///notes/1", true, None)
            .await;
        assert_eq!(
            first.1["result"]["contents"][0]["text"], "note 1",
            "{era:?}"
        );
        for escape in [false, true] {
            let limited = client
                .send(
                    "resources/read",
                    note.clone(),
                    "esc:///notes/1",
                    escape,
                    None,
                )
                .await;
            assert_eq!(
                limited.0,
                StatusCode::TOO_MANY_REQUESTS,
                "{era:?} {limited:?}"
            );
        }
    }
}

#[tokio::test]
async fn a_tool_timeout_and_the_response_cache_key_on_the_unescaped_name() {
    let config = Config::default()
        .with_middleware(Timeout::new().tool("slow", Duration::from_millis(100)))
        .with_middleware(
            ResponseCache::new()
                .calls(Duration::from_secs(60))
                .tool("count"),
        );
    let (server, vault) = each_era(config).await;
    for era in ERAS {
        let client = Client::new(&server, era, None).await;
        let [plain, escaped] = client
            .both("tools/call", json!({"name": "slow"}), "slow")
            .await;
        assert_eq!(plain, escaped, "{era:?}");
        assert_eq!(
            text_of(&plain),
            "Tool `slow` timed out after 100ms",
            "{era:?}"
        );

        // The escaped call is answered from the plain one's cache entry.
        let before = vault.counted.load(Ordering::SeqCst);
        let [plain, escaped] = client
            .both("tools/call", json!({"name": "count"}), "count")
            .await;
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

        let [plain, escaped] = anonymous
            .both("tools/call", json!({"name": "admin"}), "admin")
            .await;
        assert_eq!(plain, escaped, "{era:?}");
        assert_eq!(plain.0, StatusCode::FORBIDDEN, "{era:?} {plain:?}");

        let admin = Client::new(&server, era, Some("admin")).await;
        let [plain, escaped] = admin
            .both("tools/call", json!({"name": "admin"}), "admin")
            .await;
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
    let agreed = client
        .send("tools/call", echo.clone(), "echo", true, Some("echo"))
        .await;
    assert_eq!(text_of(&agreed), "said hi");
    // A header that spells the escape itself does not name the body's tool.
    let literal = escaped("echo");
    let refused = client
        .send("tools/call", echo.clone(), "echo", false, Some(&literal))
        .await;
    assert_eq!(refused.0, StatusCode::BAD_REQUEST, "{refused:?}");
    assert_eq!(refused.1["error"]["code"], -32020);
    // An escaped body against a header naming another tool: the message quotes the body's name
    // as it reads.
    let other = client
        .send("tools/call", echo.clone(), "echo", true, Some("wipe"))
        .await;
    assert_eq!(other.1["error"]["code"], -32020);
    assert_eq!(
        other.1["error"]["message"],
        "Header mismatch: Mcp-Name 'wipe' != body 'echo'"
    );
    let read = json!({"uri": "esc:///notes/2"});
    let ok = client
        .send("resources/read", read.clone(), "esc:///notes/2", true, None)
        .await;
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
    // `export` is a task from the start; `export_later` escalates midway in 2026-07-28.
    for (era, tool) in [Era::Legacy, Era::Modern]
        .into_iter()
        .flat_map(|era| [(era, "export"), (era, "export_later")])
    {
        let client = Client::new(&server, era, None).await;
        let mut ids = Vec::new();
        for escape in [false, true] {
            let call = json!({"name": tool});
            let started = client.send("tools/call", call, tool, escape, None).await;
            if era == Era::Modern {
                assert_eq!(started.1["result"]["resultType"], "task", "{started:?}");
            }
            let id = started.1["result"]["taskId"]
                .as_str()
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
                let text = &last.1["result"]["result"]["content"][0]["text"];
                assert!(
                    text.as_str().is_some_and(|t| t.starts_with("exported")),
                    "{last:?}"
                );
                answers.push(last.1["result"]["taskId"].clone());
            }
            assert_eq!(answers, [json!(id), json!(id)], "{era:?}");
        }
    }
}

use crate::telemetry::Fields;

/// Sets a global subscriber (that keeps nothing) once, before a test captures spans with one of
/// its own on its thread. `tracing` caches whether a span's callsite is wanted by any subscriber;
/// when another test's thread, with no subscriber, reaches the callsite first, the cache can say
/// "never" for the capturing thread too. With a global subscriber, no callsite is ever unwanted.
pub(crate) fn every_callsite_wanted() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Another binary's global subscriber would refuse this one; any will do.
        let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry());
    });
}

/// The `name` of every `phantom::audit` event and the `mcp.name` of every request span.
#[derive(Clone, Default)]
struct Captured {
    audited: Arc<Mutex<Vec<Fields>>>,
    spans: Arc<Mutex<Vec<(Id, Fields)>>>,
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
    every_callsite_wanted();
    let captured = Captured::default();
    let subscriber = tracing_subscriber::registry().with(captured.clone());
    let _guard = tracing::subscriber::set_default(subscriber);
    let (server, _) = each_era(Config::default().with_middleware(Audit::new())).await;
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

/// `text` (JSON) with characters of its strings, keys included, written as escapes where `mask`
/// says: `\uXXXX` (a surrogate pair beyond the BMP, upper- or lower-case hex) or `\/`. Escapes
/// already in `text` are kept as they are.
fn respelled(text: &str, mask: &[u8]) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let (mut in_string, mut n) = (false, 0usize);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if !in_string {
            in_string = c == '"';
            out.push(c);
            continue;
        }
        match c {
            '"' => {
                in_string = false;
                out.push(c);
            }
            '\\' => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                    if next == 'u' {
                        out.extend(chars.by_ref().take(4));
                    }
                }
            }
            c => {
                let pick = mask[n % mask.len()];
                n += 1;
                match pick % 4 {
                    0 if c == '/' => out.push_str("\\/"),
                    1 | 2 => {
                        let mut units = [0u16; 2];
                        for unit in c.encode_utf16(&mut units) {
                            if pick % 4 == 1 {
                                out.push_str(&format!("\\u{unit:04x}"));
                            } else {
                                out.push_str(&format!("\\u{unit:04X}"));
                            }
                        }
                    }
                    _ => out.push(c),
                }
            }
        }
    }
    out
}

/// The requests the property respells: each method that names something, a refused name and
/// URI, a list, an unknown task, a name no one may call, in both eras (a 2026-07-28 one with the
/// `_meta` envelope, whose keys hold `/`).
fn requests() -> Vec<(Era, Value)> {
    let params = [
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "a/b \u{e9}\u{1f600}"}}),
        ),
        ("tools/call", json!({"name": "wipe", "arguments": {}})),
        ("tools/call", json!({"name": "hidden"})),
        ("resources/read", json!({"uri": "esc:///notes/4"})),
        ("resources/read", json!({"uri": "esc:///secret"})),
        (
            "prompts/get",
            json!({"name": "greet", "arguments": {"who": "Ada"}}),
        ),
        ("tools/list", json!({})),
        ("tasks/get", json!({"taskId": "no-such-task"})),
    ];
    let mut all = Vec::new();
    for (i, (method, p)) in params.into_iter().enumerate() {
        let id = u64::try_from(i).expect("few") + 1;
        all.push((Era::Legacy, request(id, method, p.clone())));
        let mut modern = p;
        modern["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities(),
        });
        all.push((Era::Modern, request(id + 100, method, modern)));
    }
    all
}

/// The `Mcp-Name` a 2026-07-28 request carries (its plain target).
fn name_of(body: &Value) -> Option<String> {
    let p = &body["params"];
    p["name"]
        .as_str()
        .or(p["uri"].as_str())
        .or(p["taskId"].as_str())
        .map(str::to_owned)
}

/// Each request plain, then respelled by `mask`, over HTTP and over stdio: the same replies, and
/// the same entries in what the middleware saw.
async fn respelled_requests_behave_as_plain(mask: &[u8]) {
    let refuse = Refuse::default();
    let config = Config::default().with_middleware(refuse.clone());
    let (server, _) = each_era(config.clone()).await;
    let legacy = Client::new(&server, Era::Legacy, None).await;
    let modern = Client::new(&server, Era::Modern, None).await;

    let dispatcher = phantom::dispatch::Dispatcher::with_config(Vault::default(), config.clone());
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    let stdio = tokio::spawn(phantom::stdio::serve(dispatcher, server_read, server_write));
    let (client_read, mut input) = tokio::io::split(client_end);
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(client_read));
    let mut line = async |text: String| -> Value {
        use tokio::io::AsyncWriteExt as _;
        input
            .write_all(format!("{text}\n").as_bytes())
            .await
            .expect("write");
        let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
            .await
            .expect("a line in time")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).expect("JSON")
    };
    let init = request(
        0,
        "initialize",
        json!({
            "protocolVersion": LEGACY, "capabilities": capabilities(),
            "clientInfo": {"name": "escaped", "version": "1"},
        }),
    );
    assert!(line(init.to_string()).await["result"].is_object());
    // The in-process test client, on its own session.
    let mut in_process = phantom::testing::Client::uninitialized(Vault::default(), config.clone());
    let reply = in_process
        .send(&init.to_string())
        .await
        .expect("initialized");
    assert!(reply.body.contains("\"result\""), "{}", reply.body);

    for (era, body) in requests() {
        let plain = body.to_string();
        let escaped = respelled(&plain, mask);
        let client = if era == Era::Legacy { &legacy } else { &modern };
        let mut headers = Vec::new();
        let name = name_of(&body);
        let method = body["method"].as_str().expect("method").to_owned();
        if era == Era::Modern {
            headers.push(("mcp-protocol-version", MODERN.to_owned()));
            headers.push(("mcp-method", method.clone()));
            if let Some(name) = name {
                headers.push(("mcp-name", name));
            }
        }
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut answers = Vec::new();
        for text in [&plain, &escaped] {
            let before = refuse.seen.lock().expect("seen").len();
            let reply = client.call(text, &headers).send().await;
            let status = reply.status;
            let http: Value = serde_json::from_str(&reply.text().await).expect("JSON");
            let over_http = refuse.seen.lock().expect("seen")[before..].to_vec();
            let piped = line(text.clone()).await;
            let over_stdio = refuse.seen.lock().expect("seen")[before + over_http.len()..].to_vec();
            let tested = in_process.send(text).await.map(|r| r.body);
            let by_test_client = refuse.seen.lock().expect("seen")
                [before + over_http.len() + over_stdio.len()..]
                .to_vec();
            answers.push((
                status,
                http,
                over_http,
                piped,
                over_stdio,
                tested,
                by_test_client,
            ));
        }
        assert_eq!(answers[0], answers[1], "{plain}\n{escaped}");
        let (_, http, seen, piped, ..) = &answers[0];
        assert_eq!(http, piped, "{plain}");
        assert!(
            http["result"].is_object() || http["error"].is_object(),
            "{http}"
        );
        if method != "tools/list" && method != "tasks/get" {
            assert_eq!(seen.len(), 1, "{plain}: {seen:?}");
        }
    }
    stdio.abort();
}

#[test]
fn any_respelling_of_a_request_behaves_as_its_plain_spelling() {
    use proptest::prelude::*;
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    });
    let masks = proptest::collection::vec(any::<u8>(), 1..16);
    runner
        .run(&masks, |mask| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(respelled_requests_behave_as_plain(&mask));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn respelling_escapes_keys_methods_and_envelope_keys() {
    let body = request(
        1,
        "tools/call",
        json!({"name": "echo", "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
    );
    let text = respelled(&body.to_string(), &[1]);
    for part in [
        r"\u006e\u0061\u006d\u0065",
        r"\u005f\u006d\u0065\u0074\u0061",
        r"\u0074\u006f\u006f\u006c\u0073\u002f\u0063\u0061\u006c\u006c",
    ] {
        assert!(text.contains(part), "{text}");
    }
    assert_eq!(serde_json::from_str::<Value>(&text).expect("JSON"), body);
    let slashes = respelled(&body.to_string(), &[0]);
    assert!(
        slashes.contains(r#""io.modelcontextprotocol\/protocolVersion""#),
        "{slashes}"
    );
    assert_eq!(serde_json::from_str::<Value>(&slashes).expect("JSON"), body);
}

#[tokio::test]
async fn the_items_of_a_batch_read_escaped_names_as_plain_ones() {
    let refuse = Refuse::default();
    let (server, _) = each_era(Config::default().with_middleware(refuse.clone())).await;
    let session = server.initialize("2025-03-26").await;
    let calls = [
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
            "echo",
        ),
        ("tools/call", json!({"name": "wipe"}), "wipe"),
        (
            "resources/read",
            json!({"uri": "esc:///secret"}),
            "esc:///secret",
        ),
        (
            "resources/read",
            json!({"uri": "esc:///notes/5"}),
            "esc:///notes/5",
        ),
    ];
    let mut items = Vec::new();
    for (i, (method, params, target)) in calls.iter().enumerate() {
        let id = u64::try_from(i).expect("few") * 2;
        let plain = request(id, method, params.clone());
        items.push(plain.to_string());
        items.push(spelled(
            &request(id + 1, method, params.clone()),
            &[method, target],
            true,
        ));
    }
    let batch = format!("[{}]", items.join(","));
    let reply = server
        .request(http::Method::POST)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .body(batch)
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let answers: Vec<Value> = serde_json::from_str(&reply.text().await).expect("a JSON array");
    assert_eq!(answers.len(), 8);
    for pair in answers.chunks(2) {
        let (mut plain, mut escaped) = (pair[0].clone(), pair[1].clone());
        plain["id"] = Value::Null;
        escaped["id"] = Value::Null;
        assert_eq!(plain, escaped);
    }
    assert_eq!(answers[0]["result"]["content"][0]["text"], "said hi");
    assert_eq!(answers[3]["error"]["message"], "refused by policy");
    assert_eq!(answers[7]["result"]["contents"][0]["text"], "note 5");
    let seen = refuse.seen.lock().expect("seen").clone();
    assert_eq!(
        seen,
        [
            "tools/call echo",
            "tools/call echo",
            "tools/call wipe",
            "tools/call wipe",
            "resources/read esc:///secret",
            "resources/read esc:///secret",
            "resources/read esc:///notes/5",
            "resources/read esc:///notes/5",
        ]
    );
}
