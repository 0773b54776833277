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
//! # });
//! ```

use base64::Engine as _;
use http::{HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::dispatch::{Dispatcher, Outbound, Reply, SessionSlot, Status};
use crate::protocol::{Era, Method, ProtocolVersion};
use crate::server::Config;
use crate::server::Request;
use crate::server::Server;
use crate::server::Session;

/// An in-process MCP client: sends JSON-RPC text to a [`Dispatcher`] exactly as a transport would.
#[derive(Debug)]
pub struct Client<S: Server> {
    dispatcher: Dispatcher<S>,
    session: SessionSlot,
    request: Request,
    era: Era,
    capabilities: Value,
    next_id: i64,
}

impl<S: Server> Client<S> {
    /// A legacy client that has sent `initialize` (2025-11-25) and `notifications/initialized`.
    ///
    /// # Panics
    ///
    /// If `initialize` fails (for example because `connect` rejected it); use
    /// [`Client::uninitialized`] to test that.
    pub async fn legacy(server: S) -> Self {
        let mut client = Self::uninitialized(server, Config::default());
        client
            .initialize(ProtocolVersion::V2025_11_25.as_str())
            .await
            .result();
        client
    }

    /// A legacy client that has not sent `initialize` yet.
    pub fn uninitialized(server: S, config: Config) -> Self {
        Self {
            dispatcher: Dispatcher::with_config(server, config),
            session: SessionSlot::default(),
            request: Request::default(),
            era: Era::Legacy,
            capabilities: json!({}),
            next_id: 0,
        }
    }

    /// A modern (2026-07-28) client.
    pub fn modern(server: S) -> Self {
        Self::modern_with_config(server, Config::default())
    }

    /// A modern client with a config.
    pub fn modern_with_config(server: S, config: Config) -> Self {
        Self {
            era: Era::Modern,
            ..Self::uninitialized(server, config)
        }
    }

    /// Adds a transport header that `connect` and handlers see (e.g. `authorization`).
    ///
    /// # Panics
    ///
    /// If the name or value is not a valid HTTP header.
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.request.headers.insert(
            HeaderName::from_bytes(name.as_bytes()).expect("header name"),
            HeaderValue::from_str(value).expect("header value"),
        );
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

    /// Sends a request with exactly these params (no envelope added).
    pub async fn raw_request(&mut self, method: &str, params: Option<Value>) -> Response {
        self.next_id += 1;
        let mut msg = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method});
        if let Some(params) = params {
            msg["params"] = params;
        }
        let (outbound, mut rx) = Outbound::channel();
        let reply = self
            .dispatcher
            .handle(
                &msg.to_string(),
                &self.request,
                &mut self.session,
                &outbound,
            )
            .await
            .expect("a request gets a reply");
        let mut notifications = Vec::new();
        while let Ok(text) = rx.try_recv() {
            notifications.push(serde_json::from_str(&text).expect("outbound messages are JSON"));
        }
        Response::new(reply, notifications)
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

/// One reply, decoded, with assertions. Every assertion panics with the whole reply on failure.
#[derive(Debug, Clone)]
pub struct Response {
    /// The reply as the dispatcher produced it.
    pub reply: Reply,
    /// The decoded body.
    pub json: Value,
    /// What the handling sent before the reply (progress, log messages), decoded, in order.
    pub notifications: Vec<Value>,
}

impl Response {
    fn new(reply: Reply, notifications: Vec<Value>) -> Self {
        let json = serde_json::from_str(&reply.body).expect("the dispatcher writes valid JSON");
        Self {
            reply,
            json,
            notifications,
        }
    }

    /// The transport status.
    pub fn status(&self) -> &Status {
        &self.reply.status
    }

    /// The `result` object.
    ///
    /// # Panics
    ///
    /// If the reply is an error.
    #[track_caller]
    pub fn result(&self) -> &Value {
        self.json
            .get("result")
            .unwrap_or_else(|| panic!("expected a result, got {}", self.json))
    }

    /// The `error` object.
    ///
    /// # Panics
    ///
    /// If the reply is a result.
    #[track_caller]
    pub fn error(&self) -> &Value {
        self.json
            .get("error")
            .unwrap_or_else(|| panic!("expected an error, got {}", self.json))
    }

    /// Asserts a JSON-RPC error with this code.
    #[track_caller]
    pub fn assert_error(&self, code: i64) -> &Self {
        let got = self.error()["code"].as_i64();
        assert_eq!(
            got,
            Some(code),
            "expected JSON-RPC error {code}, got {}",
            self.json
        );
        self
    }

    /// Asserts a successful tool result whose text blocks join to `expected`.
    #[track_caller]
    pub fn assert_tool_text(&self, expected: &str) -> &Self {
        let result = self.result();
        assert_ne!(
            result["isError"],
            json!(true),
            "expected a successful tool result, got {}",
            self.json
        );
        assert_eq!(
            texts(&result["content"]),
            expected,
            "tool text differs in {}",
            self.json
        );
        self
    }

    /// Asserts a successful tool result with this `structuredContent`.
    #[track_caller]
    pub fn assert_tool_structured(&self, expected: &Value) -> &Self {
        let result = self.result();
        assert_ne!(
            result["isError"],
            json!(true),
            "expected a successful tool result, got {}",
            self.json
        );
        assert_eq!(
            &result["structuredContent"], expected,
            "structuredContent differs in {}",
            self.json
        );
        self
    }

    /// Asserts an `isError: true` tool result whose text contains `fragment`.
    #[track_caller]
    pub fn assert_tool_error(&self, fragment: &str) -> &Self {
        let result = self.result();
        assert_eq!(
            result["isError"],
            json!(true),
            "expected isError: true, got {}",
            self.json
        );
        let text = texts(&result["content"]);
        assert!(
            text.contains(fragment),
            "tool error {text:?} does not contain {fragment:?}"
        );
        self
    }

    /// Asserts that the tool result has a block of this `type` (`image`, `audio`, `resource_link`,
    /// `resource`) and returns it.
    #[track_caller]
    pub fn assert_tool_content(&self, kind: &str) -> &Value {
        let content = &self.result()["content"];
        content
            .as_array()
            .and_then(|blocks| blocks.iter().find(|b| b["type"] == kind))
            .unwrap_or_else(|| panic!("no `{kind}` block in {}", self.json))
    }

    /// Asserts that the first resource contents are this text.
    #[track_caller]
    pub fn assert_resource_text(&self, expected: &str) -> &Self {
        let first = &self.result()["contents"][0];
        assert_eq!(
            first["text"].as_str(),
            Some(expected),
            "resource text differs in {}",
            self.json
        );
        self
    }

    /// Asserts that the first resource contents are these bytes.
    #[track_caller]
    pub fn assert_resource_blob(&self, expected: &[u8]) -> &Self {
        let first = &self.result()["contents"][0];
        let blob = first["blob"]
            .as_str()
            .unwrap_or_else(|| panic!("no blob in {}", self.json));
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob)
            .expect("blob is base64");
        assert_eq!(bytes, expected, "resource blob differs in {}", self.json);
        self
    }

    /// Asserts that prompt message `index` has this role and text.
    #[track_caller]
    pub fn assert_prompt_message(&self, index: usize, role: &str, text: &str) -> &Self {
        let msg = &self.result()["messages"][index];
        assert_eq!(
            msg["role"].as_str(),
            Some(role),
            "role differs in {}",
            self.json
        );
        assert_eq!(
            msg["content"]["text"].as_str(),
            Some(text),
            "text differs in {}",
            self.json
        );
        self
    }
}

fn texts(content: &Value) -> String {
    content
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}
