//! An MCP client (feature `client`): talks to any MCP server — phantom's or anyone's — over
//! Streamable HTTP or stdio, in either protocol era.
//!
//! ```no_run
//! # async fn run() -> Result<(), phantom::client::ClientError> {
//! use phantom::client::Client;
//! use serde_json::json;
//!
//! let client = Client::http("http://127.0.0.1:4000/mcp")
//!     .on_elicit(|_request| async { json!({"action": "accept", "content": {"confirm": true}}) })
//!     .connect()
//!     .await?;
//! let tools = client.list_tools(None).await?;
//! let result = client.call_tool("search", json!({"query": "memory"})).await?;
//! println!("{} tools; search says {}", tools.items.len(), result.text());
//! client.close().await;
//! # Ok(()) }
//! ```
//!
//! **Eras.** [`Era::Auto`] (the default) asks `server/discover` and speaks 2026-07-28 when the
//! server offers it — every request carries its `_meta` envelope and the `Mcp-Method` /
//! `Mcp-Name` headers, and a result that needs input (`input_required`) is answered through
//! the handlers and retried with `inputResponses` and the `requestState` — and otherwise
//! `initialize`s a 2025-11-25 session: the session id goes back on every request, the server's
//! requests on a response's stream (elicitation, sampling, roots, ping) are answered through the
//! same handlers, and [`Client::close`] ends the session with `DELETE`.
//!
//! **Handlers.** What the server asks is answered by the closure given for it
//! ([`Builder::on_elicit`], [`Builder::on_sample`], [`Builder::on_roots`]); the capabilities
//! declared to the server are those with a handler. Without one, the request is answered with a
//! JSON-RPC error. Progress and log notifications reach [`Builder::on_notification`].
//!
//! **Tasks.** With [`Builder::tasks`], a tool that can run as a task answers
//! [`Client::call_tool_or_task`] with [`ToolCall::Task`]; follow it with [`Client::wait_task`],
//! answer what it asks with [`Client::update_task`], stop it with [`Client::cancel_task`].
//!
//! **OAuth.** With the `oauth` feature, `Builder::oauth(OAuth::new(redirect_uri))` connects to a
//! server behind MCP authorization: its first `401` runs discovery, registration, the
//! authorization (through an `Authorize` step) and the token request, and the request is sent
//! again with the token; a failure is [`ClientError::Auth`], naming the [`AuthStep`].
//!
//! **Sharing and cancelling.** Calls take `&self`: put the client in an `Arc` for concurrent
//! callers. Dropping a call's future (or its [timeout](Builder::timeout) passing) cancels it on
//! the server: `notifications/cancelled` on a legacy session or stdio, the closed connection of a
//! 2026-07-28 HTTP request.

mod calls;
mod error;
mod follow;
mod handlers;
mod http;
#[cfg(feature = "oauth")]
mod oauth;
mod responder;
mod session;
mod stdio;
mod tasks;
mod types;

use std::sync::Arc;

use futures_util::stream::BoxStream;
use serde_json::Value;

pub(crate) use calls::x_mcp_headers;
pub use error::{AuthStep, ClientError};
#[cfg(feature = "oauth")]
pub use oauth::{Authorize, FetchRedirect, MemoryTokenStore, OAuth, TokenStore, Tokens};
pub use responder::Responder;
pub use session::Client;
pub use tasks::ToolCall;
pub use types::{CallToolResult, Page, Prompt, Resource, Tool};

use crate::kernel::BoxFuture;

/// The messages that answer one request, in order (the response last).
type Messages = BoxStream<'static, Result<Value, ClientError>>;

/// Which protocol era a [`Client`] speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Era {
    /// 2026-07-28 when the server answers `server/discover`, else a 2025-11-25 session.
    #[default]
    Auto,
    /// 2025-11-25: `initialize`, a session.
    Legacy,
    /// 2026-07-28: stateless requests with the `_meta` envelope.
    Modern,
}

/// An answer to one kind of server request: the `result` to send back.
type Handler = Arc<dyn Fn(Value) -> BoxFuture<'static, Value> + Send + Sync>;

/// A notification callback: the method and its params.
type Listener = Arc<dyn Fn(&str, &Value) + Send + Sync>;

/// Where a [`Client`] connects.
enum Target {
    Http {
        url: String,
        headers: Vec<(::http::HeaderName, ::http::HeaderValue)>,
    },
    Stdio {
        program: String,
        args: Vec<String>,
    },
}

/// Sets up a [`Client`]: where it connects, the era, headers, the handlers of server requests.
#[must_use]
pub struct Builder {
    target: Target,
    era: Era,
    elicit: Option<Handler>,
    sample: Option<Handler>,
    roots: Option<Handler>,
    listener: Option<Listener>,
    timeout: std::time::Duration,
    bad_header: Option<String>,
    tasks: bool,
    capabilities: Option<Value>,
    log_level: Option<String>,
    client_info: Option<crate::protocol::Implementation>,
    legacy_version: crate::protocol::ProtocolVersion,
    /// How the HTTP link gets tokens ([`Builder::oauth`]).
    auth: http::Auth,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("era", &self.era)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn handler<F, Fut>(answer: F) -> Handler
where
    F: Fn(Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Value> + Send + 'static,
{
    Arc::new(move |params| Box::pin(answer(params)))
}

impl Builder {
    fn new(target: Target) -> Self {
        Self {
            target,
            era: Era::Auto,
            elicit: None,
            sample: None,
            roots: None,
            listener: None,
            timeout: std::time::Duration::from_secs(60),
            bad_header: None,
            tasks: false,
            capabilities: None,
            log_level: None,
            client_info: None,
            legacy_version: crate::protocol::ProtocolVersion::LATEST_LEGACY,
            auth: Default::default(),
        }
    }

    /// Gets tokens with OAuth when the server asks for one (feature `oauth`): on a `401`, or a
    /// `403` for a missing scope, the client runs the flow [`OAuth`] describes and sends the
    /// request again once, with `Authorization: Bearer`.
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.auth = Some(oauth);
        self
    }

    /// Speaks this era (default [`Era::Auto`]).
    pub fn era(mut self, era: Era) -> Self {
        self.era = era;
        self
    }

    /// Sends `Authorization: Bearer <token>` with every HTTP request.
    pub fn bearer(self, token: &str) -> Self {
        self.header("authorization", &format!("Bearer {token}"))
    }

    /// Sends a header with every HTTP request (a name or value that is not a valid header makes
    /// [`Builder::connect`] fail, naming it).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Target::Http { headers, .. } = &mut self.target {
            match (
                ::http::HeaderName::try_from(name),
                ::http::HeaderValue::try_from(value),
            ) {
                (Ok(n), Ok(v)) => headers.push((n, v)),
                _ => self.bad_header = Some(name.to_owned()),
            }
        }
        self
    }

    /// Answers `elicitation/create` with what `answer` returns (an `ElicitResult`:
    /// `{"action": "accept", "content": {…}}`), and declares the `elicitation` capability.
    pub fn on_elicit<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        self.elicit = Some(handler(answer));
        self
    }

    /// Answers `sampling/createMessage` (a `CreateMessageResult`), declaring `sampling`.
    pub fn on_sample<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        self.sample = Some(handler(answer));
        self
    }

    /// Answers `roots/list` (a `ListRootsResult`: `{"roots": […]}`), declaring `roots`.
    pub fn on_roots<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        self.roots = Some(handler(answer));
        self
    }

    /// Hears every notification the server sends — while a request runs
    /// (`notifications/progress`, `notifications/message`, …) and outside any request
    /// (`notifications/…/list_changed`, the `notifications/resources/updated` of
    /// [`Client::subscribe`]; over HTTP a stream is kept open for them): its method and params.
    ///
    /// Listeners add up: this one hears what the ones set before
    /// ([`on_progress`](Self::on_progress), [`on_log`](Self::on_log), another `on_notification`)
    /// hear too.
    pub fn on_notification(
        mut self,
        listener: impl Fn(&str, &Value) + Send + Sync + 'static,
    ) -> Self {
        self.listener = Some(match self.listener.take() {
            None => Arc::new(listener),
            Some(before) => Arc::new(move |method: &str, params: &Value| {
                before(method, params);
                listener(method, params);
            }),
        });
        self
    }

    /// Hears each `notifications/progress` (its params: `progressToken`, `progress`, `total`,
    /// `message`) of the client's calls.
    pub fn on_progress(self, listener: impl Fn(&Value) + Send + Sync + 'static) -> Self {
        self.on_notification(move |method, params| {
            if method == "notifications/progress" {
                listener(params);
            }
        })
    }

    /// Asks the server for log messages at `level` and above (`debug`, `info`, `notice`,
    /// `warning`, `error`, …): `logging/setLevel` once connected in 2025-11-25, the
    /// `io.modelcontextprotocol/logLevel` of every request's `_meta` in 2026-07-28. Hear them with
    /// [`on_log`](Self::on_log).
    pub fn log_level(mut self, level: &str) -> Self {
        self.log_level = Some(level.to_owned());
        self
    }

    /// How this client names itself to servers: `clientInfo` in `initialize` and in every
    /// 2026-07-28 request's `_meta` (default: `phantom-client` and this crate's version).
    pub fn client_info(mut self, info: crate::protocol::Implementation) -> Self {
        self.client_info = Some(info);
        self
    }

    /// The protocol version a legacy session offers in `initialize` (default
    /// [`ProtocolVersion::LATEST_LEGACY`](crate::protocol::ProtocolVersion::LATEST_LEGACY),
    /// 2025-11-25), for a server that speaks an older one. A 2026-07-28 version here is refused
    /// by [`connect`](Self::connect): that era has no `initialize` (choose it with
    /// [`era`](Self::era)).
    pub fn legacy_version(mut self, version: crate::protocol::ProtocolVersion) -> Self {
        self.legacy_version = version;
        self
    }

    /// Hears each log message the server sends (`notifications/message`: `level`, `logger`,
    /// `data`).
    pub fn on_log(self, listener: impl Fn(&Value) + Send + Sync + 'static) -> Self {
        self.on_notification(move |method, params| {
            if method == "notifications/message" {
                listener(params);
            }
        })
    }

    /// Declares the Tasks extension (`io.modelcontextprotocol/tasks`): tools that can run as
    /// tasks answer [`Client::call_tool_or_task`] with a task.
    pub fn tasks(mut self) -> Self {
        self.tasks = true;
        self
    }

    /// Declares exactly these client capabilities (`{"elicitation": {}, …}`) instead of the ones
    /// the handlers imply: a gateway declares its own client's.
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// How long one request may wait for its answer (default 60 s; the server's own requests
    /// answered meanwhile count).
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Connects: starts the process (stdio), then negotiates the era.
    pub async fn connect(self) -> Result<Client, ClientError> {
        if let Some(name) = self.bad_header {
            return Err(ClientError::Transport(format!(
                "the header `{name}` is not a valid HTTP header name and value"
            )));
        }
        Client::connect(self).await
    }
}
