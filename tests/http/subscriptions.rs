//! Subscriptions and change over real HTTP: legacy `resources/subscribe` with updates on the GET
//! stream, the bulk notifier (one authorization per stream per batch), revocation, list changes,
//! and 2026-07-28 `subscriptions/listen` (acknowledgement, tags, filter, shutdown).

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use http::StatusCode;
use phantom::http::HttpConfig;
use phantom::prelude::*;
use phantom::{
    Config, Notifier,
    resources::{Authorized, ResolvedResource},
};
use serde_json::{Value, json};

use crate::support::{LEGACY, Sse, TestServer, modern_request, request};

/// A router whose `authorize_resource_subscriptions` counts its calls and refuses revoked URIs.
#[derive(Clone, Default)]
struct Watch {
    calls: Arc<AtomicUsize>,
    revoked: Arc<Mutex<HashSet<String>>>,
}

#[mcp_router(name = "watch", version = "1.0.0")]
impl Watch {
    /// Announces that the tool list changed.
    #[tool]
    async fn change_tools(&self, notifier: Notifier) -> &'static str {
        notifier
            .notify_tools_changed()
            .await
            .expect("the in-memory bus");
        "announced"
    }

    /// Needs the user to sign in on a web page first (URL elicitation).
    #[tool]
    async fn sign_in(&self, ctx: Ctx) -> &'static str {
        let flow = ElicitUrl::new("login", "Sign in first", "https://auth.example/flow/abc")
            .elicitation_id("flow-abc");
        ctx.require_url(flow).await;
        "signed in"
    }

    /// One item by id.
    #[resource("watch:///items/<id>", mime_type = "text/plain")]
    async fn item(&self, id: u64) -> String {
        format!("item {id}")
    }

    /// `x-user` names the principal; `x-guest` sees nothing (every allow-list empty).
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        if let Some(user) = request.header("x-user") {
            session.principal = Some(user.into());
        }
        if request.header("x-guest").is_some() {
            session.deny_all();
        }
        Connect::Ok
    }

    /// Refuses revoked URIs; panics for the principal `chaos`.
    async fn authorize_resource_subscriptions(
        &self,
        resources: Vec<ResolvedResource>,
        session: &Session,
    ) -> Authorized {
        self.calls.fetch_add(1, Ordering::SeqCst);
        assert_ne!(
            session.principal.as_deref(),
            Some("chaos"),
            "authorization crashed"
        );
        let revoked = self.revoked.lock().expect("revoked set").clone();
        Authorized::Resources(
            resources
                .into_iter()
                .filter(|r| !revoked.contains(&r.uri))
                .collect(),
        )
    }
}

struct Setup {
    server: TestServer,
    watch: Watch,
    notifier: Notifier,
}

async fn setup() -> Setup {
    let watch = Watch::default();
    let config = Config::default();
    let notifier = config.notifier().clone();
    let server = TestServer::start_configured(watch.clone(), config, HttpConfig::default()).await;
    Setup {
        server,
        watch,
        notifier,
    }
}

fn item(id: u64) -> String {
    format!("watch:///items/{id}")
}

/// Legacy `initialize` with extra request headers (for `connect`); the session id.
async fn initialize_with(server: &TestServer, headers: &[(&str, &str)]) -> String {
    let mut call = server.post(&crate::support::initialize_request(LEGACY));
    for (name, value) in headers {
        call = call.header(name, value);
    }
    let reply = call.send().await;
    assert_eq!(reply.status, StatusCode::OK);
    reply.session_id().expect("a session")
}

async fn subscribe(server: &TestServer, session: &str, uri: &str) -> Value {
    let body = request(7, "resources/subscribe", json!({ "uri": uri }));
    server.post_in(session, &body).send().await.json().await
}

/// Opens the session's GET stream and reads past its priming event.
pub(crate) async fn open_stream(server: &TestServer, session: &str) -> Sse {
    server.get_stream(session).await
}

/// The next JSON-RPC message on a stream, skipping keep-alive comments.
pub(crate) async fn next_message(stream: &mut Sse) -> Value {
    loop {
        let event = stream.next().await.expect("the stream stays open");
        if event.data.as_deref().is_some_and(|d| !d.is_empty()) {
            return event.json();
        }
    }
}

fn updated(uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
}

#[tokio::test]
async fn capabilities_announce_list_changes_and_subscriptions() {
    let s = setup().await;
    let reply = s
        .server
        .post(&crate::support::initialize_request(LEGACY))
        .send()
        .await
        .json()
        .await;
    let caps = &reply["result"]["capabilities"];
    assert_eq!(caps["tools"], json!({"listChanged": true}));
    assert_eq!(
        caps["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
}

#[tokio::test]
async fn a_subscribed_session_hears_updates_on_its_get_stream_until_it_unsubscribes() {
    let s = setup().await;
    let session = s.server.initialize(LEGACY).await;
    let mut stream = open_stream(&s.server, &session).await;
    assert_eq!(
        subscribe(&s.server, &session, &item(1)).await["result"],
        json!({})
    );
    s.notifier.notify_resource_updated(item(1)).await.unwrap();
    assert_eq!(next_message(&mut stream).await, updated(&item(1)));

    let body = request(8, "resources/unsubscribe", json!({ "uri": item(1) }));
    let reply = s.server.post_in(&session, &body).send().await.json().await;
    assert_eq!(reply["result"], json!({}));
    // Unsubscribed: item 1 is not delivered; item 2 (subscribed afterwards) is the next message.
    s.notifier.notify_resource_updated(item(1)).await.unwrap();
    subscribe(&s.server, &session, &item(2)).await;
    s.notifier.notify_resource_updated(item(2)).await.unwrap();
    assert_eq!(next_message(&mut stream).await, updated(&item(2)));
}

#[tokio::test]
async fn an_unknown_or_refused_uri_cannot_be_subscribed() {
    let s = setup().await;
    let session = s.server.initialize(LEGACY).await;
    let unknown = subscribe(&s.server, &session, "watch:///nothing/here").await;
    assert_eq!(unknown["error"]["code"], -32002, "{unknown}");
    s.watch.revoked.lock().unwrap().insert(item(3));
    let refused = subscribe(&s.server, &session, &item(3)).await;
    assert_eq!(refused["error"]["code"], -32002, "{refused}");
    assert_eq!(refused["error"]["data"]["uri"], item(3), "{refused}");
}

#[tokio::test]
async fn a_bulk_update_asks_authorization_once_per_session_and_delivers_only_subscriptions() {
    let s = setup().await;
    let a = s.server.initialize(LEGACY).await;
    let b = s.server.initialize(LEGACY).await;
    let mut stream_a = open_stream(&s.server, &a).await;
    let mut stream_b = open_stream(&s.server, &b).await;
    for uri in [item(1), item(2)] {
        subscribe(&s.server, &a, &uri).await;
    }
    subscribe(&s.server, &b, &item(3)).await;
    let before = s.watch.calls.load(Ordering::SeqCst);
    // One batch: three subscribed URIs, one nobody subscribed to, one that names no resource.
    s.notifier
        .notify_resources_updated([item(1), item(2), item(3), item(4), "nope://x".into()])
        .await
        .unwrap();
    let got_a = [
        next_message(&mut stream_a).await,
        next_message(&mut stream_a).await,
    ];
    assert_eq!(got_a, [updated(&item(1)), updated(&item(2))]);
    assert_eq!(next_message(&mut stream_b).await, updated(&item(3)));
    assert_eq!(
        s.watch.calls.load(Ordering::SeqCst) - before,
        2,
        "one authorization per subscribed session for the whole batch"
    );
}

#[tokio::test]
async fn a_revoked_resource_stops_being_delivered_on_the_next_update() {
    let s = setup().await;
    let session = s.server.initialize(LEGACY).await;
    let mut stream = open_stream(&s.server, &session).await;
    for uri in [item(1), item(2)] {
        subscribe(&s.server, &session, &uri).await;
    }
    s.notifier.notify_resource_updated(item(1)).await.unwrap();
    assert_eq!(next_message(&mut stream).await, updated(&item(1)));
    s.watch.revoked.lock().unwrap().insert(item(1));
    s.notifier
        .notify_resources_updated([item(1), item(2)])
        .await
        .unwrap();
    assert_eq!(next_message(&mut stream).await, updated(&item(2)));
}

#[tokio::test]
async fn updates_for_a_session_without_an_open_stream_are_dropped() {
    let s = setup().await;
    let session = s.server.initialize(LEGACY).await;
    subscribe(&s.server, &session, &item(1)).await;
    // No GET stream yet: this update is not kept for later.
    s.notifier.notify_resource_updated(item(1)).await.unwrap();
    let mut stream = open_stream(&s.server, &session).await;
    s.notifier.notify_tools_changed().await.unwrap();
    let first = next_message(&mut stream).await;
    assert_eq!(
        first["method"], "notifications/tools/list_changed",
        "{first}"
    );
}

#[tokio::test]
async fn a_tool_that_changes_the_list_reaches_every_open_stream() {
    let s = setup().await;
    let a = s.server.initialize(LEGACY).await;
    let b = s.server.initialize(LEGACY).await;
    let mut stream_a = open_stream(&s.server, &a).await;
    let mut stream_b = open_stream(&s.server, &b).await;
    let call = request(
        9,
        "tools/call",
        json!({"name": "change_tools", "arguments": {}}),
    );
    let reply = s.server.post_in(&a, &call).send().await.json().await;
    assert_eq!(
        crate::support::first_text(&reply["result"]),
        "announced",
        "{reply}"
    );
    let expected = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
    assert_eq!(next_message(&mut stream_a).await, expected);
    assert_eq!(next_message(&mut stream_b).await, expected);
}

#[tokio::test]
async fn the_end_of_a_url_elicitation_is_announced_to_the_session_that_was_asked() {
    let s = setup().await;
    let mut init = crate::support::initialize_request(LEGACY);
    init["params"]["capabilities"] = json!({"elicitation": {"url": {}}});
    let reply = s.server.post(&init).send().await;
    let session = reply.session_id().expect("a session");
    let other = s.server.initialize(LEGACY).await;
    let mut stream = open_stream(&s.server, &session).await;
    let mut other_stream = open_stream(&s.server, &other).await;
    let call = request(5, "tools/call", json!({"name": "sign_in", "arguments": {}}));
    let reply = s.server.post_in(&session, &call).send().await.json().await;
    assert_eq!(reply["error"]["code"], -32042, "{reply}");
    assert_eq!(
        reply["error"]["data"]["elicitations"][0]["elicitationId"],
        "flow-abc"
    );
    s.notifier
        .notify_elicitation_complete(&*session, "flow-abc")
        .await
        .unwrap();
    s.notifier.notify_tools_changed().await.unwrap();
    assert_eq!(
        next_message(&mut stream).await,
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
               "params": {"elicitationId": "flow-abc"}})
    );
    let first = next_message(&mut other_stream).await;
    assert_eq!(
        first["method"], "notifications/tools/list_changed",
        "another session does not hear of it: {first}"
    );
}

#[tokio::test]
async fn an_authorization_that_panics_refuses_its_session_only() {
    let s = setup().await;
    let chaos = initialize_with(&s.server, &[("x-user", "chaos")]).await;
    let calm = s.server.initialize(LEGACY).await;
    let mut chaos_stream = open_stream(&s.server, &chaos).await;
    let mut calm_stream = open_stream(&s.server, &calm).await;
    // Subscribing asks the callback too: it panics, so the URI is refused.
    let refused = subscribe(&s.server, &chaos, &item(1)).await;
    assert_eq!(refused["error"]["code"], -32002, "{refused}");
    subscribe(&s.server, &calm, &item(1)).await;
    s.notifier.notify_resource_updated(item(1)).await.unwrap();
    assert_eq!(next_message(&mut calm_stream).await, updated(&item(1)));
    // The crashing session heard nothing before this later change.
    s.notifier.notify_tools_changed().await.unwrap();
    let first = next_message(&mut chaos_stream).await;
    assert_eq!(
        first["method"], "notifications/tools/list_changed",
        "{first}"
    );
}

#[tokio::test]
async fn a_session_that_sees_no_tools_hears_no_tool_list_changes() {
    let s = setup().await;
    let guest = initialize_with(&s.server, &[("x-guest", "1")]).await;
    let mut stream = open_stream(&s.server, &guest).await;
    s.notifier.notify_tools_changed().await.unwrap();
    s.notifier.notify_resources_changed().await.unwrap();
    s.notifier
        .publish(phantom::store::Change::PromptsChanged { names: vec![] })
        .await
        .unwrap();
    // Its allow-lists are empty, so it hears none of the three list changes: the first message
    // it gets is the later one addressed to it alone.
    s.notifier
        .notify_elicitation_complete(&*guest, "e1")
        .await
        .unwrap();
    let first = next_message(&mut stream).await;
    assert_eq!(
        first["method"], "notifications/elicitation/complete",
        "{first}"
    );
}

#[tokio::test]
async fn an_idle_listen_stream_sends_keep_alives() {
    let watch = Watch::default();
    let config = Config::default().with_keep_alive(std::time::Duration::from_secs(1));
    let server = TestServer::start_configured(watch, config, HttpConfig::default()).await;
    let mut stream = open_listen(&server, "idle", json!({"toolsListChanged": true})).await;
    let ack = stream.next().await.expect("the acknowledgement");
    assert_eq!(
        ack.json()["method"],
        "notifications/subscriptions/acknowledged"
    );
    let idle = stream.next().await.expect("a keep-alive");
    assert!(idle.data.is_none(), "{idle:?}");
    assert_eq!(idle.comments, ["keep-alive"], "{idle:?}");
}

fn listen(id: &str, filter: &Value) -> Value {
    let mut body = modern_request(
        0,
        "subscriptions/listen",
        json!({ "notifications": filter }),
    );
    body["id"] = json!(id);
    body
}

async fn open_listen(server: &TestServer, id: &str, filter: Value) -> Sse {
    let reply = server
        .post(&listen(id, &filter))
        .header("mcp-protocol-version", crate::support::MODERN)
        .header("mcp-method", "subscriptions/listen")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.content_type(), Some("text/event-stream"));
    reply.sse()
}

#[tokio::test]
async fn a_listen_is_acknowledged_first_then_hears_tagged_notifications_it_asked_for() {
    let s = setup().await;
    let mut stream = open_listen(
        &s.server,
        "sub-1",
        json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourceSubscriptions": [item(1), item(2), "nope://x"],
        }),
    )
    .await;
    let ack = next_message(&mut stream).await;
    // Revoked after the listen was authorized: the next update checks again.
    s.watch.revoked.lock().unwrap().insert(item(2));
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"],
        json!({
            // No prompts on this server: not honoured; a URI that names no resource is dropped.
            "notifications": {"toolsListChanged": true, "resourceSubscriptions": [item(1), item(2)]},
            "_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"},
        })
    );
    s.notifier.notify_prompts_changed().await.unwrap();
    s.notifier.notify_tools_changed().await.unwrap();
    let tools = next_message(&mut stream).await;
    assert_eq!(
        tools,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
               "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"}}}),
        "the prompt change was not asked for and is not sent"
    );
    s.notifier
        .notify_resources_updated([item(2), item(1), item(3)])
        .await
        .unwrap();
    assert_eq!(
        next_message(&mut stream).await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": item(1), "_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"}}}),
        "item 2 is revoked now, item 3 was not asked for"
    );
}

#[tokio::test]
async fn a_filter_key_the_server_does_not_know_is_ignored_and_not_acknowledged() {
    // Extensions add filter keys (the tasks extension's `taskIds`): a server that does not know
    // one honours the rest, and its acknowledgement leaves the unknown key out.
    let s = setup().await;
    let filter = json!({"toolsListChanged": true, "io.example/weather": ["rain"]});
    let mut stream = open_listen(&s.server, "sub-x", filter).await;
    let ack = next_message(&mut stream).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    s.notifier.notify_tools_changed().await.unwrap();
    assert_eq!(
        next_message(&mut stream).await["method"],
        "notifications/tools/list_changed"
    );
}

#[tokio::test]
async fn several_listens_each_hear_their_own_changes() {
    let s = setup().await;
    let mut tools = open_listen(&s.server, "t", json!({"toolsListChanged": true})).await;
    let mut items = open_listen(&s.server, "r", json!({"resourceSubscriptions": [item(5)]})).await;
    next_message(&mut tools).await;
    next_message(&mut items).await;
    s.notifier.notify_resource_updated(item(5)).await.unwrap();
    s.notifier.notify_tools_changed().await.unwrap();
    let t = next_message(&mut tools).await;
    assert_eq!(t["method"], "notifications/tools/list_changed");
    assert_eq!(
        t["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "t"
    );
    let r = next_message(&mut items).await;
    assert_eq!(r["method"], "notifications/resources/updated");
    assert_eq!(
        r["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "r"
    );
}

#[tokio::test]
async fn a_listen_without_a_filter_names_the_field() {
    let s = setup().await;
    let mut body = modern_request(3, "subscriptions/listen", json!({}));
    body["params"]
        .as_object_mut()
        .unwrap()
        .remove("notifications");
    let reply = s
        .server
        .post(&body)
        .header("mcp-protocol-version", crate::support::MODERN)
        .header("mcp-method", "subscriptions/listen")
        .send()
        .await;
    let error = reply.expect_error(StatusCode::OK, -32602).await;
    assert_eq!(error["data"]["field"], "notifications", "{error}");
}

#[tokio::test]
async fn a_closed_listen_is_forgotten_and_shutdown_ends_the_others_with_a_final_result() {
    let s = setup().await;
    let closed = open_listen(&s.server, "gone", json!({"toolsListChanged": true})).await;
    drop(closed);
    let mut stream = open_listen(&s.server, "42", json!({"toolsListChanged": true})).await;
    next_message(&mut stream).await;
    let Setup { server, .. } = s;
    drop(server);
    let cancelled = next_message(&mut stream).await;
    assert_eq!(
        cancelled["method"], "notifications/cancelled",
        "{cancelled}"
    );
    assert_eq!(cancelled["params"]["requestId"], "42");
    let last = next_message(&mut stream).await;
    assert_eq!(last["id"], "42");
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "42"
    );
    assert_eq!(last["result"]["resultType"], "complete");
    assert!(
        stream.next().await.is_none(),
        "the stream ends after the result"
    );
}

/// Arguments of the tool added at run time.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ShoutArgs {
    text: String,
}

fn tool_names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn tools_added_removed_and_disabled_at_run_time_show_in_lists_calls_and_streams() {
    let dispatcher =
        phantom::dispatch::Dispatcher::with_config(Watch::default(), Config::default());
    let registry = dispatcher.registry();
    let server = TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let mut get = open_stream(&server, &session).await;
    let mut listen = open_listen(&server, "tools", json!({"toolsListChanged": true})).await;
    next_message(&mut listen).await;

    let shout = phantom::registry::DynamicTool::new("shout", |args: ShoutArgs| async move {
        args.text.to_uppercase()
    })
    .description("Shouts the text back");
    registry.add_tool(shout.clone()).await.expect("a free name");
    // Both eras hear of it.
    let changed = next_message(&mut get).await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    let changed = next_message(&mut listen).await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "tools"
    );

    let list = |id| request(id, "tools/list", json!({}));
    let listed = server
        .post_in(&session, &list(20))
        .send()
        .await
        .json()
        .await;
    assert_eq!(
        tool_names(&listed),
        ["change_tools", "sign_in", "shout"],
        "{listed}"
    );
    let added = &listed["result"]["tools"][2];
    assert_eq!(added["description"], "Shouts the text back");
    assert_eq!(added["inputSchema"]["properties"]["text"]["type"], "string");
    let modern = server
        .post_modern("tools/list", json!({}))
        .send()
        .await
        .json()
        .await;
    assert_eq!(tool_names(&modern), ["change_tools", "sign_in", "shout"]);

    let call = |id, args: Value| {
        request(
            id,
            "tools/call",
            json!({"name": "shout", "arguments": args}),
        )
    };
    let shouted = server
        .post_in(&session, &call(21, json!({"text": "hi"})))
        .send()
        .await
        .json()
        .await;
    assert_eq!(crate::support::first_text(&shouted["result"]), "HI");
    let bad = server
        .post_in(&session, &call(22, json!({"text": 3})))
        .send()
        .await
        .json()
        .await;
    assert_eq!(bad["result"]["isError"], true, "{bad}");

    // Names are checked: taken (declared or added) and invalid ones are refused.
    assert!(matches!(
        registry.add_tool(shout.clone()).await,
        Err(phantom::registry::RegistryError::Duplicate { .. })
    ));
    let declared = phantom::registry::DynamicTool::new("change_tools", |_: ShoutArgs| async { "" });
    assert!(matches!(
        registry.add_tool(declared).await,
        Err(phantom::registry::RegistryError::Duplicate { .. })
    ));
    let spaced = phantom::registry::DynamicTool::new("has space", |_: ShoutArgs| async { "" });
    assert!(matches!(
        registry.add_tool(spaced).await,
        Err(phantom::registry::RegistryError::InvalidName { .. })
    ));

    // A disabled declared tool is neither listed nor callable; enabled again, it is back.
    registry.disable_tool("sign_in").await.expect("declared");
    next_message(&mut get).await;
    let listed = server
        .post_in(&session, &list(23))
        .send()
        .await
        .json()
        .await;
    assert_eq!(tool_names(&listed), ["change_tools", "shout"]);
    let hidden = request(
        24,
        "tools/call",
        json!({"name": "sign_in", "arguments": {}}),
    );
    let hidden = server.post_in(&session, &hidden).send().await.json().await;
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
    registry.enable_tool("sign_in").await.expect("disabled");
    next_message(&mut get).await;

    registry.remove_tool("shout").await.expect("added");
    next_message(&mut get).await;
    let listed = server
        .post_in(&session, &list(25))
        .send()
        .await
        .json()
        .await;
    assert_eq!(tool_names(&listed), ["change_tools", "sign_in"]);
    let gone = server
        .post_in(&session, &call(26, json!({"text": "hi"})))
        .send()
        .await
        .json()
        .await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    assert!(matches!(
        registry.remove_tool("shout").await,
        Err(phantom::registry::RegistryError::Unknown { .. })
    ));
}

/// Listens and a call over one HTTP/2 connection: the connection's writes of stream data wait a
/// turn so that the frames of its streams leave together, and none is lost or held back.
#[tokio::test]
async fn listens_on_one_http2_connection_each_hear_every_change_in_order() {
    let s = setup().await;
    let tcp = tokio::net::TcpStream::connect(s.server.addr).await.unwrap();
    let (sender, conn) =
        hyper::client::conn::http2::handshake::<_, _, http_body_util::Full<bytes::Bytes>>(
            hyper_util::rt::TokioExecutor::new(),
            hyper_util::rt::TokioIo::new(tcp),
        )
        .await
        .expect("an HTTP/2 connection with prior knowledge");
    tokio::spawn(conn);
    let post = |body: Value, method: &'static str, name: Option<String>| {
        let mut sender = sender.clone();
        let host = s.server.addr.to_string();
        async move {
            let mut request = http::Request::post(format!("http://{host}/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", crate::support::MODERN)
                .header("mcp-method", method);
            if let Some(name) = name {
                request = request.header("mcp-name", name);
            }
            let request = request
                .body(http_body_util::Full::new(bytes::Bytes::from(
                    body.to_string(),
                )))
                .unwrap();
            sender.send_request(request).await.expect("an answer")
        }
    };
    const LISTENS: usize = 24;
    let mut streams = Vec::new();
    for i in 0..LISTENS {
        let filter = json!({"resourceSubscriptions": [item(1), item(2)]});
        let reply = post(
            listen(&format!("h2-{i}"), &filter),
            "subscriptions/listen",
            None,
        )
        .await;
        assert_eq!(reply.status(), StatusCode::OK);
        let mut stream = Sse::of(reply.into_body());
        let ack = next_message(&mut stream).await;
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        streams.push(stream);
    }
    for round in 0..3 {
        s.notifier.notify_resource_updated(item(1)).await.unwrap();
        s.notifier.notify_resource_updated(item(2)).await.unwrap();
        for (i, stream) in streams.iter_mut().enumerate() {
            for uri in [item(1), item(2)] {
                assert_eq!(
                    next_message(stream).await,
                    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                           "params": {"uri": uri,
                                      "_meta": {"io.modelcontextprotocol/subscriptionId": format!("h2-{i}")}}}),
                    "round {round}, listen {i}"
                );
            }
        }
    }
    // A call on the same connection, between the held streams, is answered.
    let reply = post(
        modern_request(9, "resources/read", json!({"uri": item(7)})),
        "resources/read",
        Some(item(7)),
    )
    .await;
    assert_eq!(reply.status(), StatusCode::OK);
    let body = http_body_util::BodyExt::collect(reply.into_body())
        .await
        .unwrap()
        .to_bytes();
    let reply: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(reply["result"]["contents"][0]["text"], "item 7", "{reply}");
}
