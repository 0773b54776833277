//! `phantom::gateway`: upstreams mounted into a front server, driven by `phantom::client` over
//! real HTTP in both eras — prefixes and filters, progress, elicitation passed through, a dead
//! upstream answered clearly while another mount keeps working, and `list_changed` followed.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use phantom::client::{Client, ClientError, Era};
use phantom::dispatch::Dispatcher;
use phantom::gateway::Upstream;
use phantom::http::HttpConfig;
use phantom::prelude::*;
use phantom::protocol::ElicitResult;
use phantom::registry::DynamicTool;
use serde_json::{Value, json};

use crate::support::TestServer;

/// The upstream: echo, progress and a log, a question for the user, a prompt, a template.
#[derive(Clone)]
struct Shop;

#[mcp_router(name = "shop", version = "2.0.0")]
impl Shop {
    /// Echo.
    #[tool]
    async fn echo(&self, text: String) -> String {
        format!("shop: {text}")
    }

    /// Counts to three, with progress and a log message.
    #[tool]
    async fn count(&self, ctx: Ctx) -> String {
        for i in 1..=3 {
            ctx.progress(f64::from(i), Some(3.0), None).await;
        }
        ctx.log(LogLevel::Info, "counted").await;
        "3".into()
    }

    /// Asks for a name.
    #[tool]
    async fn greet(&self, ctx: Ctx) -> String {
        let form = Form::new().required("name", Field::string());
        match ctx.elicit::<Value>("name", "Your name?", form).await {
            Elicitation::Accept(v) => format!("Hello, {}!", v["name"].as_str().unwrap_or("?")),
            _ => "no name".into(),
        }
    }

    /// Takes half a minute.
    #[tool]
    async fn slow(&self) -> String {
        tokio::time::sleep(Duration::from_secs(30)).await;
        "late".into()
    }

    /// Not to be served by the gateway.
    #[tool]
    async fn wipe(&self) -> String {
        "wiped".into()
    }

    /// A greeting prompt.
    #[prompt]
    async fn hello(&self, who: String) -> Vec<PromptMessage> {
        vec![PromptMessage::user(format!("Say hello to {who}"))]
    }

    /// An item.
    #[resource("shop:///items/<id>", mime_type = "text/plain")]
    async fn item(&self, id: u64) -> Option<String> {
        Some(format!("item {id}"))
    }
}

/// The front: nothing of its own.
#[derive(Clone)]
struct Front;

#[mcp_router(name = "front", version = "1.0.0")]
impl Front {}

fn url(server: &TestServer) -> String {
    format!("http://{}/mcp", server.addr)
}

/// The notifications a client heard, by method.
#[derive(Clone, Default)]
struct Heard(Arc<Mutex<Vec<(String, Value)>>>);

impl Heard {
    fn methods(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|(m, _)| m.clone())
            .collect()
    }
}

async fn client_of(front: &TestServer, era: Era, heard: &Heard) -> Client {
    let heard = heard.clone();
    Client::http(&url(front))
        .era(era)
        .on_elicit(|_| async { ElicitResult::accept(crate::content(json!({"name": "Ada"}))) })
        .on_notification(move |method, params| {
            heard
                .0
                .lock()
                .unwrap()
                .push((method.to_owned(), params.clone()));
        })
        .connect()
        .await
        .expect("the front answers")
}

#[tokio::test]
async fn an_upstream_is_served_under_its_prefix_in_both_eras() {
    let upstream = TestServer::start_with(Shop, HttpConfig::default()).await;
    let front = Dispatcher::new(Front);
    let mounted = Upstream::http(url(&upstream))
        .prefix("shop")
        .deny(["wipe"])
        .rename("echo", "say")
        .mount(&front.registry())
        .await
        .expect("mounted");
    assert_eq!(mounted.server_info()["name"], "shop");
    let front = TestServer::start_dispatcher(front, HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let heard = Heard::default();
        let client = client_of(&front, era, &heard).await;
        assert_eq!(client.era(), era);
        let tools = client.list_tools(None).await.expect("tools/list");
        let mut names: Vec<&str> = tools.items.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["say", "shop_count", "shop_greet", "shop_slow"],
            "{era:?}: renamed, prefixed, denied"
        );
        let said = client
            .call_tool("say", json!({"text": "hi"}))
            .await
            .expect("say");
        assert_eq!(said.text_content(), "shop: hi", "{era:?}");
        // Progress and the log reach the front's client (a legacy session asks for logs first).
        if era == Era::Legacy {
            client
                .request("logging/setLevel", json!({"level": "info"}))
                .await
                .expect("setLevel");
        }
        let mut meta = json!({"progressToken": "p1"});
        if era == Era::Modern {
            meta["io.modelcontextprotocol/logLevel"] = json!("info");
        }
        let counted = client
            .request(
                "tools/call",
                json!({"name": "shop_count", "arguments": {}, "_meta": meta}),
            )
            .await
            .expect("count");
        assert_eq!(counted["content"][0]["text"], "3", "{era:?}");
        let methods = heard.methods();
        let progress = methods
            .iter()
            .filter(|m| *m == "notifications/progress")
            .count();
        assert_eq!(progress, 3, "{era:?}: {methods:?}");
        assert!(
            methods.iter().any(|m| m == "notifications/message"),
            "{era:?}: {methods:?}"
        );
        // What the upstream asks, the front's client answers.
        let greeted = client
            .call_tool("shop_greet", json!({}))
            .await
            .expect("greet");
        assert_eq!(greeted.text_content(), "Hello, Ada!", "{era:?}");
        // A denied tool is not there.
        let error = client
            .call_tool("shop_wipe", json!({}))
            .await
            .expect_err("denied");
        assert_eq!(error.code(), Some(-32602), "{era:?}: {error}");
        // Prompts under the prefix, resources under the rewritten URI.
        let prompt = client
            .get_prompt("shop_hello", json!({"who": "Bo"}))
            .await
            .expect("prompts/get");
        assert_eq!(
            prompt.messages[0].content.as_text(),
            Some("Say hello to Bo"),
            "{era:?}"
        );
        let templates = client
            .list_resource_templates(None)
            .await
            .expect("templates");
        assert_eq!(
            templates.items[0].uri_template, "shop://shop/items/{id}",
            "{era:?}"
        );
        let contents = client
            .read_resource("shop://shop/items/7")
            .await
            .expect("read");
        assert_eq!(contents[0].text.as_deref(), Some("item 7"), "{era:?}");
        assert_eq!(
            contents[0].uri, "shop://shop/items/7",
            "{era:?}: the URI the client read, not the upstream's own"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn a_dead_upstream_is_a_clear_error_while_the_other_mount_answers() {
    let upstream = TestServer::start_with(Shop, HttpConfig::default()).await;
    let front = Dispatcher::new(Front);
    let registry = front.registry();
    Upstream::http(url(&upstream))
        .prefix("shop")
        .mount(&registry)
        .await
        .expect("shop");
    // The stdio upstream's `crash` ends its process mid-call.
    Upstream::stdio(env!("CARGO_BIN_EXE_stdio-server"), Vec::<String>::new())
        .prefix("desk")
        .timeout(Duration::from_secs(5))
        .mount(&registry)
        .await
        .expect("desk");
    let front = TestServer::start_dispatcher(front, HttpConfig::default()).await;
    for era in [Era::Modern, Era::Legacy] {
        let client = client_of(&front, era, &Heard::default()).await;
        let echoed = client.call_tool("desk_echo", json!({"text": "a"})).await;
        if era == Era::Modern {
            assert_eq!(
                echoed.expect("desk answers before it dies").text_content(),
                "echo: a"
            );
            let error = client
                .call_tool("desk_crash", json!({}))
                .await
                .expect_err("it died");
            let ClientError::Rpc {
                code,
                message,
                data,
            } = &error
            else {
                panic!("a JSON-RPC error, not {error}");
            };
            assert_eq!(*code, -32603, "{message}");
            assert!(message.contains("did not answer `tools/call`"), "{message}");
            assert_eq!(
                data.as_ref().unwrap()["upstream"],
                env!("CARGO_BIN_EXE_stdio-server")
            );
        }
        // Gone for good: every later call says so, at once.
        let error = client
            .call_tool("desk_echo", json!({"text": "b"}))
            .await
            .expect_err("gone");
        assert_eq!(error.code(), Some(-32603), "{era:?}: {error}");
        // The other mount is untouched.
        let echo = client
            .call_tool("shop_echo", json!({"text": "still"}))
            .await
            .expect("shop");
        assert_eq!(echo.text_content(), "shop: still", "{era:?}");
        client.close().await;
    }
}

#[tokio::test]
async fn the_upstreams_list_changed_refreshes_the_front() {
    let upstream = Dispatcher::new(Shop);
    let upstream_registry = upstream.registry();
    let upstream = TestServer::start_dispatcher(upstream, HttpConfig::default()).await;
    let front = Dispatcher::new(Front);
    Upstream::http(url(&upstream))
        .prefix("shop")
        .mount(&front.registry())
        .await
        .expect("mounted");
    let front = TestServer::start_dispatcher(front, HttpConfig::default()).await;
    let heard = Heard::default();
    let client = client_of(&front, Era::Legacy, &heard).await;
    let before = client.list_tools(None).await.expect("tools/list");
    assert!(!before.items.iter().any(|t| t.name == "shop_late"));
    upstream_registry
        .add_tool(DynamicTool::new("late", |_: Value| async {
            "late, but here"
        }))
        .await
        .expect("added upstream");
    let mut found = false;
    for _ in 0..100 {
        let tools = client.list_tools(None).await.expect("tools/list");
        if tools.items.iter().any(|t| t.name == "shop_late") {
            found = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(found, "the front lists the upstream's new tool within 5 s");
    let late = client
        .call_tool("shop_late", json!({}))
        .await
        .expect("late");
    assert_eq!(late.text_content(), "late, but here");
    for _ in 0..100 {
        if heard
            .methods()
            .iter()
            .any(|m| m == "notifications/tools/list_changed")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        heard
            .methods()
            .iter()
            .any(|m| m == "notifications/tools/list_changed"),
        "the front's client hears list_changed: {:?}",
        heard.methods()
    );
    // Removed upstream: gone from the front too.
    upstream_registry
        .remove_tool("late")
        .await
        .expect("removed upstream");
    for _ in 0..100 {
        let tools = client.list_tools(None).await.expect("tools/list");
        if !tools.items.iter().any(|t| t.name == "shop_late") {
            client.close().await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the front still lists a tool the upstream removed");
}

/// A front whose `connect` lets a session see only some tools.
#[derive(Clone)]
struct Narrow;

#[mcp_router(name = "narrow", version = "1.0.0")]
impl Narrow {
    async fn connect(&self, session: &mut Session, _request: &Request) -> Connect {
        session.allowed_tools = Session::allow(["shop_echo", "shop_slow"]);
        Connect::Ok
    }
}

#[tokio::test]
async fn the_fronts_allow_list_and_the_upstreams_timeout_apply_to_remote_tools() {
    let upstream = TestServer::start_with(Shop, HttpConfig::default()).await;
    let front = Dispatcher::new(Narrow);
    Upstream::http(url(&upstream))
        .prefix("shop")
        .timeout(Duration::from_millis(300))
        .mount(&front.registry())
        .await
        .expect("mounted");
    let front = TestServer::start_dispatcher(front, HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let client = client_of(&front, era, &Heard::default()).await;
        let tools = client.list_tools(None).await.expect("tools/list");
        let mut names: Vec<&str> = tools.items.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["shop_echo", "shop_slow"],
            "{era:?}: the allow-list of connect"
        );
        let hidden = client
            .call_tool("shop_greet", json!({}))
            .await
            .expect_err("hidden");
        assert_eq!(hidden.code(), Some(-32602), "{era:?}: {hidden}");
        let started = std::time::Instant::now();
        let late = client
            .call_tool("shop_slow", json!({}))
            .await
            .expect_err("too slow");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{era:?}: cut off at the timeout"
        );
        let ClientError::Rpc {
            code,
            message,
            data,
        } = &late
        else {
            panic!("{era:?}: a JSON-RPC error, not {late}");
        };
        assert_eq!(*code, -32603, "{era:?}: {message}");
        assert!(
            message.contains("timed out") || message.contains("no answer"),
            "{era:?}: {message}"
        );
        assert_eq!(
            data.as_ref().unwrap()["upstream"],
            url(&upstream),
            "{era:?}"
        );
        let echo = client
            .call_tool("shop_echo", json!({"text": "ok"}))
            .await
            .expect("echo");
        assert_eq!(echo.text_content(), "shop: ok", "{era:?}");
        client.close().await;
    }
}

/// Rewrites a call's `text` argument to `mw:<text>`.
struct Rewrite;

impl phantom::middleware::Middleware for Rewrite {
    fn on_call_tool<'a>(
        &'a self,
        call: phantom::middleware::Call<'a>,
        next: phantom::middleware::Next<'a>,
    ) -> phantom::BoxFuture<'a, phantom::middleware::Answer> {
        let mut arguments = call.arguments().unwrap_or_else(|| json!({}));
        if let Some(text) = arguments.get("text").and_then(Value::as_str) {
            arguments["text"] = format!("mw:{text}").into();
        }
        next.run(call.with_arguments(arguments))
    }
}

#[tokio::test]
async fn the_fronts_middleware_applies_to_remote_tools() {
    let upstream = TestServer::start_with(Shop, HttpConfig::default()).await;
    let config = phantom::Config::default()
        .with_middleware(Rewrite)
        .with_tool_middleware(
            "shop_echo",
            phantom::middleware::RateLimit::per_second(0.0, 2),
        );
    let front = Dispatcher::with_config(Front, config);
    Upstream::http(url(&upstream))
        .prefix("shop")
        .mount(&front.registry())
        .await
        .expect("mounted");
    let front = TestServer::start_dispatcher(front, HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let client = client_of(&front, era, &Heard::default()).await;
        for _ in 0..2 {
            let echoed = client
                .call_tool("shop_echo", json!({"text": "x"}))
                .await
                .expect("shop_echo");
            assert_eq!(
                echoed.text_content(),
                "shop: mw:x",
                "{era:?}: the front's chain rewrote the remote tool's arguments"
            );
        }
        let limited = client
            .call_tool("shop_echo", json!({"text": "x"}))
            .await
            .expect_err("past the remote tool's own limit");
        assert_eq!(limited.code(), Some(-32000), "{era:?}: {limited}");
        for _ in 0..3 {
            let counted = client.call_tool("shop_count", json!({})).await;
            assert_eq!(
                counted.expect("shop_count").text_content(),
                "3",
                "{era:?}: the tool's own middleware is shop_echo's alone"
            );
        }
        client.close().await;
    }
}

/// An upstream whose one long tool hears its cancellation.
#[derive(Clone, Default)]
struct Waiter {
    stopped: Arc<std::sync::atomic::AtomicBool>,
}

#[mcp_router(name = "waiter", version = "1.0.0")]
impl Waiter {
    /// Waits a minute unless cancelled.
    #[tool]
    async fn wait(&self, ctx: Ctx) -> String {
        let stopped = Arc::clone(&self.stopped);
        tokio::spawn(async move {
            ctx.cancelled().await;
            stopped.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        tokio::time::sleep(Duration::from_secs(60)).await;
        "waited".into()
    }

    /// Echo.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }
}

#[tokio::test]
async fn an_allow_list_keeps_the_named_tools_and_a_cancel_reaches_the_upstream() {
    for era in [Era::Legacy, Era::Modern] {
        let waiter = Waiter::default();
        let stopped = Arc::clone(&waiter.stopped);
        let upstream = TestServer::start_with(waiter, HttpConfig::default()).await;
        let front = Dispatcher::new(Front);
        Upstream::http(url(&upstream))
            .allow(["wait"])
            .mount(&front.registry())
            .await
            .expect("mounted");
        let front = TestServer::start_dispatcher(front, HttpConfig::default()).await;
        let client = client_of(&front, era, &Heard::default()).await;
        let tools = client.list_tools(None).await.expect("tools/list");
        let names: Vec<&str> = tools.items.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["wait"], "{era:?}: only what the allow-list names");
        let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let _ = cancel.send(());
        });
        let outcome = client
            .cancellable(client.call_tool("wait", json!({})), async {
                let _ = cancelled.await;
            })
            .await;
        assert!(
            matches!(outcome, Err(ClientError::Cancelled)),
            "{era:?}: {outcome:?}"
        );
        for _ in 0..150 {
            if stopped.load(std::sync::atomic::Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            stopped.load(std::sync::atomic::Ordering::SeqCst),
            "{era:?}: the front client's cancel reached the upstream's handler"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn an_escaped_name_reaches_a_renamed_remote_tool_and_not_a_denied_one() {
    use crate::support::{LEGACY, MODERN, modern_request, request, spelled};
    let upstream = TestServer::start_with(Shop, HttpConfig::default()).await;
    let front = Dispatcher::new(Front);
    Upstream::http(url(&upstream))
        .prefix("shop")
        .deny(["wipe"])
        .rename("echo", "say")
        .mount(&front.registry())
        .await
        .expect("mounted");
    let front = TestServer::start_dispatcher(front, HttpConfig::default()).await;
    let session = front.initialize(LEGACY).await;
    for (tool, params) in [
        ("say", json!({"name": "say", "arguments": {"text": "hi"}})),
        ("shop_wipe", json!({"name": "shop_wipe", "arguments": {}})),
        ("shop_count", json!({"name": "shop_count", "arguments": {}})),
    ] {
        for modern in [false, true] {
            let mut answers = Vec::new();
            for escape in [false, true] {
                let body = if modern {
                    modern_request(1, "tools/call", params.clone())
                } else {
                    request(1, "tools/call", params.clone())
                };
                let text = spelled(&body, &[tool, "tools/call"], escape);
                let call = front
                    .request(http::Method::POST)
                    .header("accept", "application/json, text/event-stream")
                    .header("content-type", "application/json");
                let call = if modern {
                    call.header("mcp-protocol-version", MODERN)
                        .header("mcp-method", "tools/call")
                        .header("mcp-name", tool)
                } else {
                    call.header("mcp-session-id", &session)
                };
                let reply = call.body(text).send().await;
                let status = reply.status;
                answers.push((status, reply.text().await));
            }
            assert_eq!(answers[0], answers[1], "{tool}, modern {modern}");
            let answer: Value = serde_json::from_str(&answers[0].1).expect("JSON");
            match tool {
                "say" => assert_eq!(answer["result"]["content"][0]["text"], "shop: hi"),
                "shop_wipe" => assert!(answer["error"].is_object(), "{answer}"),
                _ => assert!(answer["result"].is_object(), "{answer}"),
            }
        }
    }
}
