//! One mounted upstream: its connections (one shared, one per legacy front session), the
//! forwarding of a request, and its entries kept in step with its lists.

use std::sync::{Arc, Mutex, Weak};

use serde_json::{Value, json};
use tokio::sync::OnceCell;

use super::bounded::Bounded;
use super::relay::Relay;
use super::{GatewayError, Target, Upstream, entries};
use crate::Ctx;
use crate::client::{Client, ClientError, Era};
use crate::extract::{Context, FromContext as _};
use crate::kernel::{Body, Failure, Locked as _};
use crate::protocol::{ErrorObject, Method, codes};
use crate::registry::Parts;
use crate::registry::{EntryKind, Registry};
use crate::session::Session;
use crate::store::Owner;

/// What the shared connection heard outside any request.
enum Heard {
    ListChanged,
    Updated(String),
}

/// Legacy upstream sessions kept at once; past it the least recently opened is closed.
const SESSIONS: usize = 1024;
/// Upstream tasks remembered at once (their ids and owners); past it the oldest is forgotten,
/// and `tasks/get` of it is answered as of an unknown task.
const TASKS: usize = 16_384;

type SessionClient = Arc<OnceCell<Arc<Client>>>;

/// An upstream's connections and how it is mounted.
pub(crate) struct Remote {
    pub(super) upstream: Upstream,
    label: String,
    shared: Arc<Client>,
    /// 2025-11-25 front sessions' own upstream sessions (HTTP upstreams), by front session id.
    sessions: Mutex<Bounded<SessionClient>>,
    /// The upstream URIs subscribed to on the shared connection (a front client subscribed).
    watched: Mutex<std::collections::HashSet<String>>,
    /// The tasks it started, by id, with the front owner they were started for.
    pub(super) tasks: Mutex<Bounded<Owner>>,
}

/// A mounted upstream: its entries stay served while this lives or until
/// [`unmount`](Self::unmount); dropping it leaves them (and their connection) in place.
pub struct Mounted {
    remote: Arc<Remote>,
    unmount: Box<dyn Fn() -> crate::BoxFuture<'static, ()> + Send + Sync>,
}

impl std::fmt::Debug for Mounted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mounted")
            .field("upstream", &self.remote.label)
            .finish_non_exhaustive()
    }
}

impl Mounted {
    /// The upstream's URL or command.
    pub fn label(&self) -> &str {
        &self.remote.label
    }

    /// The upstream's `serverInfo`, as it sent it.
    pub fn server_info(&self) -> &Value {
        self.remote.shared.server_info()
    }

    /// The era of the shared connection (legacy front sessions always get legacy ones).
    pub fn era(&self) -> Era {
        self.remote.shared.era()
    }

    /// Takes its entries out of the registry (the front's clients hear `list_changed`).
    pub async fn unmount(self) {
        (self.unmount)().await;
    }
}

fn builder(upstream: &Upstream, era: Era, capabilities: Option<&Value>) -> crate::client::Builder {
    let mut builder = match &upstream.target {
        Target::Http(url) => {
            let mut b = Client::http(url);
            for (name, value) in &upstream.headers {
                b = b.header(name, value);
            }
            #[cfg(feature = "oauth")]
            if let Some(oauth) = &upstream.oauth {
                b = b.oauth(oauth.clone());
            }
            b
        }
        Target::Stdio(program, args) => Client::stdio(program, args.clone()),
    };
    // What the front's client supports is checked when the upstream asks (`Forward`): the
    // upstream is told every kind is answered.
    let refuse = |_: Value| async { json!({}) };
    builder = builder
        .era(era)
        .timeout(upstream.timeout)
        .answer_raw(Method::ElicitationCreate, refuse)
        .answer_raw(Method::SamplingCreateMessage, refuse)
        .answer_raw(Method::RootsList, refuse)
        .tasks();
    if let Some(capabilities) = capabilities {
        builder = builder.capabilities(capabilities.clone());
    }
    builder
}

pub(super) async fn mount<S: 'static>(
    upstream: Upstream,
    registry: Registry<S>,
) -> Result<Mounted, GatewayError> {
    let label = upstream.label();
    let connect_error = |source| GatewayError::Connect {
        upstream: label.clone(),
        source,
    };
    // The listener hears `list_changed` and resource updates; it reaches the follower through
    // a channel, set once the remote exists.
    let changed: Arc<OnceCell<tokio::sync::mpsc::UnboundedSender<Heard>>> = Arc::default();
    let heard = Arc::clone(&changed);
    let shared = builder(&upstream, Era::Auto, None)
        .on_notification(move |method, params| {
            let event = match method {
                m if m.ends_with("/list_changed") => Heard::ListChanged,
                "notifications/resources/updated" => match params["uri"].as_str() {
                    Some(uri) => Heard::Updated(uri.to_owned()),
                    None => return,
                },
                _ => return,
            };
            if let Some(tx) = heard.get() {
                let _ = tx.send(event);
            }
        })
        .connect()
        .await
        .map_err(connect_error)?;
    let remote = Arc::new(Remote {
        upstream,
        label: label.clone(),
        shared: Arc::new(shared),
        sessions: Mutex::new(Bounded::new(SESSIONS)),
        tasks: Mutex::new(Bounded::new(TASKS)),
        watched: Mutex::default(),
    });
    let parts = entries::read(&remote).await.map_err(connect_error)?;
    let none = Parts::new(Vec::new(), Vec::new(), Vec::new());
    parts
        .replace(&none, &registry)
        .map_err(|source| GatewayError::Registry {
            upstream: label.clone(),
            source,
        })?;
    announce(&registry, &parts, &label).await;
    let current = Arc::new(tokio::sync::Mutex::new(parts));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let _ = changed.set(tx);
    let weak: Weak<Remote> = Arc::downgrade(&remote);
    let (following, refresh_registry) = (Arc::clone(&current), registry.clone());
    let follower = tokio::spawn(async move {
        while let Some(event) = rx.recv().await {
            let Some(remote) = weak.upgrade() else { return };
            match event {
                Heard::ListChanged => {
                    // Changes heard meanwhile are read by the same refresh.
                    while let Ok(Heard::ListChanged) = rx.try_recv() {}
                    refresh(&remote, &refresh_registry, &following).await;
                }
                Heard::Updated(uri) => {
                    let local = entries::local_uri(&remote, &uri);
                    let notifier = refresh_registry.notifier();
                    if let Err(e) = notifier.notify_resources_updated([local]).await {
                        tracing::warn!(upstream = %remote.label, error = %e, "an upstream resource update could not be passed on");
                    }
                }
            }
        }
    });
    let (unmounting, unmount_registry) = (Arc::clone(&current), registry);
    let unmount_label = label;
    let unmount = move || -> crate::BoxFuture<'static, ()> {
        follower.abort();
        let (current, registry, label) = (
            Arc::clone(&unmounting),
            unmount_registry.clone(),
            unmount_label.clone(),
        );
        Box::pin(async move {
            let mut current = current.lock().await;
            let empty = Parts::new(Vec::new(), Vec::new(), Vec::new());
            if let Err(e) = empty.replace(&current, &registry) {
                tracing::warn!(upstream = %label, error = %e, "could not unmount");
                return;
            }
            announce(&registry, &current, &label).await;
            *current = empty;
        })
    };
    Ok(Mounted {
        remote,
        unmount: Box::new(unmount),
    })
}

/// Reads the lists again and swaps the entries in; the front's clients hear what changed.
async fn refresh<S: 'static>(
    remote: &Arc<Remote>,
    registry: &Registry<S>,
    current: &tokio::sync::Mutex<Parts>,
) {
    let mut current = current.lock().await;
    let fresh = match entries::read(remote).await {
        Ok(parts) => parts,
        Err(e) => {
            tracing::warn!(upstream = %remote.label, error = %e, "could not read the upstream's lists again; the old ones stay");
            return;
        }
    };
    if let Err(e) = fresh.replace(&current, registry) {
        tracing::warn!(upstream = %remote.label, error = %e, "the upstream's new lists could not be served; the old ones stay");
        return;
    }
    announce(registry, &current, &remote.label).await;
    announce(registry, &fresh, &remote.label).await;
    *current = fresh;
}

async fn announce<S: 'static>(registry: &Registry<S>, parts: &Parts, label: &str) {
    let kinds: Vec<EntryKind> = [EntryKind::Tool, EntryKind::Prompt, EntryKind::Resource]
        .into_iter()
        .filter(|k| parts.has(*k))
        .collect();
    if let Err(e) = registry.announce_kinds(&kinds, label).await {
        tracing::warn!(upstream = %label, error = %e, "could not announce the upstream's lists");
    }
}

impl Remote {
    /// The connection a request of `session` is forwarded on.
    async fn client_for(&self, session: &Session) -> Result<Arc<Client>, ClientError> {
        let legacy_front = !session.is_modern() && !session.is_stateless();
        let (Some(id), true, Target::Http(_)) = (&session.id, legacy_front, &self.upstream.target)
        else {
            return Ok(Arc::clone(&self.shared));
        };
        let cell = {
            let mut sessions = self.sessions.locked();
            if let Some(cell) = sessions.get(id) {
                Arc::clone(cell)
            } else {
                let cell = SessionClient::default();
                if let Some(gone) = sessions.insert(id, Arc::clone(&cell))
                    && let Some(client) = gone.get().cloned()
                {
                    tokio::spawn(async move { client.close().await });
                }
                cell
            }
        };
        let client = cell
            .get_or_try_init(|| async {
                // The upstream session declares what the front session's client declared.
                let capabilities = Some(&*session.client_capabilities);
                let client = builder(&self.upstream, Era::Legacy, capabilities)
                    .connect()
                    .await?;
                // Every level is asked for: the front's `Ctx::log` keeps what its client wants.
                let _ = client
                    .request("logging/setLevel", json!({"level": "debug"}))
                    .await;
                Ok::<_, ClientError>(Arc::new(client))
            })
            .await?;
        Ok(Arc::clone(client))
    }

    /// The shared connection (lists, refresh).
    pub(super) fn shared(&self) -> &Client {
        &self.shared
    }

    /// An error naming this upstream; in 2026-07-28 a missing capability or a header mismatch
    /// keeps its `400`.
    fn failure(&self, method: &str, error: ClientError, session: &Session) -> Failure {
        let failure = self.failure_of(method, error);
        let bad_request = [codes::MISSING_CLIENT_CAPABILITY, codes::HEADER_MISMATCH];
        if session.is_modern() && bad_request.contains(&failure.error.code) {
            failure.with_status(crate::kernel::Status::BadRequest)
        } else {
            failure
        }
    }

    fn failure_of(&self, method: &str, error: ClientError) -> Failure {
        let (code, message, data) = match error {
            ClientError::Rpc {
                code,
                message,
                data,
            } => (
                i32::try_from(code).unwrap_or(codes::INTERNAL_ERROR),
                message,
                data,
            ),
            other => (
                codes::INTERNAL_ERROR,
                format!(
                    "Internal error: upstream `{}` did not answer `{method}`: {other}",
                    self.label
                ),
                Some(json!({"upstream": self.label})),
            ),
        };
        Failure::from(ErrorObject {
            code,
            message: message.into(),
            data,
        })
    }

    /// Forwards one request of the front's, and returns the upstream's result as this one's.
    pub(crate) async fn forward(
        &self,
        method: &str,
        mut params: Value,
        cx: &Context<'_>,
    ) -> Result<Body, Failure> {
        let client = self
            .client_for(cx.session)
            .await
            .map_err(|e| self.failure(method, e, cx.session))?;
        if client.era() == Era::Modern {
            if let Some(level) = cx.session.log_level {
                params["_meta"]["io.modelcontextprotocol/logLevel"] = json!(level);
            }
            if cx.session.is_modern() {
                // The upstream sees what the front's client declared, and refuses as it would.
                params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
                    (*cx.session.client_capabilities).clone();
            }
        }
        let relay = Relay {
            ctx: Ctx::from_context(cx).unwrap_or_else(|_| unreachable!("a Ctx always reads")),
        };
        let result = client.request_with(method, params, &relay).await;
        let result = result.map_err(|e| self.failure(method, e, cx.session))?;
        Ok(self.body(method, result, cx.session))
    }

    /// The upstream's result as this server's: its 2026-07-28 envelope (`resultType`, cache
    /// hints, its `serverInfo`) taken off — the front writes its own — and a task it started
    /// remembered for the caller.
    fn body(&self, method: &str, result: Value, session: &Session) -> Body {
        let Value::Object(mut map) = result else {
            return Body::Map(serde_json::Map::new());
        };
        let kind = map.remove("resultType");
        // Cache hints come as a pair (a task's own `ttlMs` has no `cacheScope`); a skill's are
        // its own, and kept.
        if !method.starts_with("skills/") && map.remove("cacheScope").is_some() {
            map.remove("ttlMs");
        }
        if let Some(Value::Object(meta)) = map.get_mut("_meta") {
            meta.remove("io.modelcontextprotocol/serverInfo");
            if meta.is_empty() {
                map.remove("_meta");
            }
        }
        // A `CreateTaskResult` is the task itself.
        let task_id = map.get("taskId").and_then(Value::as_str).map(str::to_owned);
        match (kind.as_ref().and_then(Value::as_str), task_id) {
            (Some("task"), Some(id)) => {
                self.tasks.locked().insert(&id, session.task_owner());
                Body::Task(map)
            }
            _ => Body::Map(map),
        }
    }

    /// A front client subscribed to the upstream's `uri`: the shared connection subscribes once
    /// (its updates reach every front client subscribed, through the front's notifier).
    pub(super) fn watch(self: &Arc<Self>, uri: String) {
        if !self.watched.locked().insert(uri.clone()) {
            return;
        }
        let remote = Arc::clone(self);
        tokio::spawn(async move {
            if let Err(e) = remote.shared.subscribe(&uri).await {
                tracing::warn!(upstream = %remote.label, %uri, error = %e, "could not subscribe upstream");
                remote.watched.locked().remove(&uri);
            }
        });
    }

    /// Whether the upstream serves the Skills extension.
    pub(super) fn serves_skills(&self) -> bool {
        self.shared.server_capabilities()["extensions"]
            .get("io.modelcontextprotocol/skills")
            .is_some()
    }

    /// Whether the upstream serves the Tasks extension.
    pub(super) fn runs_tasks(&self) -> bool {
        self.shared.server_capabilities()["extensions"]
            .get(crate::tasks::EXTENSION)
            .is_some()
    }

    /// Forwards a request that needs no line to the client (completion).
    pub(super) async fn forward_plain(
        &self,
        method: &str,
        params: Value,
        session: &Session,
    ) -> Result<Value, Failure> {
        let client = self
            .client_for(session)
            .await
            .map_err(|e| self.failure(method, e, session))?;
        client
            .request(method, params)
            .await
            .map_err(|e| self.failure(method, e, session))
    }
}
