//! An in-process client for testing routers, in both protocol eras, with assertions.
//!
//! ```
//! use phantom::prelude::*;
//! use phantom::testing::Client;
//!
//! #[derive(Clone)]
//! struct Echo;
//!
//! #[mcp_router(name = "echo", version = "1.0.0")]
//! impl Echo {
//!     /// Say it back.
//!     #[tool]
//!     async fn echo(&self, text: String) -> String {
//!         text
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let mut legacy = Client::legacy(Echo).await;
//! legacy.call_tool("echo", serde_json::json!({"text": "hi"})).await.assert_tool_text("hi");
//!
//! let mut modern = Client::modern(Echo);
//! modern.call_tool("echo", serde_json::json!({})).await.assert_tool_error("missing required argument `text`");
//! modern.call_tool("nope", serde_json::json!({})).await.assert_error(-32602);
//! assert_eq!(modern.list_tools(None).await.tool_names(), ["echo"]);
//! # });
//! ```
//!
//! What `connect` must see on the first message (a bearer token, a role header, the transport) is
//! set with [`Client::builder`] before the client sends anything.
//!
//! A client answers a handler's input requests (elicitation, sampling, roots) from closures, in
//! both eras: on a legacy session it answers the server's requests while the handler waits; on a
//! modern one it retries an `input_required` result with the answers, round after round.
//!
//! ```
//! use phantom::prelude::*;
//! use phantom::testing::Client;
//! use serde_json::{Value, json};
//!
//! #[derive(Clone)]
//! struct Greeter;
//!
//! #[mcp_router(name = "greeter", version = "1.0.0")]
//! impl Greeter {
//!     /// Greets the user by name.
//!     #[tool]
//!     async fn greet(&self, ctx: Ctx) -> String {
//!         let form = Form::new().required("name", Field::string());
//!         match ctx.elicit::<Value>("name", "Your name?", form).await {
//!             Elicitation::Accept(v) => format!("Hello, {}!", v["name"].as_str().unwrap_or("?")),
//!             _ => "Hello!".into(),
//!         }
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let answer = |_: &Value| json!({"action": "accept", "content": {"name": "Ada"}});
//! let mut legacy = Client::builder(Greeter).on_elicit(answer).legacy().await;
//! legacy.call_tool("greet", json!({})).await.assert_tool_text("Hello, Ada!");
//! let mut modern = Client::builder(Greeter).on_elicit(answer).modern();
//! let response = modern.call_tool("greet", json!({})).await;
//! response.assert_tool_text("Hello, Ada!");
//! assert_eq!(response.requests.len(), 1, "one elicitation, in one round");
//! # });
//! ```

use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use serde_json::{Map, Value, json};

use crate::dispatch::{Dispatcher, Outbound, Reply, SessionSlot};
use crate::protocol::{Era, Method, ProtocolVersion};
use crate::server::Config;
use crate::server::Server;
use crate::server::Session;
use crate::server::{Request, Transport};
use crate::store::ClientAnswer;

mod response;

pub use response::Response;

/// An in-process MCP client: sends JSON-RPC text to a [`Dispatcher`] exactly as a transport would.
#[derive(Debug)]
pub struct Client<S: Server> {
    dispatcher: Dispatcher<S>,
    session: SessionSlot,
    request: Request,
    era: Era,
    capabilities: Value,
    next_id: i64,
    answers: Answers,
}

/// A closure that answers one kind of input request: it gets the request's params and returns
/// the result (an `ElicitResult`, a `CreateMessageResult`, a `ListRootsResult`).
type Answer = Arc<dyn Fn(&Value) -> Value + Send + Sync>;

/// The closures a test client answers input requests with.
#[derive(Clone, Default)]
struct Answers {
    elicit: Option<Answer>,
    sample: Option<Answer>,
    roots: Option<Answer>,
}

impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answers")
            .field("elicit", &self.elicit.is_some())
            .field("sample", &self.sample.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

impl Answers {
    fn for_method(&self, method: &str) -> Option<&Answer> {
        match Method::parse(method)? {
            Method::ElicitationCreate => self.elicit.as_ref(),
            Method::SamplingCreateMessage => self.sample.as_ref(),
            Method::RootsList => self.roots.as_ref(),
            _ => None,
        }
    }
}

/// Declares `key` in a capabilities object when it is not declared yet.
fn declare(capabilities: &mut Value, key: &str) {
    if !capabilities.is_object() {
        *capabilities = json!({});
    }
    if let Some(map) = capabilities.as_object_mut() {
        map.entry(key).or_insert_with(|| json!({}));
    }
}

/// The most rounds a modern request is retried with answers before the client gives up.
const MAX_ROUNDS: usize = 16;

impl<S: Server> Client<S> {
    /// A legacy client that has sent `initialize` (2025-11-25) and `notifications/initialized`.
    ///
    /// # Panics
    ///
    /// If `initialize` fails (for example because `connect` rejected it). To send headers with
    /// `initialize`, use [`Client::builder`]; to test a rejection, [`Builder::uninitialized`].
    pub async fn legacy(server: S) -> Self {
        Self::builder(server).legacy().await
    }

    /// A legacy client that has not sent `initialize` yet.
    pub fn uninitialized(server: S, config: Config) -> Self {
        Self::builder(server).config(config).uninitialized()
    }

    /// A modern (2026-07-28) client.
    pub fn modern(server: S) -> Self {
        Self::builder(server).modern()
    }

    /// A modern client with a config.
    pub fn modern_with_config(server: S, config: Config) -> Self {
        Self::builder(server).config(config).modern()
    }

    /// Sets up a client before it sends anything: headers, capabilities, config and transport that
    /// `connect` sees from the first message on (legacy `initialize` included).
    ///
    /// ```
    /// use phantom::prelude::*;
    /// use phantom::testing::Client;
    ///
    /// #[derive(Clone)]
    /// struct Vault;
    ///
    /// #[mcp_router(name = "vault", version = "1.0.0")]
    /// impl Vault {
    ///     /// The secret.
    ///     #[tool]
    ///     async fn secret(&self) -> String {
    ///         "42".into()
    ///     }
    ///
    ///     async fn connect(&self, _session: &mut Session, request: &Request) -> Connect {
    ///         match request.bearer() {
    ///             Some("letmein") => Connect::Ok,
    ///             _ => Connect::Unauthorized(WwwAuthenticate::bearer().error("invalid_token")),
    ///         }
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let mut legacy = Client::builder(Vault).header("authorization", "Bearer letmein").legacy().await;
    /// legacy.call_tool("secret", serde_json::json!({})).await.assert_tool_text("42");
    ///
    /// let mut modern = Client::builder(Vault).header("authorization", "Bearer letmein").modern();
    /// assert_eq!(modern.list_tools(None).await.tool_names(), ["secret"]);
    ///
    /// // Without a token `initialize` is refused: 401 with the challenge.
    /// let mut anonymous = Client::builder(Vault).uninitialized();
    /// let refused = anonymous.initialize("2025-11-25").await;
    /// assert!(matches!(refused.status(), Status::Unauthorized(_)));
    /// # });
    /// ```
    pub fn builder(server: S) -> Builder<S> {
        Builder {
            server,
            config: Config::default(),
            request: Request::default(),
            capabilities: json!({}),
            answers: Answers::default(),
        }
    }

    /// Adds a transport header that handlers see from now on, and `connect` wherever it runs next.
    ///
    /// A legacy client runs `connect` once, at `initialize`, so a header it must see there goes
    /// through [`Client::builder`]; a modern client runs it on every request.
    ///
    /// # Panics
    ///
    /// If the name or value is not a valid HTTP header.
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        insert_header(&mut self.request, name, value);
        self
    }

    /// Sets the client capabilities sent by `initialize` or the modern envelope.
    #[must_use]
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The legacy session, once initialized (tests may change its allow-lists directly).
    pub fn session_mut(&mut self) -> Option<&mut Session> {
        self.session.get_mut()
    }

    /// The era this client speaks.
    pub fn era(&self) -> Era {
        self.era
    }

    /// Sends `initialize` with a protocol version, then `notifications/initialized`.
    pub async fn initialize(&mut self, version: &str) -> Response {
        let params = json!({
            "protocolVersion": version,
            "capabilities": self.capabilities,
            "clientInfo": {"name": "phantom-testing", "version": env!("CARGO_PKG_VERSION")},
        });
        let response = self
            .raw_request(Method::Initialize.as_str(), Some(params))
            .await;
        if response.json.get("result").is_some() {
            self.notify(Method::Initialized.as_str(), None).await;
        }
        response
    }

    /// Sends a request in this client's era (adding the modern `_meta` envelope when modern).
    pub async fn request(&mut self, method: &str, params: Value) -> Response {
        let params = match self.era {
            Era::Legacy => params,
            Era::Modern => with_envelope(params, &self.capabilities),
        };
        self.raw_request(method, Some(params)).await
    }

    /// Sends a request with exactly these params (no envelope added). Input requests the handler
    /// makes are answered with the client's closures (see [`Builder::on_elicit`]): a legacy
    /// server's requests as they come, a modern `input_required` result by retrying with the
    /// answers. Without a closure for a kind, a legacy request is answered with an error and a
    /// modern `input_required` result is returned as it is.
    pub async fn raw_request(&mut self, method: &str, params: Option<Value>) -> Response {
        let mut params = params;
        let mut notifications = Vec::new();
        let mut requests = Vec::new();
        for _ in 0..MAX_ROUNDS {
            let reply = self
                .exchange(method, params.as_ref(), &mut notifications, &mut requests)
                .await;
            let response = Response::new(reply, Vec::new());
            let result = response.json.get("result");
            let input = result
                .filter(|r| r["resultType"] == "input_required")
                .map(|r| (r["inputRequests"].clone(), r.get("requestState").cloned()));
            let Some((Value::Object(asked), state)) = input else {
                return Response::new(response.reply, notifications).with_requests(requests);
            };
            let mut responses = Map::new();
            for (key, request) in &asked {
                requests.push(request.clone());
                let answer = request["method"]
                    .as_str()
                    .and_then(|m| self.answers.for_method(m));
                let Some(answer) = answer else {
                    return Response::new(response.reply, notifications).with_requests(requests);
                };
                responses.insert(key.clone(), answer(&request["params"]));
            }
            let mut next = params.take().unwrap_or_else(|| json!({}));
            next["inputResponses"] = Value::Object(responses);
            match state {
                Some(state) => next["requestState"] = state,
                None => {
                    if let Some(map) = next.as_object_mut() {
                        map.remove("requestState");
                    }
                }
            }
            params = Some(next);
        }
        panic!("`{method}` still asked for input after {MAX_ROUNDS} rounds");
    }

    /// One request and its reply; answers the server's requests (legacy) while it waits.
    async fn exchange(
        &mut self,
        method: &str,
        params: Option<&Value>,
        notifications: &mut Vec<Value>,
        requests: &mut Vec<Value>,
    ) -> Reply {
        self.next_id += 1;
        let mut msg = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method});
        if let Some(params) = params {
            msg["params"] = params.clone();
        }
        let text = msg.to_string();
        let (outbound, mut rx) = Outbound::channel();
        let key = self
            .session
            .get()
            .and_then(|s| s.id.as_deref())
            .unwrap_or_default()
            .to_owned();
        let Self {
            dispatcher,
            session,
            request,
            answers,
            ..
        } = self;
        let handling = dispatcher.handle(&text, request, session, &outbound);
        tokio::pin!(handling);
        let reply = loop {
            tokio::select! {
                biased;
                reply = &mut handling => break reply,
                Some(out) = rx.recv() => {
                    Self::outgoing(dispatcher, answers, &key, &out, notifications, requests).await;
                }
            }
        };
        while let Ok(out) = rx.try_recv() {
            Self::outgoing(dispatcher, answers, &key, &out, notifications, requests).await;
        }
        reply.expect("a request gets a reply")
    }

    /// A message the server sent before its reply: a notification is recorded; a request
    /// (legacy input) is recorded and answered.
    async fn outgoing(
        dispatcher: &Dispatcher<S>,
        answers: &Answers,
        key: &str,
        text: &str,
        notifications: &mut Vec<Value>,
        requests: &mut Vec<Value>,
    ) {
        if text == Outbound::CLOSE {
            return;
        }
        let message: Value = serde_json::from_str(text).expect("outbound messages are JSON");
        let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
            notifications.push(message);
            return;
        };
        let id = match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let answer = match answers.for_method(method) {
            _ if method == Method::Ping.as_str() => ClientAnswer::Result("{}".into()),
            Some(answer) => ClientAnswer::Result(answer(&message["params"]).to_string()),
            None => ClientAnswer::Error(
                json!({"code": -32601, "message": format!("the test client has no answer for `{method}`")})
                    .to_string(),
            ),
        };
        requests.push(json!({"method": method, "params": message["params"]}));
        dispatcher.inner.replies.deliver(key, &id, answer).await;
    }

    /// Calls a tool and cancels the call after `after`, as a client does: on a legacy session
    /// with `notifications/cancelled` (the call then gets no reply), on a modern request by
    /// dropping it (closing its response). Returns what the handling sent before it stopped.
    ///
    /// # Panics
    ///
    /// If the call finishes before `after`, or a cancelled legacy call still replies.
    pub async fn cancel_tool_call(
        &mut self,
        name: &str,
        arguments: Value,
        after: std::time::Duration,
    ) -> Vec<Value> {
        let params = json!({"name": name, "arguments": arguments});
        let params = match self.era {
            Era::Legacy => params,
            Era::Modern => with_envelope(params, &self.capabilities),
        };
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": Method::ToolsCall.as_str(), "params": params});
        let text = msg.to_string();
        let snapshot = self.session.get().cloned();
        let era = self.era;
        let (outbound, mut rx) = Outbound::channel();
        let Self {
            dispatcher,
            session,
            request,
            ..
        } = self;
        let handling = dispatcher.handle(&text, request, session, &outbound);
        tokio::pin!(handling);
        let timer = tokio::time::sleep(after);
        tokio::pin!(timer);
        let mut notifications = Vec::new();
        loop {
            tokio::select! {
                biased;
                reply = &mut handling => panic!("`{name}` finished before it was cancelled: {reply:?}"),
                Some(out) = rx.recv() => {
                    if out != Outbound::CLOSE {
                        notifications.push(serde_json::from_str(&out).expect("outbound messages are JSON"));
                    }
                }
                () = &mut timer => break,
            }
        }
        if era == Era::Legacy {
            let cancel = json!({"jsonrpc": "2.0", "method": Method::Cancelled.as_str(),
                                "params": {"requestId": id, "reason": "cancelled by the test"}});
            let mut side = SessionSlot::new(snapshot);
            dispatcher
                .handle(&cancel.to_string(), request, &mut side, &Outbound::none())
                .await;
            let reply = tokio::time::timeout(std::time::Duration::from_secs(5), &mut handling)
                .await
                .expect("a cancelled call ends");
            assert!(reply.is_none(), "a cancelled call gets no reply: {reply:?}");
        }
        while let Ok(out) = rx.try_recv() {
            if out != Outbound::CLOSE {
                notifications.push(serde_json::from_str(&out).expect("outbound messages are JSON"));
            }
        }
        notifications
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Option<Value>) -> Option<Reply> {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            msg["params"] = params;
        }
        self.send(&msg.to_string()).await
    }

    /// Sends raw text, as a transport would receive it.
    pub async fn send(&mut self, text: &str) -> Option<Reply> {
        self.dispatcher
            .handle(text, &self.request, &mut self.session, &Outbound::none())
            .await
    }

    /// `tools/list` (first page, or the page after `cursor`).
    pub async fn list_tools(&mut self, cursor: Option<&str>) -> Response {
        self.request(Method::ToolsList.as_str(), cursor_params(cursor))
            .await
    }

    /// `prompts/list`.
    pub async fn list_prompts(&mut self, cursor: Option<&str>) -> Response {
        self.request(Method::PromptsList.as_str(), cursor_params(cursor))
            .await
    }

    /// `resources/list`.
    pub async fn list_resources(&mut self, cursor: Option<&str>) -> Response {
        self.request(Method::ResourcesList.as_str(), cursor_params(cursor))
            .await
    }

    /// `resources/templates/list`.
    pub async fn list_resource_templates(&mut self, cursor: Option<&str>) -> Response {
        self.request(
            Method::ResourcesTemplatesList.as_str(),
            cursor_params(cursor),
        )
        .await
    }

    /// `tools/call`.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Response {
        self.request(
            Method::ToolsCall.as_str(),
            json!({"name": name, "arguments": arguments}),
        )
        .await
    }

    /// `prompts/get`.
    pub async fn get_prompt(&mut self, name: &str, arguments: Value) -> Response {
        self.request(
            Method::PromptsGet.as_str(),
            json!({"name": name, "arguments": arguments}),
        )
        .await
    }

    /// `resources/read`.
    pub async fn read_resource(&mut self, uri: &str) -> Response {
        self.request(Method::ResourcesRead.as_str(), json!({"uri": uri}))
            .await
    }

    /// `completion/complete` of a prompt argument.
    pub async fn complete_prompt(&mut self, prompt: &str, argument: &str, value: &str) -> Response {
        let params = json!({
            "ref": {"type": "ref/prompt", "name": prompt},
            "argument": {"name": argument, "value": value},
        });
        self.request(Method::CompletionComplete.as_str(), params)
            .await
    }

    /// `completion/complete` of a resource template parameter (`template` in RFC 6570 form).
    pub async fn complete_resource(
        &mut self,
        template: &str,
        argument: &str,
        value: &str,
    ) -> Response {
        let params = json!({
            "ref": {"type": "ref/resource", "uri": template},
            "argument": {"name": argument, "value": value},
        });
        self.request(Method::CompletionComplete.as_str(), params)
            .await
    }
}

/// A [`Client`] being set up: [`Client::builder`], then [`legacy`](Builder::legacy),
/// [`modern`](Builder::modern) or [`uninitialized`](Builder::uninitialized).
#[derive(Debug)]
#[must_use = "a builder does nothing until `legacy`, `modern` or `uninitialized` makes the client"]
pub struct Builder<S: Server> {
    server: S,
    config: Config,
    request: Request,
    capabilities: Value,
    answers: Answers,
}

impl<S: Server> Builder<S> {
    /// Adds a transport header (e.g. `authorization`) that `connect` and handlers see.
    ///
    /// # Panics
    ///
    /// If the name or value is not a valid HTTP header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        insert_header(&mut self.request, name, value);
        self
    }

    /// Sets the client capabilities sent by `initialize` or the modern envelope (default `{}`).
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Answers form and URL elicitations with `answer` (it gets the request's params and returns
    /// an `ElicitResult`), and declares the `elicitation` capability (form and URL) unless the
    /// capabilities set already declare it.
    pub fn on_elicit(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        self.answers.elicit = Some(Arc::new(answer));
        if self.capabilities.get("elicitation").is_none() {
            declare(&mut self.capabilities, "elicitation");
            self.capabilities["elicitation"] = json!({"form": {}, "url": {}});
        }
        self
    }

    /// Answers sampling requests with `answer` (a `CreateMessageResult`), and declares
    /// `sampling`.
    pub fn on_sample(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        self.answers.sample = Some(Arc::new(answer));
        declare(&mut self.capabilities, "sampling");
        self
    }

    /// Answers `roots/list` with `answer` (a `ListRootsResult`), and declares `roots`.
    pub fn on_roots(mut self, answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        self.answers.roots = Some(Arc::new(answer));
        declare(&mut self.capabilities, "roots");
        self
    }

    /// Sets the server's runtime config (default [`Config::default`]).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Sets the transport `connect` and handlers see in [`Request::transport`] (default
    /// [`Transport::InProcess`]); [`Transport::Stdio`] tests what a server does on stdio, where
    /// requests have no headers. It only changes what they see: messages still go straight to the
    /// dispatcher.
    pub fn transport(mut self, transport: Transport) -> Self {
        self.request.transport = transport;
        self
    }

    /// A legacy client that has sent `initialize` (2025-11-25) and `notifications/initialized`.
    ///
    /// # Panics
    ///
    /// If `initialize` fails (for example because `connect` rejected it); use
    /// [`Builder::uninitialized`] to test that.
    pub async fn legacy(self) -> Client<S> {
        let mut client = self.uninitialized();
        let response = client
            .initialize(ProtocolVersion::V2025_11_25.as_str())
            .await;
        assert!(
            response.json.get("result").is_some(),
            "`initialize` failed (use `Builder::uninitialized` to test a refusal): {}",
            response.json
        );
        client
    }

    /// A legacy client that has not sent `initialize` yet.
    pub fn uninitialized(self) -> Client<S> {
        self.client(Era::Legacy)
    }

    /// A modern (2026-07-28) client: every request carries the `_meta` envelope, no session.
    pub fn modern(self) -> Client<S> {
        self.client(Era::Modern)
    }

    fn client(self, era: Era) -> Client<S> {
        Client {
            dispatcher: Dispatcher::with_config(self.server, self.config),
            session: SessionSlot::default(),
            request: self.request,
            era,
            capabilities: self.capabilities,
            next_id: 0,
            answers: self.answers,
        }
    }
}

fn insert_header(request: &mut Request, name: &str, value: &str) {
    request.headers.insert(
        HeaderName::from_bytes(name.as_bytes()).expect("header name"),
        HeaderValue::from_str(value).expect("header value"),
    );
}

fn cursor_params(cursor: Option<&str>) -> Value {
    match cursor {
        Some(c) => json!({"cursor": c}),
        None => json!({}),
    }
}

/// Adds the 2026-07-28 `_meta` envelope to params.
pub fn with_envelope(mut params: Value, capabilities: &Value) -> Value {
    if !params.is_object() {
        params = json!({});
    }
    let meta = params
        .as_object_mut()
        .expect("object")
        .entry("_meta")
        .or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.entry("io.modelcontextprotocol/protocolVersion")
            .or_insert_with(|| "2026-07-28".into());
        meta.entry("io.modelcontextprotocol/clientCapabilities")
            .or_insert_with(|| capabilities.clone());
        meta.entry("io.modelcontextprotocol/clientInfo")
            .or_insert_with(
                || json!({"name": "phantom-testing", "version": env!("CARGO_PKG_VERSION")}),
            );
    }
    params
}
