//! [`Client`]: one connection to one MCP server, its era negotiated, and its requests.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use futures_util::StreamExt as _;
use serde_json::{Map, Value, json};

use super::handlers::Handlers;
use super::responder::Cancel;
use super::{Builder, ClientError, Era, Listener, Messages, Responder, Target, http, stdio};
use crate::protocol::Method;
use crate::protocol::codes::UNSUPPORTED_PROTOCOL_VERSION;

const MODERN: &str = "2026-07-28";

/// Whether a `server/discover` result lists the 2026-07-28 version among its
/// `supportedVersions`.
fn speaks_modern(found: &Value) -> bool {
    found["supportedVersions"]
        .as_array()
        .is_some_and(|versions| versions.iter().any(|v| v.as_str() == Some(MODERN)))
}
/// Whether the `data` of a `-32022` error lists the 2026-07-28 version among the versions the
/// server supports (`supported`).
fn supports_modern(data: Option<&Value>) -> bool {
    data.and_then(|d| d["supported"].as_array())
        .is_some_and(|versions| versions.iter().any(|v| v.as_str() == Some(MODERN)))
}

/// A listed tool's `x-mcp-header` arguments, `(argument, header)`, or why it was left out.
pub(super) type ParamHeaders = Result<Vec<(String, String)>, String>;

/// Rounds of `input_required` one request may take before the client gives up.
const MAX_ROUNDS: usize = 16;

// One per client: the size of the larger variant does not matter.
#[allow(clippy::large_enum_variant)]
pub(super) enum Link {
    Http(Arc<http::Http>),
    Stdio(stdio::Stdio),
}

impl Link {
    async fn request(
        &self,
        message: String,
        id: i64,
        headers: &[(String, String)],
    ) -> Result<Messages, ClientError> {
        match self {
            Self::Http(h) => h.post(message, headers).await,
            Self::Stdio(s) => s.send(message, Some(id.to_string())).await,
        }
    }

    pub(super) async fn send(&self, message: String) -> Result<(), ClientError> {
        let mut drained = match self {
            Self::Http(h) => h.post(message, &[]).await?,
            Self::Stdio(s) => s.send(message, None).await?,
        };
        while drained.next().await.is_some() {}
        Ok(())
    }
}

/// An MCP client connected to one server: made by [`Client::http`] or [`Client::stdio`], then
/// [`Builder::connect`]. See the [module](super) for eras and handlers.
pub struct Client {
    pub(super) link: Arc<Link>,
    pub(super) era: Era,
    version: String,
    server_info: Value,
    server_capabilities: Value,
    capabilities: Value,
    next_id: AtomicI64,
    /// The answers to the server's requests (shared with the stream [`follow`](Self::follow)
    /// keeps open).
    pub(super) handlers: Arc<Handlers>,
    pub(super) listener: Option<Listener>,
    pub(super) timeout: std::time::Duration,
    /// The log level asked for ([`Builder::log_level`]).
    log_level: Option<String>,
    /// `clientInfo` ([`Builder::client_info`]).
    client_info: Value,
    /// The version `initialize` offers ([`Builder::legacy_version`]).
    legacy_version: crate::protocol::ProtocolVersion,
    /// The resource URIs subscribed to (a 2026-07-28 listen is opened again when they change).
    pub(super) watched: tokio::sync::watch::Sender<std::collections::BTreeSet<String>>,
    /// The `x-mcp-header` arguments of each listed tool, `(argument, header)`, or why the tool
    /// was left out of its listing.
    pub(super) param_names: std::sync::Mutex<std::collections::HashMap<String, ParamHeaders>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("era", &self.era)
            .field("version", &self.version)
            .field("server_info", &self.server_info)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client of the Streamable HTTP endpoint at `url` (`http://host:port/mcp`, or
    /// `https://…` with the feature `tls`).
    pub fn http(url: &str) -> Builder {
        Builder::new(Target::Http {
            url: url.to_owned(),
            headers: Vec::new(),
        })
    }

    /// A client of the stdio server that `program` with `args` starts (stderr passes through;
    /// the process is killed when the client is dropped).
    pub fn stdio<I, A>(program: &str, args: I) -> Builder
    where
        I: IntoIterator<Item = A>,
        A: Into<String>,
    {
        Builder::new(Target::Stdio {
            program: program.to_owned(),
            args: args.into_iter().map(Into::into).collect(),
        })
    }

    pub(super) async fn connect(builder: Builder) -> Result<Self, ClientError> {
        if builder.legacy_version.is_modern() {
            return Err(ClientError::protocol(format!(
                "Builder::legacy_version({}): {} has no `initialize`; choose it with `.era(Era::Modern)`",
                builder.legacy_version.as_str(),
                builder.legacy_version.as_str()
            )));
        }
        let handlers = Arc::new(Handlers {
            elicit: builder.elicit,
            sample: builder.sample,
            roots: builder.roots,
        });
        let link = Arc::new(match &builder.target {
            Target::Http { url, headers } => Link::Http(Arc::new(http::Http::new(
                url,
                headers.clone(),
                &builder.auth,
                &builder.trust,
            )?)),
            Target::Stdio { program, args } => Link::Stdio(stdio::Stdio::spawn(
                program,
                args,
                builder.listener.clone(),
                Arc::clone(&handlers),
            )?),
        });
        let mut capabilities = Map::new();
        for (name, handler) in [
            ("elicitation", &handlers.elicit),
            ("sampling", &handlers.sample),
            ("roots", &handlers.roots),
        ] {
            if handler.is_some() {
                capabilities.insert(name.into(), json!({}));
            }
        }
        if builder.tasks {
            capabilities.insert(
                "extensions".into(),
                json!({"io.modelcontextprotocol/tasks": {}}),
            );
        }
        let mut client = Self {
            link,
            era: Era::Modern,
            version: MODERN.into(),
            server_info: Value::Null,
            server_capabilities: Value::Null,
            capabilities: builder
                .capabilities
                .clone()
                .unwrap_or(Value::Object(capabilities)),
            next_id: AtomicI64::new(1),
            handlers,
            listener: builder.listener,
            timeout: builder.timeout,
            log_level: builder.log_level,
            client_info: match &builder.client_info {
                Some(info) => serde_json::to_value(info)
                    .map_err(|e| ClientError::protocol(format!("clientInfo: {e}")))?,
                None => json!({"name": "phantom-client", "version": env!("CARGO_PKG_VERSION")}),
            },
            legacy_version: builder.legacy_version,
            param_names: std::sync::Mutex::default(),
            watched: tokio::sync::watch::Sender::new(std::collections::BTreeSet::new()),
        };
        if builder.era != Era::Legacy {
            if let Link::Http(h) = &*client.link {
                h.set_version(Some(MODERN));
            }
            match client.call(Method::ServerDiscover, json!({})).await {
                // Any result is not enough: a legacy server may answer methods it does not
                // know with `{}`. It must list a 2026-07-28 version this client speaks.
                Ok(found) if speaks_modern(&found) => {
                    // 2026-07-28 results carry it in `_meta`.
                    let info = &found["_meta"]["io.modelcontextprotocol/serverInfo"];
                    client.server_info = if info.is_null() {
                        found["serverInfo"].clone()
                    } else {
                        info.clone()
                    };
                    client.server_capabilities = found["capabilities"].clone();
                    client.follow().await;
                    return Ok(client);
                }
                Ok(found) if builder.era == Era::Modern => {
                    return Err(ClientError::protocol(format!(
                        "the server's `server/discover` lists no version this client speaks ({MODERN}): {}",
                        found["supportedVersions"]
                    )));
                }
                Ok(_) => tracing::debug!(
                    "server/discover lists no 2026-07-28 version: initializing a session"
                ),
                Err(e) if builder.era == Era::Modern => return Err(e),
                // Refused for want of credentials, or the OAuth flow failed: initializing would be
                // refused too (and run the flow, and ask the user, again), and the caller needs
                // this answer (its challenge), not the next one's.
                Err(
                    e @ (ClientError::Http {
                        status: 401 | 403, ..
                    }
                    | ClientError::Auth { .. }),
                ) => return Err(e),
                Err(e) => tracing::debug!(error = %e, "no server/discover: initializing a session"),
            }
        }
        client.initialize().await?;
        client.follow().await;
        Ok(client)
    }

    async fn initialize(&mut self) -> Result<(), ClientError> {
        self.era = Era::Legacy;
        self.version = self.legacy_version.as_str().into();
        // `initialize` carries its version in its params, not in the header (a 2026-07-28
        // header left from `server/discover` would be refused).
        if let Link::Http(h) = &*self.link {
            h.set_version(None);
        }
        let params = json!({
            "protocolVersion": self.version,
            "capabilities": self.capabilities,
            "clientInfo": self.client_info,
        });
        let result = self.call(Method::Initialize, params).await?;
        if let Some(version) = result["protocolVersion"].as_str() {
            // The server answers the version it chose: one this client must speak.
            match crate::protocol::ProtocolVersion::parse(version) {
                Some(v) if !v.is_modern() => self.version = version.to_owned(),
                _ => {
                    return Err(ClientError::protocol(format!(
                        "the server answered `initialize` with protocol version `{version}`, which this client does not speak in a session"
                    )));
                }
            }
        }
        if let Link::Http(h) = &*self.link {
            h.set_version(Some(&self.version));
        }
        self.server_info = result["serverInfo"].clone();
        self.server_capabilities = result["capabilities"].clone();
        self.notify(Method::Initialized.as_str(), None).await?;
        if let Some(level) = self.log_level.clone() {
            self.call(Method::LoggingSetLevel, json!({"level": level}))
                .await?;
        }
        Ok(())
    }

    /// The era spoken: [`Era::Legacy`] or [`Era::Modern`] once connected.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The protocol version negotiated (`2025-11-25`, `2026-07-28`, …).
    pub fn protocol_version(&self) -> &str {
        &self.version
    }

    /// The server's `serverInfo` (name, version, …), as it sent it.
    pub fn server_info(&self) -> &Value {
        &self.server_info
    }

    /// The server's `capabilities` (from `server/discover` or `initialize`), as it sent them.
    pub fn server_capabilities(&self) -> &Value {
        &self.server_capabilities
    }

    /// The legacy session's id (HTTP, 2025-11-25), if the server gave one.
    pub fn session_id(&self) -> Option<String> {
        match &*self.link {
            Link::Http(h) => h.session(),
            Link::Stdio(_) => None,
        }
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.link.send(message.to_string()).await
    }

    /// Sends a request and returns its `result`; the server's requests meanwhile are answered
    /// by the handlers, and (2026-07-28) `input_required` rounds are retried with the answers.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.request_via(method, params, None).await
    }

    /// [`Client::request`], with the server's requests and notifications for this one request
    /// handed to `responder` instead of the builder's handlers: what a gateway uses to pass them
    /// on to its own caller.
    pub async fn request_with(
        &self,
        method: &str,
        params: Value,
        responder: &dyn Responder,
    ) -> Result<Value, ClientError> {
        self.request_via(method, params, Some(responder)).await
    }

    async fn request_via(
        &self,
        method: &str,
        params: Value,
        responder: Option<&dyn Responder>,
    ) -> Result<Value, ClientError> {
        let mut params = match params {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(ClientError::protocol(format!(
                    "params must be an object, not {other}"
                )));
            }
        };
        if method == Method::ToolsCall.as_str()
            && let Some(name) = params.get("name").and_then(Value::as_str)
            && let Some(why) = self.left_out(name)
        {
            return Err(ClientError::protocol(format!(
                "the tool `{name}` was left out of the server's listing, so it is not called: {why}"
            )));
        }
        let asked = AtomicI64::new(0);
        let mut retried = false;
        for _ in 0..MAX_ROUNDS {
            let mut result = match self.exchange(method, &params, responder, &asked).await {
                // SEP-2575: the version was refused, and the server lists the ones it takes. When
                // this client's is among them (a server that refused a request's version without
                // looking, or changed its mind), the request is sent once more, with a new id.
                Err(ClientError::Rpc { code, data, .. })
                    if code == i64::from(UNSUPPORTED_PROTOCOL_VERSION)
                        && self.era == Era::Modern
                        && !retried
                        && supports_modern(data.as_ref()) =>
                {
                    retried = true;
                    tracing::debug!(
                        "`{method}`: version refused, the server lists {MODERN}; sent again"
                    );
                    self.exchange(method, &params, responder, &asked).await?
                }
                other => other?,
            };
            if self.era != Era::Modern || result["resultType"] != "input_required" {
                if method == Method::ToolsList.as_str() {
                    self.learn_param_headers(&mut result);
                }
                return Ok(result);
            }
            let asked: Vec<(String, String, Value)> = result["inputRequests"]
                .as_object()
                .map(|requests| {
                    requests
                        .iter()
                        .map(|(key, r)| {
                            let method = r["method"].as_str().unwrap_or_default().to_owned();
                            (key.clone(), method, r["params"].clone())
                        })
                        .collect()
                })
                .unwrap_or_default();
            let answers = match responder {
                // All of a round's requests at once: a gateway asks its own client them together.
                Some(responder) => responder.answer_all(&asked).await,
                None => {
                    let mut answers = Vec::with_capacity(asked.len());
                    for (key, method, params) in &asked {
                        answers.push(self.answer(None, method, params.clone(), key).await);
                    }
                    answers
                }
            };
            let mut responses = Map::new();
            for ((key, method, _), answer) in asked.iter().zip(answers) {
                let answer = answer.map_err(|e| {
                    ClientError::protocol(format!(
                        "the server asks `{method}` (input `{key}`) and this client has no handler for it: {}",
                        e["message"]
                    ))
                })?;
                responses.insert(key.clone(), answer);
            }
            params.insert("inputResponses".into(), Value::Object(responses));
            match result.get("requestState") {
                Some(state) => params.insert("requestState".into(), state.clone()),
                None => params.remove("requestState"),
            };
        }
        Err(ClientError::protocol(format!(
            "`{method}` still needs input after {MAX_ROUNDS} rounds"
        )))
    }

    /// One request on the wire, its stream read to the response.
    async fn exchange(
        &self,
        method: &str,
        params: &Map<String, Value>,
        responder: Option<&dyn Responder>,
        asked: &AtomicI64,
    ) -> Result<Value, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut params = params.clone();
        if (responder.is_some() || self.listener.is_some()) && method == Method::ToolsCall.as_str()
        {
            // Progress comes back to the responder (or the listener) only if the server has a
            // token to send it with.
            let meta = params.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                meta.entry("progressToken").or_insert_with(|| json!(id));
            }
        }
        let mut headers = Vec::new();
        if self.era == Era::Modern {
            self.envelope(method, &mut params, &mut headers);
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        // Dropped before the response (the caller's future dropped, or the timeout): the server
        // hears `notifications/cancelled` (a 2026-07-28 HTTP request is cancelled by the closed
        // connection itself).
        let mut cancel = Cancel {
            link: (self.era == Era::Legacy || matches!(*self.link, Link::Stdio(_)))
                .then(|| Arc::clone(&self.link)),
            id,
        };
        let read = async {
            let mut messages = self.link.request(message.to_string(), id, &headers).await?;
            while let Some(message) = messages.next().await {
                let message = message?;
                match (
                    message.get("method").and_then(Value::as_str),
                    message.get("id"),
                ) {
                    (Some(request), Some(asked_id)) => {
                        // A legacy server's requests have no key: the order they come in is one.
                        let key = format!("input-{}", asked.fetch_add(1, Ordering::Relaxed) + 1);
                        let params = message["params"].clone();
                        let reply = match self.answer(responder, request, params, &key).await {
                            Ok(result) => {
                                json!({"jsonrpc": "2.0", "id": asked_id, "result": result})
                            }
                            Err(error) => json!({"jsonrpc": "2.0", "id": asked_id, "error": error}),
                        };
                        self.link.send(reply.to_string()).await?;
                    }
                    (Some(http::RESUMED), None) => {
                        if let Some(responder) = responder {
                            responder.stream_closed();
                        }
                    }
                    (Some(notified), None) => match responder {
                        Some(responder) => responder.notified(notified, &message["params"]),
                        None => {
                            if let Some(listener) = &self.listener {
                                listener(notified, &message["params"]);
                            }
                        }
                    },
                    (None, Some(answered)) if *answered == json!(id) => {
                        cancel.link = None;
                        if let Some(error) = message.get("error") {
                            return Err(ClientError::from_rpc(error));
                        }
                        return Ok(message.get("result").cloned().unwrap_or(Value::Null));
                    }
                    _ => tracing::debug!("a message that answers another request; skipped"),
                }
            }
            Err(ClientError::protocol(format!(
                "the server's answer to `{method}` ended before its response"
            )))
        };
        tokio::time::timeout(self.timeout, read)
            .await
            .map_err(|_| ClientError::Timeout(self.timeout))?
    }

    /// 2026-07-28: the `_meta` envelope of a request and its `Mcp-Method` / `Mcp-Name` headers.
    pub(super) fn envelope(
        &self,
        method: &str,
        params: &mut Map<String, Value>,
        headers: &mut Vec<(String, String)>,
    ) {
        let mut meta = params
            .entry("_meta")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        meta.insert(
            "io.modelcontextprotocol/protocolVersion".into(),
            MODERN.into(),
        );
        // A caller may declare its own (a gateway declares its client's).
        meta.entry("io.modelcontextprotocol/clientCapabilities")
            .or_insert_with(|| self.capabilities.clone());
        meta.insert(
            "io.modelcontextprotocol/clientInfo".into(),
            self.client_info.clone(),
        );
        if let Some(level) = &self.log_level {
            meta.entry("io.modelcontextprotocol/logLevel")
                .or_insert_with(|| level.clone().into());
        }
        params.insert("_meta".into(), Value::Object(meta));
        headers.push(("mcp-method".into(), method.to_owned()));
        let name = match Method::parse(method) {
            Some(Method::ToolsCall | Method::PromptsGet) => params.get("name"),
            Some(Method::ResourcesRead) => params.get("uri"),
            Some(Method::TasksGet | Method::TasksUpdate | Method::TasksCancel) => {
                params.get("taskId")
            }
            _ => None,
        };
        if let Some(name) = name.and_then(Value::as_str) {
            headers.push(("mcp-name".into(), name.to_owned()));
            if method == Method::ToolsCall.as_str() {
                let arguments = params.get("arguments").unwrap_or(&Value::Null);
                self.param_headers(name, arguments, headers);
            }
        }
    }

    /// The answer to a server request: the responder's, or the handler's result, or a JSON-RPC
    /// error object.
    async fn answer(
        &self,
        responder: Option<&dyn Responder>,
        method: &str,
        params: Value,
        key: &str,
    ) -> Result<Value, Value> {
        if let Some(responder) = responder
            && method != Method::Ping.as_str()
        {
            return responder.answer(method, params, key).await;
        }
        self.handlers.answer(method, params).await
    }

    /// Ends the connection: `DELETE` of a legacy HTTP session; a stdio server's process is
    /// killed. It takes `&self`, so that a client shared through an `Arc` can be closed by any
    /// holder; a request made after it fails (the session is gone, or the process). A second
    /// call does nothing.
    pub async fn close(&self) {
        match &*self.link {
            Link::Http(h) => h.close().await,
            Link::Stdio(s) => s.close(),
        }
    }
}
