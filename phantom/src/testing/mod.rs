#![doc = include_str!("../docs/testing.md")]

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
#[cfg(feature = "client")]
mod remote;
mod response;
mod streams;
mod tasks;

/// What [`Response::status`] answers: the transport status of a reply.
pub use crate::dispatch::Status;
use exchange::{Answers, declare};
#[cfg(feature = "client")]
pub use remote::{Remote, RemoteBuilder};
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
    /// client's streams hear them. (To build the app with it, take `config.notifier().clone()`
    /// from the config given to [`Builder::config`].)
    pub fn notifier(&self) -> &crate::Notifier {
        self.dispatcher.notifier()
    }

    /// Runtime registration of the served instance this client talks to
    /// ([`Dispatcher::registry`]): add, remove, disable and enable entries mid-test.
    pub fn registry(&self) -> crate::registry::Registry<S> {
        self.dispatcher.registry()
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
