//! Era classification, method routing and capability computation over the static tables.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::auth::WwwAuthenticate;
use crate::completion::CompleteContext;
use crate::config::Config;
use crate::error::Error;
use crate::param::{Args, CallParts};
use crate::protocol::{
    ErrorObject, Implementation, Incoming, LogLevel, ProtocolVersion, RequestId, codes,
};
use crate::request::{Request, Transport};
use crate::router::{ReadParts, Router, paginate};
use crate::server::{Connect, Cursor, Server};
use crate::session::{Session, allowed};

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
const META_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_LOG: &str = "io.modelcontextprotocol/logLevel";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// How a transport should answer a reply (HTTP maps it to a status; stdio ignores it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// 200.
    Ok,
    /// 400: a modern envelope, version, header or capability error, or a legacy request without a
    /// session.
    BadRequest,
    /// 404: a modern request for a method the era (or this server) does not have.
    MethodNotFound,
    /// 401 from `connect`.
    Unauthorized(Box<WwwAuthenticate>),
    /// 403 from `connect`.
    Forbidden,
    /// 404 from `connect`: the session is gone.
    SessionNotFound,
}

/// One reply to send: a serialized JSON-RPC response and how to send it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The JSON-RPC response (or batch array) text.
    pub body: String,
    /// The transport status it maps to.
    pub status: Status,
    /// Whether the request was served in the modern era.
    pub modern: bool,
}

/// A result body before the era's envelope fields are added.
enum Body {
    Map(Map<String, Value>),
    /// Members of a JSON object, already serialized, without the braces.
    Members(String),
}

impl From<Map<String, Value>> for Body {
    fn from(map: Map<String, Value>) -> Self {
        Self::Map(map)
    }
}

/// Extra fields on modern list, read and discover results.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cacheable {
    No,
    Yes,
}

struct Failure {
    error: ErrorObject,
    status: Status,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Self {
            error: e.into_object(),
            status: Status::Ok,
        }
    }
}

impl From<ErrorObject> for Failure {
    fn from(error: ErrorObject) -> Self {
        Self {
            error,
            status: Status::Ok,
        }
    }
}

fn invalid(message: impl Into<Cow<'static, str>>) -> Failure {
    Failure::from(ErrorObject::new(codes::INVALID_PARAMS, message))
}

fn bad_request(error: ErrorObject) -> Failure {
    Failure {
        error,
        status: Status::BadRequest,
    }
}

fn parse_params<'a, T: Deserialize<'a>>(raw: Option<&'a RawValue>) -> Result<T, Failure> {
    let text = raw.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|e| {
        let e = e.to_string();
        let e = e.split(" at line ").next().unwrap_or(&e);
        invalid(format!("Invalid params: {e}"))
    })
}

#[derive(Debug, Deserialize, Default)]
struct MetaProbe<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    caps: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow, default)]
    info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow, default)]
    log: Option<&'a RawValue>,
}

/// Reads `params._meta` when it claims the modern envelope.
fn modern_claim(params: Option<&RawValue>) -> Option<MetaProbe<'_>> {
    ParamsHead::read(params)
        .meta
        .filter(|m| m.version.is_some())
}

/// What phantom reads of a request's params before dispatching it: the `_meta` envelope and the
/// `name` / `uri` that HTTP headers must mirror. A transport that needs them reads them once with
/// [`ParamsHead::read`] and hands them to [`Dispatcher::handle_parsed`].
#[derive(Debug, Default, Deserialize)]
pub struct ParamsHead<'a> {
    #[serde(rename = "_meta", borrow, default, deserialize_with = "lenient_meta")]
    meta: Option<MetaProbe<'a>>,
    /// `params.name` (tools/call, prompts/get), as sent.
    #[serde(borrow, default)]
    pub name: Option<&'a RawValue>,
    /// `params.uri` (resources/read), as sent.
    #[serde(borrow, default)]
    pub uri: Option<&'a RawValue>,
}

/// A `_meta` that is not an object reads as no `_meta` (so no modern claim), as before.
fn lenient_meta<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<MetaProbe<'de>>, D::Error> {
    let raw = <&RawValue>::deserialize(d)?;
    Ok(serde_json::from_str(raw.get()).ok())
}

impl<'a> ParamsHead<'a> {
    /// Reads the head of `params` (nothing when absent or not an object).
    pub fn read(params: Option<&'a RawValue>) -> Self {
        params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default()
    }

    /// The raw `_meta["io.modelcontextprotocol/protocolVersion"]`: present exactly when the
    /// request claims the 2026-07-28 envelope.
    pub fn claimed_version(&self) -> Option<&'a RawValue> {
        self.meta.as_ref().and_then(|m| m.version)
    }
}

#[derive(Deserialize)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct NameParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct ReadParams {
    uri: String,
}

#[derive(Deserialize)]
#[serde(tag = "type")]
enum CompleteRef {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

#[derive(Deserialize)]
struct CompleteArgument {
    name: String,
    value: String,
}

#[derive(Deserialize, Default)]
struct CompleteContextParams {
    #[serde(default)]
    arguments: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct CompleteParams {
    #[serde(rename = "ref")]
    reference: CompleteRef,
    argument: CompleteArgument,
    #[serde(default)]
    context: Option<CompleteContextParams>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeParams {
    protocol_version: String,
    #[serde(default)]
    capabilities: Option<Value>,
    #[serde(default)]
    client_info: Option<Implementation>,
}

#[derive(Deserialize)]
struct SetLevelParams {
    level: LogLevel,
}

struct Inner<S: 'static> {
    server: S,
    router: &'static Router<S>,
    config: Config,
    /// Serialized first pages of tools, prompts and templates (no allow-list, no cursor).
    first_pages: [String; 3],
    server_info: String,
}

/// Serves one server: classifies each message's era, runs the method, serializes the reply.
/// Cheap to clone; every transport holds one.
pub struct Dispatcher<S: 'static> {
    inner: Arc<Inner<S>>,
}

impl<S: 'static> Clone for Dispatcher<S> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<S: 'static> std::fmt::Debug for Dispatcher<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher")
            .field("server", &self.inner.router.info.name)
            .finish()
    }
}

const LIST_KEYS: [&str; 3] = ["tools", "prompts", "resourceTemplates"];
const LIST_KINDS: [&str; 3] = ["t", "p", "x"];

fn members(key: &str, items: &[&RawValue], next_cursor: Option<&str>) -> String {
    let mut out =
        String::with_capacity(64 + items.iter().map(|i| i.get().len() + 1).sum::<usize>());
    let _ = write!(out, "\"{key}\":[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item.get());
    }
    out.push(']');
    if let Some(c) = next_cursor {
        let _ = write!(out, ",\"nextCursor\":{}", Value::from(c));
    }
    out
}

impl<S: Server> Dispatcher<S> {
    /// A dispatcher with the default [`Config`].
    pub fn new(server: S) -> Self {
        Self::with_config(server, Config::default())
    }

    /// A dispatcher with a config. Builds the router tables (once per type) and the cached first
    /// pages (once per dispatcher).
    pub fn with_config(server: S, config: Config) -> Self {
        let router = S::__router();
        let mut first_pages: [String; 3] = Default::default();
        for (k, page) in first_pages.iter_mut().enumerate() {
            let list = Self::list_items(router, k, &None, None, config.page_size)
                .unwrap_or_else(|_| unreachable!("no cursor, no error"));
            *page = members(LIST_KEYS[k], &list.items, list.next_cursor.as_deref());
        }
        let server_info = serde_json::to_string(&router.info.implementation()).unwrap_or_default();
        Self {
            inner: Arc::new(Inner {
                server,
                router,
                config,
                first_pages,
                server_info,
            }),
        }
    }

    /// The server.
    pub fn server(&self) -> &S {
        &self.inner.server
    }

    /// The config.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    fn list_items(
        router: &'static Router<S>,
        k: usize,
        allow: &Option<crate::session::AllowList>,
        cursor: Option<&str>,
        page_size: usize,
    ) -> Result<crate::server::Page<&'static RawValue>, Error> {
        let kind = LIST_KINDS[k];
        match k {
            0 => paginate(
                kind,
                router.tools.iter().map(|t| (t.def.name, &*t.json)),
                allow,
                cursor,
                page_size,
            ),
            1 => paginate(
                kind,
                router.prompts.iter().map(|p| (p.def.name, &*p.json)),
                allow,
                cursor,
                page_size,
            ),
            _ => paginate(
                kind,
                router
                    .templated
                    .iter()
                    .map(|&i| (router.resources[i].def.name, &*router.resources[i].json)),
                allow,
                cursor,
                page_size,
            ),
        }
    }

    /// Handles one message (or a batch array) from a client.
    ///
    /// `legacy` is the transport's session slot for the legacy era: `None` until `initialize`
    /// fills it. Modern requests never touch it. Returns `None` when nothing is to be sent (a
    /// notification or a response).
    pub async fn handle(
        &self,
        text: &str,
        request: &Request,
        legacy: &mut Option<Session>,
    ) -> Option<Reply> {
        let trimmed = text.trim_start();
        if trimmed.starts_with('[') {
            return self.handle_batch(text, request, legacy).await;
        }
        match Incoming::parse(text) {
            Ok(msg) => self.handle_message(msg, request, legacy).await,
            Err((id, error)) => {
                Some(self.error_reply(id.as_ref(), error, Status::BadRequest, false))
            }
        }
    }

    async fn handle_batch(
        &self,
        text: &str,
        request: &Request,
        legacy: &mut Option<Session>,
    ) -> Option<Reply> {
        let items: Vec<&RawValue> = match serde_json::from_str(text) {
            Ok(items) => items,
            Err(e) => {
                let error = ErrorObject::new(codes::PARSE_ERROR, format!("Parse error: {e}"));
                return Some(self.error_reply(None, error, Status::BadRequest, false));
            }
        };
        let allows_batches = legacy
            .as_ref()
            .is_some_and(|s| s.protocol_version <= ProtocolVersion::V2025_03_26);
        if !allows_batches || items.is_empty() {
            let error = ErrorObject::new(
                codes::INVALID_REQUEST,
                "Invalid request: JSON-RPC batches are not supported by this protocol version; send one message per request",
            );
            return Some(self.error_reply(None, error, Status::BadRequest, false));
        }
        // Checked before anything runs, so a rejected batch has no effects.
        let claims_modern = items.iter().any(|item| {
            matches!(Incoming::from_raw(item), Ok(Incoming::Request { params, .. }) if modern_claim(params).is_some())
        });
        if claims_modern {
            let error = ErrorObject::new(
                codes::INVALID_REQUEST,
                "Invalid request: a batch cannot carry a 2026-07-28 request",
            );
            return Some(self.error_reply(None, error, Status::BadRequest, false));
        }
        let mut bodies = Vec::new();
        for item in items {
            let reply = match Incoming::from_raw(item) {
                Ok(msg) => self.handle_message(msg, request, legacy).await,
                Err((id, error)) => Some(self.error_reply(id.as_ref(), error, Status::Ok, false)),
            };
            if let Some(r) = reply {
                bodies.push(r.body);
            }
        }
        if bodies.is_empty() {
            return None;
        }
        Some(Reply {
            body: format!("[{}]", bodies.join(",")),
            status: Status::Ok,
            modern: false,
        })
    }

    async fn handle_message(
        &self,
        msg: Incoming<'_>,
        request: &Request,
        legacy: &mut Option<Session>,
    ) -> Option<Reply> {
        let head = match &msg {
            Incoming::Request { params, .. } => ParamsHead::read(*params),
            _ => ParamsHead::default(),
        };
        self.handle_parsed(msg, head, request, legacy).await
    }

    /// Handles a message a transport has already decoded, with the head of its params.
    pub async fn handle_parsed(
        &self,
        msg: Incoming<'_>,
        head: ParamsHead<'_>,
        request: &Request,
        legacy: &mut Option<Session>,
    ) -> Option<Reply> {
        match msg {
            Incoming::Request { id, method, params } => {
                let claim = head.meta.filter(|m| m.version.is_some());
                let reply = AssertUnwindSafe(
                    self.handle_request(&id, &method, params, claim, request, legacy),
                )
                .catch_unwind()
                .await;
                Some(reply.unwrap_or_else(|_| {
                    let error = ErrorObject::new(codes::INTERNAL_ERROR, "Internal error");
                    self.error_reply(Some(&id), error, Status::Ok, false)
                }))
            }
            Incoming::Notification { method, .. } => {
                if method == "notifications/initialized" {
                    tracing::debug!("client initialized");
                }
                None
            }
            Incoming::Response { .. } => None,
        }
    }

    async fn handle_request(
        &self,
        id: &RequestId,
        method: &str,
        params: Option<&RawValue>,
        claim: Option<MetaProbe<'_>>,
        request: &Request,
        legacy: &mut Option<Session>,
    ) -> Reply {
        if let Some(meta) = claim {
            return match self.modern(method, params, meta, request).await {
                Ok((session, body, cache)) => {
                    self.ok_reply(id, body, Some((&session, cache))).await
                }
                Err(f) => self.error_reply(Some(id), f.error, f.status, true),
            };
        }
        match self.legacy(method, params, request, legacy).await {
            Ok(body) => self.ok_reply(id, body, None).await,
            Err(f) => self.error_reply(Some(id), f.error, f.status, false),
        }
    }

    // ----- modern era -----

    async fn modern(
        &self,
        method: &str,
        params: Option<&RawValue>,
        meta: MetaProbe<'_>,
        request: &Request,
    ) -> Result<(Session, Body, Cacheable), Failure> {
        let mut session = envelope_session(&meta)?;
        let cache = match method {
            "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read" => Cacheable::Yes,
            "tools/call" | "prompts/get" | "completion/complete" => Cacheable::No,
            _ => {
                return Err(Failure {
                    error: ErrorObject::new(codes::METHOD_NOT_FOUND, "Method not found")
                        .with_data(json!({ "method": method })),
                    status: Status::MethodNotFound,
                });
            }
        };
        self.connect(&mut session, request).await?;
        let body = if method == "server/discover" {
            self.discover(&session).await
        } else {
            // A method this server lacks (`completion/complete` without completions) is a 404 in
            // the modern era, like a method the era lacks.
            self.feature(method, params, &session, request)
                .await
                .map_err(|f| match f.error.code {
                    codes::METHOD_NOT_FOUND => Failure {
                        status: Status::MethodNotFound,
                        ..f
                    },
                    _ => f,
                })?
        };
        Ok((session, body, cache))
    }

    async fn discover(&self, session: &Session) -> Body {
        let mut map = Map::new();
        let versions: Vec<&str> = ProtocolVersion::supported_strings();
        map.insert("supportedVersions".into(), json!(versions));
        map.insert("capabilities".into(), self.capabilities(true));
        if let Some(text) = self.inner.server.instructions(session).await {
            map.insert("instructions".into(), text.into());
        }
        Body::Map(map)
    }

    // ----- legacy era -----

    async fn legacy(
        &self,
        method: &str,
        params: Option<&RawValue>,
        request: &Request,
        slot: &mut Option<Session>,
    ) -> Result<Body, Failure> {
        match method {
            "initialize" => return self.initialize(params, request, slot).await,
            "ping" => return Ok(Body::Map(Map::new())),
            "server/discover" => {
                return Err(invalid(format!(
                    "Invalid params: missing `_meta.{META_VERSION}`; `server/discover` is a 2026-07-28 method"
                ))
                .into_bad_request());
            }
            _ => {}
        }
        let Some(session) = slot.as_mut() else {
            return Err(bad_request(ErrorObject::new(
                codes::INVALID_REQUEST,
                "Invalid request: no session; send `initialize` first (or use the 2026-07-28 `_meta` envelope)",
            )));
        };
        if request.transport == Transport::Http {
            self.connect(session, request).await?;
        }
        if method == "logging/setLevel" {
            let p: SetLevelParams = params_or_level_error(params)?;
            session.log_level = Some(p.level);
            return Ok(Body::Map(Map::new()));
        }
        self.feature(method, params, session, request).await
    }

    async fn initialize(
        &self,
        params: Option<&RawValue>,
        request: &Request,
        slot: &mut Option<Session>,
    ) -> Result<Body, Failure> {
        if slot.is_some() {
            return Err(bad_request(ErrorObject::new(
                codes::INVALID_REQUEST,
                "Invalid request: this session is already initialized",
            )));
        }
        let p: InitializeParams = parse_params(params)?;
        let version = ProtocolVersion::negotiate_legacy(&p.protocol_version);
        let mut session = Session::new(None, version);
        session.client_info = p.client_info.map(Arc::new);
        if let Some(caps) = p.capabilities {
            if !caps.is_object() {
                return Err(invalid("Invalid params: `capabilities` must be an object"));
            }
            session.client_capabilities = Arc::new(caps);
        }
        self.connect(&mut session, request).await?;
        let mut map = Map::new();
        map.insert("protocolVersion".into(), version.as_str().into());
        map.insert("capabilities".into(), self.capabilities(false));
        let info = self.inner.server.server_info(&session).await;
        map.insert(
            "serverInfo".into(),
            serde_json::to_value(info).unwrap_or_default(),
        );
        if let Some(text) = self.inner.server.instructions(&session).await {
            map.insert("instructions".into(), text.into());
        }
        *slot = Some(session);
        Ok(Body::Map(map))
    }

    async fn connect(&self, session: &mut Session, request: &Request) -> Result<(), Failure> {
        if !self
            .inner
            .router
            .overrides(crate::server::Callback::Connect)
        {
            return Ok(());
        }
        let (status, message) = match self.inner.server.connect(session, request).await {
            Connect::Ok => return Ok(()),
            Connect::Unauthorized(challenge) => (
                Status::Unauthorized(Box::new(challenge)),
                "Unauthorized".to_owned(),
            ),
            Connect::Forbidden(m) => (Status::Forbidden, m),
            Connect::NotFound(m) => (Status::SessionNotFound, m),
            Connect::Error(m) => (Status::BadRequest, m),
        };
        Err(Failure {
            error: ErrorObject::new(-32001, message),
            status,
        })
    }

    /// Capabilities computed from what the router serves.
    pub fn capabilities(&self, modern: bool) -> Value {
        let router = self.inner.router;
        let mut caps = Map::new();
        if !router.tools.is_empty() {
            caps.insert("tools".into(), json!({}));
        }
        if !router.prompts.is_empty() {
            caps.insert("prompts".into(), json!({}));
        }
        if !router.resources.is_empty() || router.overrides(crate::server::Callback::ListResources)
        {
            caps.insert("resources".into(), json!({}));
        }
        if router.has_completions {
            caps.insert("completions".into(), json!({}));
        }
        if !modern {
            caps.insert("logging".into(), json!({}));
        }
        Value::Object(caps)
    }

    // ----- features shared by both eras -----

    async fn feature(
        &self,
        method: &str,
        params: Option<&RawValue>,
        session: &Session,
        request: &Request,
    ) -> Result<Body, Failure> {
        let k = match method {
            "tools/list" => 0,
            "prompts/list" => 1,
            "resources/templates/list" => 2,
            "tools/call" => return self.call_tool(params, session, request).await,
            "prompts/get" => return self.get_prompt(params, session, request).await,
            "resources/list" => return self.list_resources(params, session).await,
            "resources/read" => return self.read_resource(params, session, request).await,
            "completion/complete" => return self.complete(params, session, request).await,
            _ => {
                return Err(Failure::from(
                    ErrorObject::new(codes::METHOD_NOT_FOUND, "Method not found")
                        .with_data(json!({ "method": method })),
                ));
            }
        };
        let p: ListParams = parse_params(params)?;
        let allow = match k {
            0 => &session.allowed_tools,
            1 => &session.allowed_prompts,
            _ => &session.allowed_resource_templates,
        };
        if p.cursor.is_none() && allow.is_none() {
            return Ok(Body::Members(self.inner.first_pages[k].clone()));
        }
        let page = Self::list_items(
            self.inner.router,
            k,
            allow,
            p.cursor.as_deref(),
            self.inner.config.page_size,
        )?;
        Ok(Body::Members(members(
            LIST_KEYS[k],
            &page.items,
            page.next_cursor.as_deref(),
        )))
    }

    async fn list_resources(
        &self,
        params: Option<&RawValue>,
        session: &Session,
    ) -> Result<Body, Failure> {
        let p: ListParams = parse_params(params)?;
        let router = self.inner.router;
        if !router.overrides(crate::server::Callback::ListResources) {
            let page = paginate(
                "r",
                router
                    .concrete
                    .iter()
                    .map(|&i| (router.resources[i].def.name, &*router.resources[i].json)),
                &session.allowed_resource_templates,
                p.cursor.as_deref(),
                self.inner.config.page_size,
            )?;
            return Ok(Body::Members(members(
                "resources",
                &page.items,
                page.next_cursor.as_deref(),
            )));
        }
        let page = self
            .inner
            .server
            .list_resources(p.cursor.map(Cursor), session)
            .await?;
        let mut map = Map::new();
        map.insert(
            "resources".into(),
            serde_json::to_value(page.items).unwrap_or_default(),
        );
        if let Some(c) = page.next_cursor {
            map.insert("nextCursor".into(), c.into());
        }
        Ok(Body::Map(map))
    }

    async fn call_tool(
        &self,
        params: Option<&RawValue>,
        session: &Session,
        request: &Request,
    ) -> Result<Body, Failure> {
        let p: NameParams<'_> = parse_params(params)?;
        let router = self.inner.router;
        let entry = router
            .tool_index
            .get(p.name.as_ref())
            .filter(|_| allowed(&session.allowed_tools, &p.name))
            .map(|&i| &router.tools[i])
            .ok_or_else(|| {
                Failure::from(
                    ErrorObject::new(codes::INVALID_PARAMS, format!("Unknown tool: {}", p.name))
                        .with_data(json!({ "name": p.name })),
                )
            })?;
        if let Some(missing) =
            missing_capabilities(entry.def.requires, &session.client_capabilities)
        {
            return Err(Failure {
                error: ErrorObject::new(
                    codes::MISSING_CLIENT_CAPABILITY,
                    format!(
                        "Missing required client capability: tool `{}` needs it",
                        entry.def.name
                    ),
                )
                .with_data(json!({ "requiredCapabilities": missing })),
                status: if session.is_modern() {
                    Status::BadRequest
                } else {
                    Status::Ok
                },
            });
        }
        let args = Args::parse(p.arguments).map_err(|e| invalid(format!("Invalid params: {e}")))?;
        let result = match check_arguments(entry, &args) {
            Err(message) => crate::tool::ToolResult::error(message),
            Ok(()) => {
                let parts = CallParts {
                    session,
                    request,
                    args,
                };
                let fut = (entry.def.call)(&self.inner.server, parts);
                match AssertUnwindSafe(fut).catch_unwind().await {
                    Ok(result) => result,
                    Err(_) => {
                        tracing::error!(tool = entry.def.name, "tool handler panicked");
                        return Err(Failure::from(ErrorObject::new(
                            codes::INTERNAL_ERROR,
                            "Internal error",
                        )));
                    }
                }
            }
        };
        let mut result = result;
        if entry.wrap_output
            && let Some(v) = result.structured_content.take()
        {
            result.structured_content = Some(json!({ "result": v }));
        }
        if result.meta.is_some() {
            return match serde_json::to_value(result) {
                Ok(Value::Object(map)) => Ok(Body::Map(map)),
                _ => Err(Failure::from(ErrorObject::new(
                    codes::INTERNAL_ERROR,
                    "Internal error",
                ))),
            };
        }
        members_of(&result)
    }

    async fn get_prompt(
        &self,
        params: Option<&RawValue>,
        session: &Session,
        request: &Request,
    ) -> Result<Body, Failure> {
        let p: NameParams<'_> = parse_params(params)?;
        let router = self.inner.router;
        let entry = router
            .prompt_index
            .get(p.name.as_ref())
            .filter(|_| allowed(&session.allowed_prompts, &p.name))
            .map(|&i| &router.prompts[i])
            .ok_or_else(|| {
                Failure::from(
                    ErrorObject::new(codes::INVALID_PARAMS, format!("Unknown prompt: {}", p.name))
                        .with_data(json!({ "name": p.name })),
                )
            })?;
        let args = Args::parse(p.arguments).map_err(|e| invalid(format!("Invalid params: {e}")))?;
        if let Some(unknown) = args
            .names()
            .find(|n| !entry.specs.iter().any(|s| s.name == *n))
        {
            return Err(invalid(format!(
                "Invalid params: unknown argument `{unknown}` for prompt `{}`",
                p.name
            )));
        }
        let parts = CallParts {
            session,
            request,
            args,
        };
        let fut = (entry.def.get)(&self.inner.server, parts);
        let reply = match AssertUnwindSafe(fut).catch_unwind().await {
            Ok(reply) => reply?,
            Err(_) => {
                tracing::error!(prompt = entry.def.name, "prompt handler panicked");
                return Err(Failure::from(ErrorObject::new(
                    codes::INTERNAL_ERROR,
                    "Internal error",
                )));
            }
        };
        members_of(&reply)
    }

    async fn read_resource(
        &self,
        params: Option<&RawValue>,
        session: &Session,
        request: &Request,
    ) -> Result<Body, Failure> {
        let p: ReadParams = parse_params(params)?;
        let router = self.inner.router;
        let not_found = || Failure::from(Error::resource_not_found(p.uri.as_str()));
        let found = router.matcher.find(&p.uri).ok_or_else(not_found)?;
        let entry = &router.resources[found.index];
        if !allowed(&session.allowed_resource_templates, entry.def.name) {
            return Err(not_found());
        }
        let parts = ReadParts {
            uri: &p.uri,
            params: found.params,
            session,
            request,
            mime_type: entry.def.mime_type,
        };
        let fut = (entry.def.read)(&self.inner.server, parts);
        let contents = match AssertUnwindSafe(fut).catch_unwind().await {
            Ok(contents) => contents?.ok_or_else(not_found)?,
            Err(_) => {
                tracing::error!(resource = entry.def.name, "resource handler panicked");
                return Err(Failure::from(ErrorObject::new(
                    codes::INTERNAL_ERROR,
                    "Internal error",
                )));
            }
        };
        let text = serde_json::to_string(&contents).map_err(|_| {
            Failure::from(ErrorObject::new(codes::INTERNAL_ERROR, "Internal error"))
        })?;
        Ok(Body::Members(format!("\"contents\":{text}")))
    }

    async fn complete(
        &self,
        params: Option<&RawValue>,
        session: &Session,
        request: &Request,
    ) -> Result<Body, Failure> {
        let router = self.inner.router;
        if !router.has_completions {
            return Err(Failure::from(
                ErrorObject::new(
                    codes::METHOD_NOT_FOUND,
                    "Method not found: this server offers no completions",
                )
                .with_data(json!({ "method": "completion/complete" })),
            ));
        }
        let p: CompleteParams = parse_params(params)?;
        let (completions, declared): (&[(&'static str, _)], Vec<&str>) = match &p.reference {
            CompleteRef::Prompt { name } => {
                let entry = router
                    .prompt_index
                    .get(name.as_str())
                    .filter(|_| allowed(&session.allowed_prompts, name.as_str()))
                    .map(|&i| &router.prompts[i])
                    .ok_or_else(|| {
                        Failure::from(
                            ErrorObject::new(
                                codes::INVALID_PARAMS,
                                format!("Unknown prompt: {name}"),
                            )
                            .with_data(json!({ "name": name })),
                        )
                    })?;
                (
                    &entry.def.completions,
                    entry.specs.iter().map(|s| s.name).collect(),
                )
            }
            CompleteRef::Resource { uri } => {
                let entry = router
                    .template_index
                    .get(uri.as_str())
                    .map(|&i| &router.resources[i])
                    .or_else(|| router.resources.iter().find(|r| r.def.template == uri))
                    .filter(|r| allowed(&session.allowed_resource_templates, r.def.name))
                    .ok_or_else(|| {
                        Failure::from(
                            ErrorObject::new(
                                codes::INVALID_PARAMS,
                                format!("Unknown resource template: {uri}"),
                            )
                            .with_data(json!({ "uri": uri })),
                        )
                    })?;
                (
                    &entry.def.completions,
                    entry.info.params.iter().map(String::as_str).collect(),
                )
            }
        };
        let arg = p.argument.name.as_str();
        if !declared.contains(&arg) {
            return Err(Failure::from(
                ErrorObject::new(
                    codes::INVALID_PARAMS,
                    format!("Invalid params: unknown argument `{arg}`"),
                )
                .with_data(json!({ "argument": arg })),
            ));
        }
        let completion = match completions.iter().find(|(n, _)| *n == arg) {
            None => crate::completion::Completion::default(),
            Some((_, f)) => {
                let arguments = p.context.unwrap_or_default().arguments;
                let cx = CompleteContext {
                    argument: arg,
                    arguments: &arguments,
                    session,
                    request,
                };
                match AssertUnwindSafe(f(&self.inner.server, &p.argument.value, &cx))
                    .catch_unwind()
                    .await
                {
                    Ok(c) => c?,
                    Err(_) => {
                        tracing::error!(argument = arg, "completion function panicked");
                        return Err(Failure::from(ErrorObject::new(
                            codes::INTERNAL_ERROR,
                            "Internal error",
                        )));
                    }
                }
            }
        };
        let mut map = Map::new();
        map.insert(
            "completion".into(),
            serde_json::to_value(completion).unwrap_or_default(),
        );
        Ok(Body::Map(map))
    }

    // ----- replies -----

    async fn ok_reply(
        &self,
        id: &RequestId,
        body: Body,
        modern: Option<(&Session, Cacheable)>,
    ) -> Reply {
        let mut out = String::with_capacity(256);
        out.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
        out.push_str(&serde_json::to_string(id).unwrap_or_default());
        out.push_str(",\"result\":{");
        let mut has_meta = false;
        let members = match body {
            Body::Members(text) => text,
            Body::Map(mut map) => {
                has_meta = map.contains_key("_meta");
                // A `_meta` of the handler's own is merged with serverInfo below.
                if let (Some((session, _)), Some(Value::Object(meta))) =
                    (modern, map.get_mut("_meta"))
                {
                    let info = self.server_info_json(session).await;
                    meta.insert(
                        META_SERVER_INFO.into(),
                        serde_json::from_str(&info).unwrap_or_default(),
                    );
                }
                let text = serde_json::to_string(&map).unwrap_or_else(|_| "{}".into());
                text[1..text.len() - 1].to_owned()
            }
        };
        out.push_str(&members);
        if let Some((session, cache)) = modern {
            let sep = if members.is_empty() { "" } else { "," };
            out.push_str(sep);
            out.push_str("\"resultType\":\"complete\"");
            if cache == Cacheable::Yes {
                let _ = write!(
                    out,
                    ",\"ttlMs\":{},\"cacheScope\":\"{}\"",
                    self.inner.config.cache_ttl_ms,
                    self.inner.config.cache_scope.as_str()
                );
            }
            if !has_meta {
                out.push_str(",\"_meta\":{\"");
                out.push_str(META_SERVER_INFO);
                out.push_str("\":");
                out.push_str(&self.server_info_json(session).await);
                out.push('}');
            }
        }
        out.push_str("}}");
        Reply {
            body: out,
            status: Status::Ok,
            modern: modern.is_some(),
        }
    }

    /// `serverInfo` as JSON text: cached, unless `server_info` is overridden.
    async fn server_info_json(&self, session: &Session) -> Cow<'_, str> {
        if self
            .inner
            .router
            .overrides(crate::server::Callback::ServerInfo)
        {
            let info = self.inner.server.server_info(session).await;
            Cow::Owned(serde_json::to_string(&info).unwrap_or_else(|_| "{}".into()))
        } else {
            Cow::Borrowed(&self.inner.server_info)
        }
    }

    fn error_reply(
        &self,
        id: Option<&RequestId>,
        mut error: ErrorObject,
        status: Status,
        modern: bool,
    ) -> Reply {
        if modern && error.code == codes::RESOURCE_NOT_FOUND {
            error.code = codes::INVALID_PARAMS;
        }
        let body = json!({ "jsonrpc": "2.0", "id": id, "error": error }).to_string();
        Reply {
            body,
            status,
            modern,
        }
    }
}

impl Failure {
    fn into_bad_request(self) -> Self {
        Self {
            status: Status::BadRequest,
            ..self
        }
    }
}

fn params_or_level_error(params: Option<&RawValue>) -> Result<SetLevelParams, Failure> {
    serde_json::from_str(params.map_or("{}", RawValue::get)).map_err(|_| {
        invalid("Invalid params: `level` must be one of debug, info, notice, warning, error, critical, alert, emergency")
            .with_data(json!({ "field": "level" }))
    })
}

impl Failure {
    fn with_data(mut self, data: Value) -> Self {
        self.error.data = Some(data);
        self
    }
}

/// Validates the modern `_meta` envelope and builds the request's session.
fn envelope_session(meta: &MetaProbe<'_>) -> Result<Session, Failure> {
    let missing = |key: &str, what: &str| {
        bad_request(
            ErrorObject::new(
                codes::INVALID_PARAMS,
                format!("Invalid params: {what} `_meta.{key}`"),
            )
            .with_data(json!({ "field": format!("_meta.{key}") })),
        )
    };
    let version_text = meta
        .version
        .and_then(|v| serde_json::from_str::<String>(v.get()).ok())
        .ok_or_else(|| missing(META_VERSION, "expected a version string in"))?;
    let version = ProtocolVersion::parse(&version_text)
        .filter(|v| v.is_modern())
        .ok_or_else(|| {
            let supported: Vec<&str> = ProtocolVersion::ALL
                .iter()
                .filter(|v| v.is_modern())
                .map(|v| v.as_str())
                .collect();
            bad_request(
                ErrorObject::new(
                    codes::UNSUPPORTED_PROTOCOL_VERSION,
                    "Unsupported protocol version",
                )
                .with_data(json!({ "supported": supported, "requested": version_text })),
            )
        })?;
    let caps = meta.caps.ok_or_else(|| missing(META_CAPS, "missing"))?;
    let caps: Value = serde_json::from_str(caps.get()).unwrap_or(Value::Null);
    if !caps.is_object() {
        return Err(missing(META_CAPS, "expected an object in"));
    }
    let mut session = Session::new(None, version);
    session.client_capabilities = Arc::new(caps);
    if let Some(info) = meta.info {
        session.client_info = Some(Arc::new(serde_json::from_str(info.get()).map_err(
            |_| {
                missing(
                    META_INFO,
                    "expected an Implementation object (`name`, `version`) in",
                )
            },
        )?));
    }
    if let Some(level) = meta.log {
        session.log_level = Some(
            serde_json::from_str(level.get())
                .map_err(|_| missing(META_LOG, "invalid log level in"))?,
        );
    }
    Ok(session)
}

/// Checks a call's arguments against the tool's declared arguments and compiled validators.
fn check_arguments<S>(entry: &crate::router::ToolEntry<S>, args: &Args<'_>) -> Result<(), String> {
    let unknown = args
        .names()
        .find(|n| !entry.specs.iter().any(|s| s.name == *n));
    if let Some(unknown) = unknown.filter(|_| !entry.takes_all) {
        return Err(format!(
            "unknown argument `{unknown}` for tool `{}`",
            entry.def.name
        ));
    }
    for (name, validator) in &entry.validators {
        let raw = if name.is_empty() {
            args.raw()
        } else {
            args.get(name)
        };
        let Some(raw) = raw.filter(|r| r.get() != "null") else {
            continue;
        };
        let value: Value = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
        if let Some(err) = validator.iter_errors(&value).next() {
            let path = err.instance_path.to_string();
            let field = std::iter::once(*name)
                .filter(|n| !n.is_empty())
                .chain(path.split('/').filter(|s| !s.is_empty()))
                .collect::<Vec<_>>()
                .join(".");
            if field.is_empty() {
                return Err(format!("invalid arguments: {err}"));
            }
            return Err(format!("invalid argument `{field}`: {err}"));
        }
    }
    Ok(())
}

/// Serializes a result struct as object members (without the braces).
fn members_of(value: &impl serde::Serialize) -> Result<Body, Failure> {
    match serde_json::to_string(value) {
        Ok(text) if text.len() >= 2 => Ok(Body::Members(text[1..text.len() - 1].to_owned())),
        _ => Err(Failure::from(ErrorObject::new(
            codes::INTERNAL_ERROR,
            "Internal error",
        ))),
    }
}

/// The capabilities of `required` (dotted paths such as `elicitation.url`) the client did not
/// declare, as a `ClientCapabilities` object; `None` when all are declared.
fn missing_capabilities(required: &[&str], declared: &Value) -> Option<Value> {
    let mut missing = Map::new();
    for path in required {
        let mut at = declared;
        let present = path.split('.').all(|key| match at.get(key) {
            Some(v) if !v.is_null() => {
                at = v;
                true
            }
            _ => false,
        });
        // An empty `elicitation` object is form mode only (the 2025-11-25 back-compat rule).
        let present = present
            || (*path == "elicitation.form"
                && declared
                    .get("elicitation")
                    .and_then(Value::as_object)
                    .is_some_and(Map::is_empty));
        if !present {
            let mut node = &mut missing;
            for key in path.split('.') {
                let next = node.entry(key).or_insert_with(|| Value::Object(Map::new()));
                if !next.is_object() {
                    *next = Value::Object(Map::new());
                }
                node = next.as_object_mut().expect("object");
            }
        }
    }
    (!missing.is_empty()).then_some(Value::Object(missing))
}
