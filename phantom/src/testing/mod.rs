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
//!
//! # What a client hears
//!
//! Besides the reply to each request, a client hears the server on up to three streams, and the
//! kit gives each as a client of that era gets it:
//!
//! | what | era | on the wire | in the kit |
//! |---|---|---|---|
//! | `notifications/progress` (the request carried a `progressToken`) and `notifications/message` (the client asked for a log level) of one request | both | that request's response, before its result | [`Response::notifications`] |
//! | `notifications/resources/updated` after `resources/subscribe`, list changes, `notifications/elicitation/complete` | 2025-11-25 | the session's stream: its HTTP GET stream, stdio between replies | [`Client::stream`] |
//! | what a listen's filter asked for and the server honours: list changes, `notifications/resources/updated`, `notifications/tasks` of followed tasks, each tagged with the listen's id | 2026-07-28 | the `subscriptions/listen` response, its acknowledgement first | [`Client::listen`] |
//! | a task's progress to its end | both | `notifications/tasks` on a 2026-07-28 listen with `taskIds`; a 2025-11-25 client polls `tasks/get` | [`Client::listen`], [`Client::wait_task`] |
//!
//! [`Client::stream`] and [`Client::listen`] both return a [`Listen`], read with
//! [`next`](Listen::next) or [`next_within`](Listen::next_within). Either one hears only what is
//! announced while it is open, as over HTTP, and panics on a client of the other era, naming
//! its counterpart. Changes come from the server's [`Notifier`](crate::Notifier): a handler
//! takes one as a parameter; a test keeps the config's, `let config = Config::default(); let
//! notifier = config.notifier.clone();`, and gives `config` to [`Builder::config`].
//!
//! A request's own messages, in both eras:
//!
//! ```
//! use phantom::prelude::*;
//! use phantom::testing::Client;
//! use serde_json::json;
//!
//! #[derive(Clone)]
//! struct Counter;
//!
//! #[mcp_router(name = "counter", version = "1.0.0")]
//! impl Counter {
//!     /// Counts to `n`, reporting progress, and logs when done.
//!     #[tool]
//!     async fn count(&self, ctx: Ctx, n: u32) -> String {
//!         for i in 1..=n {
//!             ctx.progress(f64::from(i), Some(f64::from(n)), None).await;
//!         }
//!         ctx.log(LogLevel::Info, "counted").await;
//!         format!("counted to {n}")
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! // 2025-11-25: the session asks for log messages once, a request for progress with a token.
//! let mut legacy = Client::legacy(Counter).await;
//! legacy.request("logging/setLevel", json!({"level": "info"})).await.result();
//! let call = json!({"name": "count", "arguments": {"n": 2}, "_meta": {"progressToken": "p"}});
//! let response = legacy.request("tools/call", call.clone()).await;
//! response.assert_tool_text("counted to 2");
//! let methods: Vec<_> = response.notifications.iter().filter_map(|n| n["method"].as_str()).collect();
//! assert_eq!(methods, ["notifications/progress", "notifications/progress", "notifications/message"]);
//!
//! // 2026-07-28: each request names its log level in `_meta`.
//! let mut modern = Client::modern(Counter);
//! let mut call = call;
//! call["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
//! let response = modern.request("tools/call", call).await;
//! assert_eq!(response.notifications[1]["params"]["progress"], 2.0);
//! assert_eq!(response.notifications[2]["params"], json!({"level": "info", "data": "counted"}));
//! # });
//! ```
//!
//! The same change heard in both eras: on a 2025-11-25 session's stream after
//! `resources/subscribe`, and on a 2026-07-28 listen that asked for it.
//!
//! ```
//! use std::time::Duration;
//!
//! use phantom::Config;
//! use phantom::prelude::*;
//! use phantom::testing::Client;
//! use serde_json::json;
//!
//! #[derive(Clone)]
//! struct Notes;
//!
//! #[mcp_router(name = "notes", version = "1.0.0")]
//! impl Notes {
//!     /// One note.
//!     #[resource("notes:///<id>")]
//!     async fn note(&self, id: u32) -> String {
//!         format!("note {id}")
//!     }
//!
//!     /// Edits a note, and says so to the clients that follow it.
//!     #[tool]
//!     async fn edit(&self, id: u32, notifier: Notifier) -> &'static str {
//!         notifier.notify_resource_updated(format!("notes:///{id}")).await.expect("the in-memory bus");
//!         "edited"
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let wait = Duration::from_secs(5);
//! let updated = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
//!                      "params": {"uri": "notes:///1"}});
//!
//! // 2025-11-25: subscribe, then read the session's stream.
//! let mut legacy = Client::legacy(Notes).await;
//! legacy.request("resources/subscribe", json!({"uri": "notes:///1"})).await.result();
//! let mut stream = legacy.stream();
//! legacy.call_tool("edit", json!({"id": 1})).await.assert_tool_text("edited");
//! assert_eq!(stream.next_within(wait).await, Some(updated.clone()));
//!
//! // 2026-07-28: a listen names what it wants; what it hears carries its id.
//! let config = Config::default();
//! let notifier = config.notifier.clone();
//! let mut modern = Client::builder(Notes).config(config).modern();
//! let mut listen = modern.listen(json!({"resourceSubscriptions": ["notes:///1"], "toolsListChanged": true}));
//! let ack = listen.next_within(wait).await.expect("the acknowledgement");
//! assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
//! let id = &ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"];
//! modern.call_tool("edit", json!({"id": 1})).await.assert_tool_text("edited");
//! notifier.notify_tools_changed().await.unwrap(); // from outside a handler
//! let heard = listen.next_within(wait).await.expect("the update");
//! assert_eq!(heard["params"]["uri"], updated["params"]["uri"]);
//! assert_eq!(&heard["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], id);
//! let heard = listen.next_within(wait).await.expect("the list change");
//! assert_eq!(heard["method"], "notifications/tools/list_changed");
//! # });
//! ```
//!
//! A task, followed on a 2026-07-28 listen and polled as a 2025-11-25 client does:
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! use phantom::prelude::*;
//! use phantom::testing::Client;
//! use serde_json::json;
//! use tokio::sync::Notify;
//!
//! #[derive(Clone, Default)]
//! struct Jobs {
//!     gate: Arc<Notify>,
//! }
//!
//! #[mcp_router(name = "jobs", version = "1.0.0")]
//! impl Jobs {
//!     /// Exports once let through.
//!     #[task_handler(ttl = "1m")]
//!     async fn export(&self) -> String {
//!         self.gate.notified().await;
//!         "exported".into()
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let jobs = Jobs::default();
//! let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
//!
//! let mut modern = Client::builder(jobs.clone()).capabilities(tasks.clone()).modern();
//! let created = modern.call_tool("export", json!({})).await;
//! let task = created.result()["taskId"].as_str().expect("a task").to_owned();
//! let mut follow = modern.listen(json!({"taskIds": [task]}));
//! let ack = follow.next_within(Duration::from_secs(5)).await.expect("the acknowledgement");
//! assert_eq!(ack["params"]["notifications"]["taskIds"], json!([task]));
//! jobs.gate.notify_one();
//! let done = follow.next_within(Duration::from_secs(5)).await.expect("the task's end");
//! assert_eq!(done["method"], "notifications/tasks");
//! assert_eq!(done["params"]["status"], "completed");
//! assert_eq!(done["params"]["result"]["content"][0]["text"], "exported");
//!
//! let mut legacy = Client::builder(jobs.clone()).capabilities(tasks).legacy().await;
//! let created = legacy.call_tool("export", json!({})).await;
//! let task = created.result()["taskId"].as_str().expect("a task").to_owned();
//! jobs.gate.notify_one();
//! let done = legacy.wait_task(&task, &["completed"]).await;
//! assert_eq!(done.result()["result"]["content"][0]["text"], "exported");
//! # });
//! ```

use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::dispatch::Dispatcher;
use crate::kernel::{Outbound, Reply};
use crate::protocol::{Era, Method, ProtocolVersion};
use crate::server::Config;
use crate::server::Server;
use crate::session::Session;
use crate::session::SessionSlot;
use crate::session::{Request, Transport};

pub mod contract;
mod exchange;
mod response;
mod streams;
mod tasks;

use exchange::{Answers, declare};
pub use response::Response;
pub use streams::Listen;

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
    /// use phantom::dispatch::Status;
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

    /// The served notifier: what a background job of the app announces changes with, so this
    /// client's streams hear them. (To build the app with it, take `config.notifier.clone()`
    /// from the config given to [`Builder::config`].)
    pub fn notifier(&self) -> &crate::Notifier {
        self.dispatcher.notifier()
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
