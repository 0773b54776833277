//! For transport authors: the [`Dispatcher`] a transport hands each message to, the
//! [`SessionSlot`] a legacy session travels in, the [`Outbound`] path of messages sent before a
//! result, and the [`Reply`] with the [`Status`] a transport maps to its own answer (an HTTP status
//! on HTTP). [`http`](crate::http) and [`stdio`](crate::stdio) are built on these alone.
//!
//! Inside the crate: classifies each message's era, checks the envelope and routes the method to
//! the room that serves it.

mod connect;
mod env;
pub(crate) mod envelope;
mod feature;
mod legacy;
mod lifecycle;
mod list;
mod modern;
mod read;
mod reply;
mod scan;

use std::sync::Arc;

use serde_json::value::RawValue;

use crate::kernel::{Failure, Handling};
use crate::node::Node;
use crate::protocol::{Era, ErrorObject, Incoming, Method, ProtocolVersion, Target, codes};
use crate::registry::{Parts, Registry, RegistryError, Tables};
use crate::router::Router;
use crate::server::{Config, Server};
use crate::session::ListKind;
use crate::session::{Request, Session};
pub(crate) use crate::session::{reply_key, session_key};

pub use crate::kernel::{Frame, Outbound, Reply, Status};
pub(crate) use crate::protocol::raw_str;
pub use crate::session::{SessionSlot, Transport};
#[cfg(feature = "http")]
pub(crate) use envelope::MetaProbe;
pub(crate) use envelope::ParamsHead;
pub(crate) use read::read_message_within;
#[cfg(feature = "fuzzing")]
pub(crate) use read::same_as_serde;

/// `params.arguments` as read with the params (`Some`), or to be read again from the params a
/// middleware rewrote (`None`).
pub(crate) type Arguments<'a> = Option<Option<&'a RawValue>>;

/// The state of one served instance, private to the dispatcher: rooms see what their `Env`
/// trait names (`env.rs`).
pub(crate) struct Inner<S: 'static> {
    server: S,
    router: &'static Router<S>,
    config: Config,
    /// Serialized first pages of the cached lists (no allow-list, no cursor), by
    /// [`ListKind::CACHED`] position, as declared.
    first_pages: [String; 3],
    server_info: String,
    /// The last `_meta` clientInfo decoded (2026-07-28 requests repeat it).
    client_info: envelope::ClientInfoCache,
    /// What stays on this node: open streams, requests in flight, waiting handlers, running tasks.
    node: Node,
    /// Each room's table: declared entries and those added at run time.
    tables: Arc<Tables<S>>,
    /// Counts this dispatcher on its notifier while it lives (a change nothing serves is logged).
    _attached: crate::store::notifier::Attached,
    /// Set once the registry store's disabled entries were loaded (with a registry store).
    registry_loaded: tokio::sync::OnceCell<()>,
    /// Whether a failed load was logged (once per outage).
    registry_warned: std::sync::atomic::AtomicBool,
    /// Set once this node's key tags are being published again and again.
    keyring_renewed: std::sync::atomic::AtomicBool,
    /// The request metrics' handles (nothing without the `metrics` feature).
    metrics: crate::telemetry::metrics::Requests,
}

impl<S> Inner<S> {
    pub(crate) fn first_page(&self, kind: ListKind) -> Option<&str> {
        let i = ListKind::CACHED.iter().position(|k| *k == kind)?;
        Some(&self.first_pages[i])
    }
}

/// Serves one server: classifies each message's era, runs the method, serializes the reply.
/// Cheap to clone; every transport holds one.
pub struct Dispatcher<S: 'static> {
    pub(crate) inner: Arc<Inner<S>>,
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

impl<S: Server> Dispatcher<S> {
    /// A dispatcher with the default [`Config`].
    pub fn new(server: S) -> Self {
        Self::with_config(server, Config::default())
    }

    /// A dispatcher with a config. Builds the router tables (once per type) and the cached first
    /// pages (once per dispatcher).
    pub fn with_config(server: S, config: Config) -> Self {
        let router = S::__router();
        let everyone = Session::default();
        let tables = Arc::new(Tables::new(router, &config));
        let first_pages = ListKind::CACHED.map(|kind| {
            tables
                .list_page(kind, &everyone, None)
                .unwrap_or_else(|_| unreachable!("no cursor, no error"))
        });
        let server_info = serde_json::to_string(&router.info.implementation()).unwrap_or_default();
        let node = Node::new(Arc::clone(&config.reply_bus), config.reply_timeout);
        let attached = config.notifier.attach();
        let attach = crate::server::middleware::Attach::of(&config);
        for middleware in config
            .middleware
            .iter()
            .chain(config.tool_middleware.values().flatten())
        {
            middleware.attach(&attach);
        }
        Self {
            inner: Arc::new(Inner {
                server,
                router,
                config,
                first_pages,
                server_info,
                client_info: envelope::ClientInfoCache::default(),
                node,
                tables,
                _attached: attached,
                registry_loaded: tokio::sync::OnceCell::new(),
                registry_warned: std::sync::atomic::AtomicBool::new(false),
                keyring_renewed: std::sync::atomic::AtomicBool::new(false),
                metrics: crate::telemetry::metrics::Requests::default(),
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

    /// What announces changes to this server's clients (the config's notifier): clone it for
    /// background jobs.
    pub fn notifier(&self) -> &crate::Notifier {
        &self.inner.config.notifier
    }

    /// Runtime registration for this served instance.
    pub fn registry(&self) -> Registry<S> {
        Registry::new(
            Arc::clone(&self.inner.tables),
            self.inner.config.notifier.clone(),
            self.inner.config.registry_store.clone(),
        )
    }

    /// Serves the tools, prompts and resources of another `#[mcp_router]` impl beside this
    /// one's, under their own names. `other` keeps its own state; the callbacks (`connect`,
    /// `list_resources`, the allow-lists, …) stay this router's.
    ///
    /// A name or URI template that is taken already is an `Err`, and nothing is merged.
    pub fn merge<T: Server>(self, other: T) -> Result<Self, RegistryError> {
        Parts::of(None, other)?.compose(&self.registry())?;
        Ok(self)
    }

    /// [`merge`](Self::merge) with the tools, prompts and resources renamed
    /// `<prefix>_<name>` (URIs stay as they are). The prefixed tool names must still obey MCP's
    /// tool-name rule.
    pub fn mount<T: Server>(self, prefix: &str, other: T) -> Result<Self, RegistryError> {
        Parts::of(Some(prefix), other)?.compose(&self.registry())?;
        Ok(self)
    }

    /// Registers a stream that hears of changes; the messages come on the receiver.
    pub(crate) fn listen_for_changes(
        &self,
        session: Arc<Session>,
        kind: crate::subscriptions::Kind,
    ) -> (
        crate::subscriptions::Registration,
        crate::subscriptions::Changes,
    ) {
        crate::subscriptions::listen_for_changes(self, session, kind)
    }

    /// The `(argument, header)` pairs of a tool's `Mcp-Param-*` headers (declared or added).
    #[cfg(feature = "http")]
    pub(crate) fn tool_headers(
        &self,
        name: &str,
    ) -> Vec<(
        std::borrow::Cow<'static, str>,
        std::borrow::Cow<'static, str>,
    )> {
        self.inner.tables.tools.headers(name)
    }

    /// Hands a client's answer to the request waiting for it on this node (the test kit's
    /// client answers this way).
    pub(crate) async fn deliver_answer(
        &self,
        session: &str,
        id: &str,
        answer: crate::store::ClientAnswer,
    ) -> bool {
        self.inner.node.replies.deliver(session, id, answer).await
    }

    /// Handles one message (or a batch array) from a client. Returns `None` when nothing is to be
    /// sent (an accepted notification or response). What the handling sends before its result
    /// (progress, log messages) goes to `outbound`.
    pub async fn handle(
        &self,
        text: &str,
        request: &Request,
        slot: &mut SessionSlot,
        outbound: &Outbound,
    ) -> Option<Reply> {
        if text.trim_start().starts_with('[') {
            if let Some(refused) = self.too_deep(text) {
                return Some(refused);
            }
            // Boxed: batches are rare (2025-03-26 and earlier), and their future is as large as
            // a whole message's; inline it would make every message's future twice as large.
            return Box::pin(self.handle_batch(text, request, slot, outbound)).await;
        }
        match read_message_within(text, self.json_depth()) {
            Some(Ok((msg, head))) => self.handle_parsed(msg, head, request, slot, outbound).await,
            Some(Err((id, error))) => {
                Some(self.error_reply(id.as_ref(), error, Status::BadRequest, Era::Legacy))
            }
            None => self.too_deep(text),
        }
    }

    /// [`Config::json_depth`]: how deep a message may nest arrays and objects.
    pub(crate) fn json_depth(&self) -> usize {
        self.inner.config.json_depth
    }

    /// The `-32700` answer to a message that nests deeper than [`Config::json_depth`].
    pub(crate) fn too_deep(&self, text: &str) -> Option<Reply> {
        let limit = self.inner.config.json_depth;
        crate::protocol::nests_deeper_than(text.as_bytes(), limit).then(|| {
            let error = ErrorObject::new(
                codes::PARSE_ERROR,
                format!("Parse error: the message nests arrays and objects deeper than {limit} levels (Config::json_depth)"),
            );
            self.error_reply(None, error, Status::BadRequest, Era::Legacy)
        })
    }

    async fn handle_batch(
        &self,
        text: &str,
        request: &Request,
        slot: &mut SessionSlot,
        outbound: &Outbound,
    ) -> Option<Reply> {
        let refuse = |message: String| {
            let error = ErrorObject::new(codes::INVALID_REQUEST, message);
            Some(self.error_reply(None, error, Status::BadRequest, Era::Legacy))
        };
        let items: Vec<&RawValue> = match serde_json::from_str(text) {
            Ok(items) => items,
            Err(e) => {
                let error = ErrorObject::new(codes::PARSE_ERROR, format!("Parse error: {e}"));
                return Some(self.error_reply(None, error, Status::BadRequest, Era::Legacy));
            }
        };
        let allows_batches = slot
            .get()
            .is_some_and(|s| s.protocol_version <= ProtocolVersion::V2025_03_26);
        if !allows_batches || items.is_empty() {
            return refuse(
                "Invalid request: JSON-RPC batches are not supported by this protocol version; send one message per request".into(),
            );
        }
        // Each item read once, by the one reader (the batch's depth is checked already); a
        // batch with a 2026-07-28 request is refused before anything runs, so it has no effects.
        let reads: Vec<_> = items
            .iter()
            .map(|item| read_message_within(item.get(), usize::MAX))
            .collect();
        let claims_modern = reads
            .iter()
            .any(|read| matches!(read, Some(Ok((_, head))) if head.claimed_version().is_some()));
        if claims_modern {
            return refuse("Invalid request: a batch cannot carry a 2026-07-28 request".into());
        }
        let ends = Self::ends_a_request(request, slot);
        let mut bodies = Vec::new();
        for read in reads {
            let reply = match read {
                Some(Ok((msg, head))) => {
                    self.message(msg, head, request, slot, outbound, false)
                        .await
                }
                Some(Err((id, error))) => {
                    Some(self.error_reply(id.as_ref(), error, Status::Ok, Era::Legacy))
                }
                None => None,
            };
            bodies.extend(reply.map(|r| r.body));
        }
        if ends && let Some(session) = slot.get() {
            self.disconnect(session).await;
        }
        if bodies.is_empty() {
            return None;
        }
        Some(Reply {
            body: format!("[{}]", bodies.join(",")),
            status: Status::Ok,
            era: Era::Legacy,
        })
    }

    /// Handles a message a transport has already read (with the one reader), with the head of
    /// its params. Not an `async fn`: its future is [`message`](Self::message)'s, not one more
    /// around it.
    pub(crate) fn handle_parsed<'a>(
        &'a self,
        msg: Incoming<'a>,
        head: ParamsHead<'a>,
        request: &'a Request,
        slot: &'a mut SessionSlot,
        outbound: &'a Outbound,
    ) -> impl std::future::Future<Output = Option<Reply>> + Send + 'a {
        self.message(msg, head, request, slot, outbound, true)
    }

    /// Whether a legacy message ends a request for `disconnect`: every message a client sends on
    /// an open legacy session over HTTP (`connect` ran for it), as every 2026-07-28 request ends
    /// one (`modern.rs`).
    fn ends_a_request(request: &Request, slot: &SessionSlot) -> bool {
        request.transport == crate::session::Transport::Http
            && !slot.stateless
            && slot.get().is_some()
    }

    /// One message; `disconnect` after it when `own_request` (a batch runs it once, at its end).
    async fn message(
        &self,
        msg: Incoming<'_>,
        mut head: ParamsHead<'_>,
        request: &Request,
        slot: &mut SessionSlot,
        outbound: &Outbound,
        own_request: bool,
    ) -> Option<Reply> {
        let ends = own_request && Self::ends_a_request(request, slot);
        let shares_registry = self.inner.config.registry_store.is_some();
        if !self.inner.config.notifier.in_process() || shares_registry {
            // With a bus shared by several nodes, this node hears of cancellations, task
            // changes and list changes made elsewhere from its first request on.
            crate::subscriptions::start_fan_out(self);
        }
        if shares_registry && !self.inner.registry_loaded.initialized() {
            self.load_registry().await;
        }
        let progress = head.meta.as_ref().and_then(|m| m.progress);
        let trace = head
            .meta
            .as_ref()
            .map(|m| crate::telemetry::Trace {
                parent: m.traceparent,
                state: m.tracestate,
            })
            .unwrap_or_default();
        let claim = head.meta.take().filter(|m| m.version.is_some());
        let out = Out {
            outbound,
            progress,
            target: &head.target,
            arguments: Some(head.arguments),
            responses: head.input_responses,
            state: head.request_state,
        };
        let reply = match msg {
            Incoming::Request { id, method, params } => {
                let timer = self.inner.metrics.start();
                let modern = claim.is_some();
                let (span, ended) = crate::telemetry::request_span(
                    &method,
                    &id,
                    claim.is_some(),
                    head.target.name(),
                    slot.get(),
                    trace,
                );
                // One `guarded` per era, not one around both: an async block holding both futures
                // would be as large as the two together.
                let handled = match claim {
                    Some(meta) => Handling::new(
                        &method,
                        span,
                        self.modern(&id, &method, params, meta, request, out),
                    )
                    .await
                    .map(Some),
                    None => {
                        Handling::new(
                            &method,
                            span,
                            self.legacy(&id, &method, params, request, slot, out),
                        )
                        .await
                    }
                };
                let reply = handled.unwrap_or_else(|_| {
                    let error = ErrorObject::new(codes::INTERNAL_ERROR, "Internal error");
                    Some(self.error_reply(Some(&id), error, Status::Ok, Era::Legacy))
                });
                if let Some(ended) = ended {
                    ended.record(reply.as_ref());
                }
                let op = crate::telemetry::metrics::Operation {
                    method: &method,
                    version: match modern {
                        true => Some(ProtocolVersion::V2026_07_28),
                        false => slot.get().map(|s| s.protocol_version),
                    },
                    tool: head.target.name(),
                };
                timer.end(op, |tool| self.inner.tables.tools.has(tool), reply.as_ref());
                reply
            }
            Incoming::Notification { method, params } => {
                // A notification answers nothing, but `connect` still decides whether it may be
                // delivered: a rejection is the one thing a transport sends back (with no id).
                match self.connect_message(claim.is_some(), request, slot).await {
                    Err(f) => Some(self.error_reply(None, f.error, f.status, Era::Legacy)),
                    Ok(()) => {
                        match Method::parse(&method) {
                            Some(Method::Initialized) => tracing::debug!("client initialized"),
                            Some(Method::Cancelled) => self.cancel(params, slot.get()),
                            _ => tracing::debug!(%method, "notification ignored"),
                        }
                        None
                    }
                }
            }
            Incoming::Response { id, outcome } => {
                match self.connect_message(false, request, slot).await {
                    Err(f) => Some(self.error_reply(None, f.error, f.status, Era::Legacy)),
                    Ok(()) => self.deliver(&id, outcome, slot.get()).await,
                }
            }
        };
        if ends && let Some(session) = slot.get() {
            self.disconnect(session).await;
        }
        reply
    }

    /// Hands a client's answer to the handler waiting for it on this session. An answer nobody
    /// waits for here (an unknown id, another session's request, an answer already given) is
    /// refused with `-32600` and no id (HTTP 400).
    async fn deliver(
        &self,
        id: &crate::protocol::RequestId,
        outcome: Result<&RawValue, &RawValue>,
        session: Option<&Session>,
    ) -> Option<Reply> {
        let key = match id {
            crate::protocol::RequestId::String(s) => s.to_string(),
            crate::protocol::RequestId::Number(n) => n.to_string(),
        };
        let answer = match outcome {
            Ok(result) => crate::store::ClientAnswer::Result(result.get().to_owned()),
            Err(error) => crate::store::ClientAnswer::Error(error.get().to_owned()),
        };
        let delivered = match session {
            Some(session) => {
                self.inner
                    .node
                    .replies
                    .deliver(reply_key(session), &key, answer)
                    .await
            }
            None => false,
        };
        if delivered {
            return None;
        }
        tracing::debug!(%key, "a response to no request waiting on this session; refused");
        let error = ErrorObject::new(
            codes::INVALID_REQUEST,
            format!(
                "Invalid request: no request with id {key} is waiting for an answer on this session"
            ),
        );
        Some(self.error_reply(None, error, Status::BadRequest, Era::Legacy))
    }
}

/// Where a request's early messages go, and the progress token they answer to.
#[derive(Clone, Copy)]
pub(crate) struct Out<'a> {
    pub(crate) outbound: &'a Outbound,
    pub(crate) progress: Option<&'a RawValue>,
    /// What the request names, decoded once with its params.
    pub(crate) target: &'a Target<'a>,
    /// `params.arguments` as read with the params.
    pub(crate) arguments: Arguments<'a>,
    /// `params.inputResponses` of a 2026-07-28 retry.
    pub(crate) responses: Option<&'a RawValue>,
    /// `params.requestState` of a 2026-07-28 retry.
    pub(crate) state: Option<&'a RawValue>,
}

/// `-32601 Method not found` naming the method.
pub(crate) fn method_not_found(method: &str) -> Failure {
    Failure::from(
        ErrorObject::new(codes::METHOD_NOT_FOUND, "Method not found")
            .with_data(serde_json::json!({ "method": method })),
    )
}
