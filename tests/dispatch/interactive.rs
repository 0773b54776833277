//! Input requests in both eras, from the same handlers: elicitation, sampling and roots answered by
//! the test client's closures (legacy server-to-client requests; 2026-07-28 `input_required`
//! rounds with a sealed `requestState`), capability checks, several inputs at once, several
//! rounds, tampered, foreign and expired state, duplicate ids and cancellation.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use phantom::prelude::*;
use phantom::testing::Client;
use phantom::{Config, input::Root};
use serde_json::{Value, json};

#[derive(Clone, Default)]
pub(crate) struct Asker {
    ticks: Arc<AtomicU64>,
    /// Cancellations that work spawned by a handler noticed.
    noticed: Arc<AtomicU64>,
}

impl Asker {
    /// Spawns work that waits for the request's cancellation.
    fn watch(&self, ctx: &Ctx) {
        let (ctx, noticed) = (ctx.clone(), Arc::clone(&self.noticed));
        tokio::spawn(async move {
            ctx.cancelled().await;
            assert!(ctx.is_cancelled());
            noticed.fetch_add(1, Ordering::SeqCst);
        });
    }
}

fn name_form() -> Form {
    Form::new().required("name", Field::string())
}

fn name_of(answer: Elicitation<Value>) -> String {
    answer
        .accepted()
        .and_then(|v| v["name"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "nobody".into())
}

#[mcp_router(name = "asker", version = "1.0.0")]
impl Asker {
    /// Greets the user by the name they give.
    #[tool]
    async fn greet(&self, ctx: Ctx) -> String {
        let name = name_of(ctx.elicit("name", "Your name?", name_form()).await);
        format!("Hello, {name}!")
    }

    /// Asks twice, in two rounds.
    #[tool]
    async fn two_steps(&self, ctx: Ctx) -> String {
        let first = name_of(ctx.elicit("first", "First name?", name_form()).await);
        let last = name_of(ctx.elicit("last", "Last name?", name_form()).await);
        format!("{first} {last}")
    }

    /// Asks three inputs at once.
    #[tool]
    async fn three(&self, ctx: Ctx) -> String {
        let (name, reply, roots): (Elicitation<Value>, _, Vec<Root>) = ctx
            .input((
                Elicit::new("name", "Your name?", name_form()),
                Sample::new("reply", 20).user("Say hi"),
                Roots::new("roots"),
            ))
            .await;
        format!(
            "{} / {} / {}",
            name_of(name),
            reply.text().unwrap_or("?"),
            roots.len()
        )
    }

    /// A URL elicitation.
    #[tool]
    async fn sign_in(&self, ctx: Ctx) -> String {
        let answer = ctx
            .input(ElicitUrl::new(
                "login",
                "Sign in",
                "https://example.com/login",
            ))
            .await;
        format!("login {}", answer.action())
    }

    /// Ticks until cancelled, asking nothing.
    #[tool]
    async fn tick(&self) -> String {
        loop {
            self.ticks.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Never finishes within its limit.
    #[tool(timeout = "50ms")]
    async fn slow(&self) -> String {
        loop {
            self.ticks.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Asks for a name under a short limit: the wait for the answer does not count.
    #[tool(timeout = "100ms")]
    async fn hurried_greet(&self, ctx: Ctx) -> String {
        let name = name_of(ctx.elicit("name", "Your name?", name_form()).await);
        format!("Hello, {name}!")
    }

    /// Hands work to a task, then ticks until cancelled.
    #[tool]
    async fn delegate(&self, ctx: Ctx) -> String {
        self.watch(&ctx);
        loop {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Hands work to a task, then runs past its limit.
    #[tool(timeout = "30ms")]
    async fn delegate_slowly(&self, ctx: Ctx) -> String {
        self.watch(&ctx);
        tokio::time::sleep(Duration::from_secs(5)).await;
        "late".into()
    }

    /// Hands work to a task and answers at once.
    #[tool]
    async fn delegate_quickly(&self, ctx: Ctx) -> String {
        self.watch(&ctx);
        "done".into()
    }

    /// Needs the user to pay on a web page first.
    #[tool]
    async fn pay(&self, ctx: Ctx) -> String {
        let flow = ElicitUrl::new("pay", "Pay first", "https://pay.example/checkout");
        format!("paid: {}", ctx.require_url(flow).await.action())
    }

    /// Pings the client, then says whether it answered.
    #[tool]
    async fn knock(&self, ctx: Ctx) -> String {
        format!("answered: {}", ctx.ping().await)
    }

    /// A prompt that asks for context.
    #[prompt]
    async fn briefing(&self, ctx: Ctx) -> PromptReply {
        let topic = name_of(ctx.elicit("topic", "Topic?", name_form()).await);
        PromptReply::default().user(format!("Brief me on {topic}"))
    }

    /// A prompt whose argument completes by asking the user, which a completion cannot do.
    #[prompt]
    async fn pick(
        &self,
        #[complete(with = "Self::ask_while_completing")] topic: String,
    ) -> PromptReply {
        PromptReply::default().user(topic)
    }

    async fn ask_while_completing(&self, _value: &str, cx: &CompleteContext<'_>) -> Vec<String> {
        vec![name_of(cx.ctx.elicit("k", "Which?", name_form()).await)]
    }

    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        session.principal = request
            .headers
            .get("x-user")
            .and_then(|v| v.to_str().ok())
            .map(Into::into);
        Connect::Ok
    }
}

fn accept(name: &str) -> impl Fn(&Value) -> Value + Send + Sync + 'static {
    let name = name.to_owned();
    move |_| json!({"action": "accept", "content": {"name": name}})
}

fn sample_reply(_: &Value) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"})
}

fn roots_reply(_: &Value) -> Value {
    json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b", "name": "b"}]})
}

#[tokio::test]
async fn one_handler_elicits_in_both_eras() {
    let mut legacy = Client::builder(Asker::default())
        .on_elicit(accept("Ada"))
        .legacy()
        .await;
    let response = legacy.call_tool("greet", json!({})).await;
    response.assert_tool_text("Hello, Ada!");
    assert_eq!(response.requests.len(), 1);
    assert_eq!(response.requests[0]["method"], "elicitation/create");
    assert_eq!(
        response.requests[0]["params"]["requestedSchema"]["required"],
        json!(["name"])
    );

    let mut modern = Client::builder(Asker::default())
        .on_elicit(accept("Ada"))
        .modern();
    let response = modern.call_tool("greet", json!({})).await;
    response.assert_tool_text("Hello, Ada!");
    assert_eq!(response.requests.len(), 1);
    assert_eq!(response.result()["resultType"], "complete");

    let prompt = modern.get_prompt("briefing", json!({})).await;
    assert_eq!(
        prompt.result()["messages"][0]["content"]["text"],
        "Brief me on Ada"
    );
}

#[tokio::test]
async fn a_handler_that_elicits_twice_takes_two_rounds() {
    let mut legacy = Client::builder(Asker::default())
        .on_elicit(accept("Ada"))
        .legacy()
        .await;
    let response = legacy.call_tool("two_steps", json!({})).await;
    response.assert_tool_text("Ada Ada");
    assert_eq!(response.requests.len(), 2);

    // Modern, by hand: each round asks only what is not answered yet, and the state carries the
    // earlier answers (the client re-sends only the latest).
    let mut modern = Client::builder(Asker::default())
        .capabilities(json!({"elicitation": {}}))
        .modern();
    let first = modern.call_tool("two_steps", json!({})).await;
    let result = first.result();
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["first"]
    );
    let state = result["requestState"].clone();
    let second = modern
        .request(
            "tools/call",
            json!({"name": "two_steps", "arguments": {}, "requestState": state,
                   "inputResponses": {"first": {"action": "accept", "content": {"name": "Ada"}}}}),
        )
        .await;
    let result = second.result();
    assert_eq!(result["resultType"], "input_required");
    assert!(result["inputRequests"].get("last").is_some(), "{result}");
    assert!(result["inputRequests"].get("first").is_none(), "{result}");
    assert_ne!(result["requestState"], state);
    let third = modern
        .request(
            "tools/call",
            json!({"name": "two_steps", "arguments": {}, "requestState": result["requestState"],
                   "inputResponses": {"last": {"action": "accept", "content": {"name": "Lovelace"}}}}),
        )
        .await;
    third.assert_tool_text("Ada Lovelace");
}

#[tokio::test]
async fn three_inputs_are_asked_at_once() {
    for modern in [false, true] {
        let builder = Client::builder(Asker::default())
            .on_elicit(accept("Ada"))
            .on_sample(sample_reply)
            .on_roots(roots_reply);
        let mut client = if modern {
            builder.modern()
        } else {
            builder.legacy().await
        };
        let response = client.call_tool("three", json!({})).await;
        response.assert_tool_text("Ada / hi / 2");
        let methods: Vec<&str> = response
            .requests
            .iter()
            .map(|r| r["method"].as_str().unwrap())
            .collect();
        assert_eq!(
            methods,
            ["elicitation/create", "sampling/createMessage", "roots/list"],
            "modern: {modern}"
        );
    }
}

#[tokio::test]
async fn input_the_client_cannot_give_is_refused_with_32021() {
    let mut legacy = Client::builder(Asker::default()).legacy().await;
    let response = legacy.call_tool("greet", json!({})).await;
    response.assert_error(-32021);
    assert_eq!(
        response.error()["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );

    let mut modern = Client::builder(Asker::default())
        .capabilities(json!({"elicitation": {}}))
        .modern();
    let response = modern.call_tool("sign_in", json!({})).await;
    response.assert_error(-32021);
    assert_eq!(*response.status(), phantom::dispatch::Status::BadRequest);
    assert_eq!(
        response.error()["data"]["requiredCapabilities"],
        json!({"elicitation": {"url": {}}})
    );
}

#[tokio::test]
async fn url_elicitation_differs_by_era() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = {
        let seen = Arc::clone(&seen);
        move |params: &Value| {
            seen.lock().unwrap().push(params.clone());
            json!({"action": "accept"})
        }
    };
    let mut legacy = Client::builder(Asker::default())
        .on_elicit(record.clone())
        .legacy()
        .await;
    legacy
        .call_tool("sign_in", json!({}))
        .await
        .assert_tool_text("login accept");
    let mut modern = Client::builder(Asker::default()).on_elicit(record).modern();
    modern
        .call_tool("sign_in", json!({}))
        .await
        .assert_tool_text("login accept");
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0]["mode"], "url");
    assert!(
        seen[0]["elicitationId"].is_string(),
        "legacy URL mode names the elicitation"
    );
    assert!(
        seen[1].get("elicitationId").is_none(),
        "2026-07-28 has no elicitationId"
    );
}

async fn first_round(client: &mut Client<Asker>) -> Value {
    let response = client.call_tool("greet", json!({})).await;
    assert_eq!(response.result()["resultType"], "input_required");
    response.result()["requestState"].clone()
}

fn retry(name: &str, state: &Value) -> Value {
    json!({"name": name, "arguments": {}, "requestState": state,
           "inputResponses": {"name": {"action": "accept", "content": {"name": "Eve"}}}})
}

#[tokio::test]
async fn tampered_foreign_replayed_and_expired_state_is_refused() {
    let modern = |user: &str, config: Config| {
        Client::builder(Asker::default())
            .capabilities(json!({"elicitation": {}}))
            .header("x-user", user)
            .config(config)
            .modern()
    };
    let key = phantom::input::StateKey::random();
    let config = || Config::default().with_state_key(key.clone());
    let mut alice = modern("alice", config());
    let state = first_round(&mut alice).await;

    // The state as issued works.
    alice
        .request("tools/call", retry("greet", &state))
        .await
        .assert_tool_text("Hello, Eve!");

    // One changed character.
    let text = state.as_str().unwrap();
    let mut bytes = text.as_bytes().to_vec();
    bytes[10] = if bytes[10] == b'A' { b'B' } else { b'A' };
    let tampered = Value::String(String::from_utf8(bytes).unwrap());
    let response = alice.request("tools/call", retry("greet", &tampered)).await;
    response.assert_error(-32602);
    assert_eq!(response.error()["data"]["field"], "requestState");

    // Another principal, with the same key.
    let mut bob = modern("bob", config());
    bob.request("tools/call", retry("greet", &state))
        .await
        .assert_error(-32602);

    // Another request: the same state on another tool.
    alice
        .request("tools/call", retry("two_steps", &state))
        .await
        .assert_error(-32602);

    // Another node without the shared key.
    let mut elsewhere = modern("alice", Config::default());
    elsewhere
        .request("tools/call", retry("greet", &state))
        .await
        .assert_error(-32602);

    // Expired.
    let mut brief = modern("alice", config().with_state_ttl(Duration::from_secs(1)));
    let state = first_round(&mut brief).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let response = brief.request("tools/call", retry("greet", &state)).await;
    response.assert_error(-32602);
    assert!(
        response.error()["message"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{}",
        response.json
    );
}

#[tokio::test]
async fn missing_and_unreadable_answers() {
    let mut modern = Client::builder(Asker::default())
        .capabilities(json!({"elicitation": {}}))
        .modern();
    // A wrong key is a new round, not an error.
    let response = modern
        .request(
            "tools/call",
            json!({"name": "greet", "arguments": {},
                   "inputResponses": {"other": {"action": "accept", "content": {}}}}),
        )
        .await;
    assert_eq!(response.result()["resultType"], "input_required");
    // An answer that is not an elicitation result names its key.
    let response = modern
        .request(
            "tools/call",
            json!({"name": "greet", "arguments": {}, "inputResponses": {"name": 12345}}),
        )
        .await;
    response.assert_error(-32602);
    assert_eq!(response.error()["data"]["field"], "inputResponses.name");
    // `inputResponses` must be an object.
    modern
        .request(
            "tools/call",
            json!({"name": "greet", "arguments": {}, "inputResponses": [1]}),
        )
        .await
        .assert_error(-32602);
    // Declined: the handler sees it.
    let mut declining = Client::builder(Asker::default())
        .on_elicit(|_| json!({"action": "decline"}))
        .modern();
    declining
        .call_tool("greet", json!({}))
        .await
        .assert_tool_text("Hello, nobody!");
}

#[tokio::test]
async fn a_legacy_client_error_ends_the_request() {
    // No closure for sampling: the test client answers `sampling/createMessage` with an error.
    let mut legacy = Client::builder(Asker::default())
        .capabilities(json!({"elicitation": {}, "sampling": {}, "roots": {}}))
        .on_elicit(accept("Ada"))
        .legacy()
        .await;
    let response = legacy.call_tool("three", json!({})).await;
    response.assert_error(-32603);
    assert_eq!(response.error()["data"]["key"], "reply");
}

#[tokio::test]
async fn legacy_cancellation_stops_the_handler_and_duplicate_ids_are_refused() {
    let asker = Asker::default();
    let ticks = Arc::clone(&asker.ticks);
    let dispatcher = phantom::dispatch::Dispatcher::new(asker);
    let request = Request::default();
    let mut slot = phantom::dispatch::SessionSlot::default();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    dispatcher
        .handle(
            &init.to_string(),
            &request,
            &mut slot,
            &phantom::dispatch::Outbound::none(),
        )
        .await
        .unwrap();
    let session = slot.into_session();

    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "tick", "arguments": {}}}).to_string();
    let running = {
        let dispatcher = dispatcher.clone();
        let session = session.clone();
        let call = call.clone();
        tokio::spawn(async move {
            let mut slot = phantom::dispatch::SessionSlot::new(session);
            dispatcher
                .handle(
                    &call,
                    &Request::default(),
                    &mut slot,
                    &phantom::dispatch::Outbound::none(),
                )
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(ticks.load(Ordering::SeqCst) > 0, "the handler runs");

    // The same id again, while the first is in flight.
    let mut slot = phantom::dispatch::SessionSlot::new(session.clone());
    let duplicate = dispatcher
        .handle(
            &call,
            &request,
            &mut slot,
            &phantom::dispatch::Outbound::none(),
        )
        .await
        .expect("a reply");
    let body: Value = serde_json::from_str(&duplicate.body).unwrap();
    assert_eq!(body["error"]["code"], -32600, "{body}");
    assert_eq!(body["id"], 7);

    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}});
    let mut slot = phantom::dispatch::SessionSlot::new(session.clone());
    assert!(
        dispatcher
            .handle(
                &cancel.to_string(),
                &request,
                &mut slot,
                &phantom::dispatch::Outbound::none()
            )
            .await
            .is_none()
    );
    let reply = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("the cancelled request ends")
        .unwrap();
    assert!(reply.is_none(), "a cancelled request gets no reply");
    let stopped = ticks.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        ticks.load(Ordering::SeqCst),
        stopped,
        "the handler stopped advancing"
    );

    // The id is free again once the request ended.
    let again = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}).to_string();
    let mut slot = phantom::dispatch::SessionSlot::new(session);
    let reply = dispatcher
        .handle(
            &again,
            &request,
            &mut slot,
            &phantom::dispatch::Outbound::none(),
        )
        .await
        .unwrap();
    assert!(reply.body.contains("\"tools\""), "{}", reply.body);
}

#[tokio::test]
async fn a_completion_cannot_ask_for_input() {
    for modern in [false, true] {
        let builder = Client::builder(Asker::default()).on_elicit(accept("Ada"));
        let mut client = if modern {
            builder.modern()
        } else {
            builder.legacy().await
        };
        let response = client.complete_prompt("pick", "topic", "x").await;
        response.assert_error(-32603);
        let message = response.error()["message"].as_str().unwrap().to_owned();
        assert!(message.contains("completion/complete"), "{message}");
        assert!(response.requests.is_empty(), "nothing was asked");
    }
}

#[derive(Clone)]
struct Hasty;

#[mcp_router(name = "hasty", version = "1.0.0", tool_timeout = "30ms")]
impl Hasty {
    /// Takes longer than the router's limit.
    #[tool]
    async fn dawdle(&self) -> String {
        tokio::time::sleep(Duration::from_secs(5)).await;
        "late".into()
    }

    /// Takes longer than the router's limit, within its own.
    #[tool(timeout = "2s")]
    async fn patient(&self) -> String {
        tokio::time::sleep(Duration::from_millis(60)).await;
        "in time".into()
    }
}

#[tokio::test]
async fn tools_past_their_time_limit_end_with_a_tool_error() {
    let asker = Asker::default();
    let ticks = Arc::clone(&asker.ticks);
    let mut client = Client::builder(asker).legacy().await;
    let response = client.call_tool("slow", json!({})).await;
    response.assert_tool_error("Tool `slow` timed out after 50ms");
    let stopped = ticks.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert_eq!(
        ticks.load(Ordering::SeqCst),
        stopped,
        "the handler was dropped"
    );

    let mut hasty = Client::builder(Hasty).modern();
    hasty
        .call_tool("dawdle", json!({}))
        .await
        .assert_tool_error("Tool `dawdle` timed out after 30ms");
    hasty
        .call_tool("patient", json!({}))
        .await
        .assert_tool_text("in time");
}

#[tokio::test]
async fn waiting_for_the_client_does_not_count_against_the_limit() {
    // The user takes 300 ms to answer; the tool's limit is 100 ms of its own time.
    let slow_user = |_: &Value| {
        std::thread::sleep(Duration::from_millis(300));
        json!({"action": "accept", "content": {"name": "Ada"}})
    };
    let mut legacy = Client::builder(Asker::default())
        .on_elicit(slow_user)
        .legacy()
        .await;
    legacy
        .call_tool("hurried_greet", json!({}))
        .await
        .assert_tool_text("Hello, Ada!");
}

#[tokio::test]
async fn an_unanswered_client_request_ends_at_the_reply_timeout() {
    use phantom::dispatch::{Dispatcher, Frame, Outbound, SessionSlot};
    let config = Config::default().with_reply_timeout(Duration::from_millis(100));
    let dispatcher = Dispatcher::with_config(Asker::default(), config);
    let request = Request::default();
    let mut slot = SessionSlot::default();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "t", "version": "1"}}});
    dispatcher
        .handle(&init.to_string(), &request, &mut slot, &Outbound::none())
        .await
        .expect("initialized");
    let session = slot.into_session();

    // The client hears the elicitation and never answers.
    let (outbound, mut frames) = Outbound::channel();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "hurried_greet", "arguments": {}}});
    let mut slot = SessionSlot::new(session.clone());
    let started = std::time::Instant::now();
    let reply = dispatcher
        .handle(&call.to_string(), &request, &mut slot, &outbound)
        .await
        .expect("a reply");
    let waited = started.elapsed();
    let body: Value = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(body["error"]["code"], -32603, "{body}");
    assert_eq!(body["error"]["data"]["key"], "name", "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("did not answer"), "{message}");
    assert!(
        waited >= Duration::from_millis(100) && waited < Duration::from_secs(5),
        "{waited:?}"
    );

    // The answer comes late: nobody waits for it any more.
    let asked: Value = loop {
        match frames.try_recv().expect("the elicitation was sent") {
            Frame::Message(m) => break serde_json::from_str(&m).unwrap(),
            Frame::KeepAlive | Frame::Close => {}
        }
    };
    assert_eq!(asked["method"], "elicitation/create");
    let late = json!({"jsonrpc": "2.0", "id": asked["id"],
        "result": {"action": "accept", "content": {"name": "Ada"}}});
    let mut slot = SessionSlot::new(session);
    let refused = dispatcher
        .handle(&late.to_string(), &request, &mut slot, &Outbound::none())
        .await
        .expect("a refusal");
    let body: Value = serde_json::from_str(&refused.body).unwrap();
    assert_eq!(body["error"]["code"], -32600, "{body}");
}

#[tokio::test]
async fn the_test_client_cancels_in_both_eras() {
    for modern in [false, true] {
        let asker = Asker::default();
        let ticks = Arc::clone(&asker.ticks);
        let mut client = if modern {
            Client::builder(asker).modern()
        } else {
            Client::builder(asker).legacy().await
        };
        client
            .cancel_tool_call("tick", json!({}), Duration::from_millis(40))
            .await;
        let stopped = ticks.load(Ordering::SeqCst);
        assert!(stopped > 0, "the handler ran (modern: {modern})");
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert_eq!(
            ticks.load(Ordering::SeqCst),
            stopped,
            "the handler stopped advancing (modern: {modern})"
        );
        // The client goes on.
        assert!(
            client
                .list_tools(None)
                .await
                .tool_names()
                .iter()
                .any(|n| n == "tick")
        );
    }
}

#[tokio::test]
async fn a_handler_pings_a_legacy_client() {
    let mut legacy = Client::builder(Asker::default()).legacy().await;
    let response = legacy.call_tool("knock", json!({})).await;
    response.assert_tool_text("answered: true");
    assert_eq!(response.requests[0]["method"], "ping");
    // 2026-07-28 has no server-to-client requests: nothing to ping.
    let mut modern = Client::builder(Asker::default()).modern();
    modern
        .call_tool("knock", json!({}))
        .await
        .assert_tool_text("answered: false");
}

async fn noticed_within(asker: &Asker, expected: u64) -> u64 {
    for _ in 0..100 {
        if asker.noticed.load(Ordering::SeqCst) >= expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    asker.noticed.load(Ordering::SeqCst)
}

#[tokio::test]
async fn spawned_work_sees_the_cancellation() {
    for modern in [false, true] {
        let asker = Asker::default();
        let mut client = if modern {
            Client::builder(asker.clone()).modern()
        } else {
            Client::builder(asker.clone()).legacy().await
        };
        client
            .cancel_tool_call("delegate", json!({}), Duration::from_millis(30))
            .await;
        assert_eq!(
            noticed_within(&asker, 1).await,
            1,
            "cancelled (modern: {modern})"
        );
        client
            .call_tool("delegate_slowly", json!({}))
            .await
            .assert_tool_error("Tool `delegate_slowly` timed out after 30ms");
        assert_eq!(
            noticed_within(&asker, 2).await,
            2,
            "timed out (modern: {modern})"
        );
        client
            .call_tool("delegate_quickly", json!({}))
            .await
            .assert_tool_text("done");
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            asker.noticed.load(Ordering::SeqCst),
            2,
            "a request that completes is not cancelled (modern: {modern})"
        );
    }
}

#[tokio::test]
async fn a_required_url_is_32042_in_the_legacy_era_and_an_input_in_2026() {
    let mut legacy = Client::builder(Asker::default())
        .on_elicit(|_| json!({"action": "accept"}))
        .legacy()
        .await;
    let response = legacy.call_tool("pay", json!({})).await;
    response.assert_error(-32042);
    let elicitation = &response.error()["data"]["elicitations"][0];
    assert_eq!(elicitation["mode"], "url");
    assert_eq!(elicitation["url"], "https://pay.example/checkout");
    assert!(elicitation["elicitationId"].is_string(), "{elicitation}");
    assert!(
        response.requests.is_empty(),
        "nothing was sent to the client"
    );

    let mut form_only = Client::builder(Asker::default())
        .capabilities(json!({"elicitation": {}}))
        .legacy()
        .await;
    let response = form_only.call_tool("pay", json!({})).await;
    response.assert_error(-32021);
    assert_eq!(
        response.error()["data"]["requiredCapabilities"],
        json!({"elicitation": {"url": {}}})
    );

    let mut modern = Client::builder(Asker::default())
        .on_elicit(|_| json!({"action": "accept"}))
        .modern();
    let response = modern.call_tool("pay", json!({})).await;
    response.assert_tool_text("paid: accept");
    assert_eq!(response.requests[0]["params"]["mode"], "url");
}
