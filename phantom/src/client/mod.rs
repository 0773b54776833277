//! An MCP client (feature `client`): talks to any MCP server — phantom's or anyone's — over
//! Streamable HTTP or stdio, in either protocol era.
//!
//! ```no_run
//! # async fn run() -> Result<(), phantom::client::ClientError> {
//! use phantom::client::Client;
//! use phantom::input::{Root, Sampled};
//! use phantom::protocol::{CreateMessageRequest, ElicitRequest, ElicitResult, ErrorObject};
//! use serde_json::{Map, json};
//!
//! let client = Client::http("http://127.0.0.1:4000/mcp")
//!     // A form: confirm, and let the form's defaults fill in the rest.
//!     .on_elicit(|request: ElicitRequest| async move {
//!         let mut content = Map::new();
//!         content.insert("confirm".into(), true.into());
//!         ElicitResult::accept_with_defaults(&request, content)
//!     })
//!     .on_sample(|request: CreateMessageRequest| async move {
//!         let asked = request.messages.last().and_then(|m| m.as_text()).unwrap_or_default();
//!         Ok::<_, ErrorObject>(Sampled {
//!             role: "assistant".into(),
//!             content: json!({"type": "text", "text": format!("you said: {asked}")}),
//!             model: "echo".into(),
//!             stop_reason: Some("endTurn".into()),
//!         })
//!     })
//!     .on_roots(|| async {
//!         vec![Root { uri: "file:///work".into(), name: Some("work".into()) }]
//!     })
//!     .connect()
//!     .await?;
//! let tools = client.list_tools(None).await?;
//! let result = client.call_tool("search", json!({"query": "memory"})).await?;
//! println!("{} tools; search says {}", tools.items.len(), result.text_content());
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
//! **Handlers.** What the server asks is answered by the closure given for it, typed with the
//! protocol's own types: [`Builder::on_elicit`] takes an [`ElicitRequest`] and answers an
//! [`ElicitResult`], [`Builder::on_sample`] a [`CreateMessageRequest`] and a [`Sampled`]
//! completion, [`Builder::on_roots`] the [`Root`]s. A request whose params do not read is
//! answered `-32602`; the
//! capabilities declared to the server are those with a handler. Without one, the request is
//! answered with a JSON-RPC error. Progress and log notifications reach [`Builder::on_notification`].
//!
//! **Tasks.** With [`Builder::tasks`], a tool that can run as a task answers
//! [`Client::call_tool_or_task`] with [`ToolCall::Task`]; follow it with [`Client::wait_task`],
//! answer what it asks with [`Client::update_task`], stop it with [`Client::cancel_task`].
//!
//! **https.** With the `tls` feature, [`Client::http`] takes `https://` URLs: rustls, http/1.1
//! or h2 by ALPN, certificates verified against the platform's trusted roots and any
//! `Builder::root_certificate` (a private CA's). Without it an `https://` URL fails
//! [`Builder::connect`] with [`ClientError::Transport`], saying to enable `tls`.
//!
//! **Connect to an OAuth-protected server.** With the `oauth` feature,
//! `Builder::oauth(OAuth::new(redirect_uri))` connects to a server behind MCP authorization:
//! its first `401` runs discovery, registration, the authorization (through an `Authorize`
//! step) and the token request, and the request is sent again with the token; later, the token
//! is refreshed before it expires. A failure is [`ClientError::Auth`], naming the [`AuthStep`].
//! A command-line tool or desktop app signs its user in with `Loopback` (the browser comes back
//! to `127.0.0.1`) and keeps the tokens in a `FileTokenStore`, so its next run starts signed in:
//!
//! ```no_run
//! # #[cfg(feature = "oauth")]
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use phantom::client::{Client, FileTokenStore, Loopback, OAuth};
//!
//! let step = Loopback::bind(0)
//!     .await?
//!     .show(|url| eprintln!("sign in at {url}"));
//! let oauth = OAuth::new(step.redirect_uri())
//!     .client_name("my-tool")
//!     .authorize(step)
//!     .token_store(FileTokenStore::new("tokens.json"));
//! let client = Client::http("http://127.0.0.1:4002/mcp")
//!     // The sign-in happens within the first request: give it time.
//!     .timeout(std::time::Duration::from_secs(300))
//!     .oauth(oauth)
//!     .connect()
//!     .await?;
//! # drop(client); Ok(()) }
//! ```
//!
//! Pre-registered credentials go in `OAuth::credentials`, a hosted Client ID Metadata Document in
//! `OAuth::client_metadata_url`; without either the client registers itself (RFC 7591).
//! `cargo phantom login URL` does the same from the command line.
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
mod skills;
mod stdio;
mod tasks;

use std::sync::Arc;

use futures_util::stream::BoxStream;
use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde_json::Value;

pub use crate::Page;
pub(crate) use calls::x_mcp_headers;
pub use error::{AuthStep, ClientError};
#[cfg(feature = "oauth")]
pub(crate) use oauth::IssuedTo;
#[cfg(feature = "oauth")]
pub use oauth::{
    Authorize, FetchRedirect, FileTokenStore, Loopback, MemoryTokenStore, OAuth, TokenStore, Tokens,
};
pub use responder::Responder;
pub use session::Client;
pub use skills::LoadedSkill;
pub use tasks::ToolCall;

/// A tool as `tools/list` describes it.
#[deprecated(note = "use `phantom::protocol::Tool`, which the client returns")]
pub type Tool = crate::protocol::Tool;

/// A prompt as `prompts/list` describes it.
#[deprecated(note = "use `phantom::protocol::Prompt`, which the client returns")]
pub type Prompt = crate::protocol::Prompt;

/// A resource as `resources/list` describes it (a template is now
/// [`protocol::ResourceTemplate`](crate::protocol::ResourceTemplate)).
#[deprecated(
    note = "use `phantom::protocol::Resource` (`resources/list`) or `phantom::protocol::ResourceTemplate` (`resources/templates/list`)"
)]
pub type Resource = crate::protocol::Resource;

/// What `tools/call` returns.
#[deprecated(
    note = "use `phantom::tools::ToolResult`, which the client returns; `text()` is `text_content()`"
)]
pub type CallToolResult = crate::tools::ToolResult;

use crate::input::{Root, Sampled};
use crate::kernel::BoxFuture;
use crate::protocol::{
    CreateMessageRequest, ElicitRequest, ElicitResult, ErrorObject, Method, codes,
};

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

/// An answer to one kind of server request: the `result` to send back, or the JSON-RPC error
/// object.
type Handler = Arc<dyn Fn(Value) -> BoxFuture<'static, Result<Value, Value>> + Send + Sync>;

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
    /// The roots the HTTP link and its OAuth flow trust (`Builder::root_certificate`).
    trust: crate::kernel::Trust,
    /// Why a certificate given to `Builder::root_certificate` does not read.
    #[cfg(feature = "tls")]
    bad_root: Option<String>,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("era", &self.era)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// A typed handler as a [`Handler`]: the params of `method` read as `Req` (a request that does
/// not read is answered `-32602`), the answer written as JSON.
fn handler<Req, Res, F, Fut>(method: Method, answer: F) -> Handler
where
    Req: DeserializeOwned,
    Res: Serialize,
    F: Fn(Req) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Res, ErrorObject>> + Send + 'static,
{
    let error = |e: ErrorObject| serde_json::to_value(e).unwrap_or_default();
    Arc::new(move |params| match serde_json::from_value::<Req>(params) {
        Ok(request) => {
            let answered = answer(request);
            Box::pin(async move {
                match answered.await {
                    Ok(result) => serde_json::to_value(result).map_err(|e| {
                        error(ErrorObject::new(
                            codes::INTERNAL_ERROR,
                            format!("the client's answer does not write: {e}"),
                        ))
                    }),
                    Err(e) => Err(error(e)),
                }
            })
        }
        Err(e) => {
            let refused = error(ErrorObject::new(
                codes::INVALID_PARAMS,
                format!("the params of `{}` do not read: {e}", method.as_str()),
            ));
            Box::pin(std::future::ready(Err(refused)))
        }
    })
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
            trust: crate::kernel::Trust::default(),
            #[cfg(feature = "tls")]
            bad_root: None,
        }
    }

    /// Trusts the root certificate(s) of `pem` (one or more `-----BEGIN CERTIFICATE-----`
    /// blocks) for `https://` (feature `tls`), besides the platform's trusted roots: a private
    /// CA's, or a test's. It applies to the MCP requests and to the OAuth flow's (metadata,
    /// registration, the token endpoint). Certificates are always verified: there is no way to
    /// turn that off. A `pem` that does not read makes [`Builder::connect`] fail, naming it.
    #[cfg(feature = "tls")]
    pub fn root_certificate(mut self, pem: &[u8]) -> Self {
        if let Err(why) = self.trust.add_pem(pem) {
            self.bad_root.get_or_insert(why);
        }
        self
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

    /// Answers `elicitation/create` (a form or a URL) with what `answer` returns, and declares
    /// the `elicitation` capability. [`ElicitResult::accept_with_defaults`] fills in the form's
    /// defaults for the fields the user left out.
    pub fn on_elicit<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(ElicitRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.elicit = Some(handler(Method::ElicitationCreate, move |request| {
            let answered = answer(request);
            async move { Ok::<_, ErrorObject>(answered.await) }
        }));
        self
    }

    /// Answers `sampling/createMessage` with the completion `answer` returns (or the JSON-RPC
    /// error, when the user or the model refuses), and declares `sampling`.
    pub fn on_sample<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(CreateMessageRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Sampled, ErrorObject>> + Send + 'static,
    {
        self.sample = Some(handler(Method::SamplingCreateMessage, answer));
        self
    }

    /// Answers `roots/list` with the roots `answer` returns, and declares `roots`.
    pub fn on_roots<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<Root>> + Send + 'static,
    {
        self.roots = Some(handler(Method::RootsList, move |_: IgnoredAny| {
            let answered = answer();
            async move { Ok::<_, ErrorObject>(serde_json::json!({"roots": answered.await})) }
        }));
        self
    }

    /// Answers `method` (`elicitation/create`, `sampling/createMessage` or `roots/list`) with
    /// the JSON `answer` returns for the params as sent: for the test kit and the gateway, which
    /// pass requests and answers through unchanged.
    pub(crate) fn answer_raw<F, Fut>(mut self, method: Method, answer: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Value> + Send + 'static,
    {
        let raw: Handler = Arc::new(move |params| {
            let answered = answer(params);
            Box::pin(async move { Ok(answered.await) })
        });
        match method {
            Method::ElicitationCreate => self.elicit = Some(raw),
            Method::SamplingCreateMessage => self.sample = Some(raw),
            Method::RootsList => self.roots = Some(raw),
            _ => {}
        }
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
            if method == Method::Progress.as_str() {
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
            if method == Method::LogMessage.as_str() {
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
        #[cfg(feature = "tls")]
        if let Some(why) = self.bad_root {
            return Err(ClientError::Transport(format!(
                "the certificate given to `Builder::root_certificate` does not read: {why}"
            )));
        }
        Client::connect(self).await
    }
}
