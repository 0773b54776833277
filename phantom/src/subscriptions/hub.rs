//! The streams open on this node and the fan-out of each change to them.
//!
//! A stream registers a listener (its session as `connect` left it, what it listens to, and a
//! bounded channel its transport drains). The first registration subscribes the served router
//! to the notification bus; a task then fans every change out to the listeners registered at
//! that moment. A listener whose channel is full misses the message (logged): a stalled client
//! cannot hold the others back.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use futures_channel::mpsc;
use futures_util::StreamExt as _;
use serde_json::{Map, Value};
use tokio::sync::watch;

use super::note::{Note, Tagged, message};
use super::{Env, Honoured};
use crate::kernel::Callback;
use crate::kernel::Locked as _;
use crate::kernel::guarded;
use crate::protocol::Method;
use crate::resources::{Authorized, ResolvedResource};
use crate::session::{AllowList, Session, allowed};
use crate::store::{BusEvent, Change};

/// Messages a listener's channel holds before the next one is dropped.
const BACKLOG: usize = 256;

type Listeners = Mutex<HashMap<u64, Arc<Listener>>>;

/// The listeners of one served router.
pub(crate) struct Hub {
    listeners: Arc<Listeners>,
    next: AtomicU64,
    pump: OnceLock<tokio::task::AbortHandle>,
    closing: watch::Sender<bool>,
}

impl Default for Hub {
    fn default() -> Self {
        Self {
            listeners: Arc::default(),
            next: AtomicU64::new(0),
            pump: OnceLock::new(),
            closing: watch::channel(false).0,
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        if let Some(pump) = self.pump.get() {
            pump.abort();
        }
    }
}

/// One open stream.
pub(crate) struct Listener {
    session: Arc<Session>,
    /// The session's key in the subscription store.
    key: Arc<str>,
    /// The session has no resource allow-list (it may see every resource): read once here, not
    /// from the session for each update.
    all_resources: bool,
    kind: Kind,
    /// futures' bounded channel rather than tokio's: an idle one costs about 0.3 KB instead of
    /// 1.3 KB (tokio allocates a 32-slot block and a cache-padded channel up front), and a node
    /// per message instead; it is held by every open stream.
    tx: Mutex<mpsc::Sender<Note>>,
}

/// The messages of one open stream, in order; ends when its listener is dropped.
pub(crate) type Changes = mpsc::Receiver<Note>;

/// What a stream listens to.
pub(crate) enum Kind {
    /// A legacy session's stream (HTTP GET, stdio): every list change it may see, and the
    /// resources it subscribed to (the subscription store).
    Session,
    /// A 2026-07-28 `subscriptions/listen`: what it asked for and was granted; `tag` is its
    /// request id as JSON text, which tags every notification.
    Listen { tag: Box<str>, honoured: Honoured },
}

/// Keeps a listener registered; dropping it ends the registration.
pub(crate) struct Registration {
    listeners: Weak<Listeners>,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(listeners) = self.listeners.upgrade() {
            lock(&listeners).remove(&self.id);
        }
    }
}

fn lock(listeners: &Listeners) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Listener>>> {
    listeners.locked()
}

impl Hub {
    /// Open streams on this node (the HTTP transport's limit counts them).
    #[cfg(feature = "http")]
    pub(crate) fn len(&self) -> usize {
        lock(&self.listeners).len()
    }

    /// Fires once the server shuts down: listens end with a final result.
    pub(crate) fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }

    pub(crate) fn close(&self) {
        self.closing.send_replace(true);
        // A listen reads the flag when woken: closing its channel wakes it (and it ends).
        for listener in self.snapshot() {
            if let Kind::Listen { .. } = listener.kind {
                listener.tx.locked().close_channel();
            }
        }
    }

    fn snapshot(&self) -> Vec<Arc<Listener>> {
        lock(&self.listeners).values().cloned().collect()
    }
}

impl Listener {
    /// This stream's copy of a notification written for every listen: its subscription id in
    /// `_meta` (a legacy stream, which has none, hears the plain message instead).
    fn tagged(&self, tagged: &Tagged) -> Note {
        Note::Own(match &self.kind {
            Kind::Listen { tag, .. } => tagged.with(tag),
            Kind::Session => tagged.with("null"),
        })
    }

    fn send(&self, message: Note) {
        let sent = self.tx.locked().try_send(message);
        if sent.is_err_and(|e| e.is_full()) {
            tracing::warn!(
                session = %self.key,
                "a stream is {BACKLOG} messages behind; a change notification was dropped"
            );
        }
    }

    /// Whether this stream hears of a change to a list (`names`: what changed, empty when not
    /// said) that its session sees through `list`.
    fn hears_list(
        &self,
        wanted: impl Fn(&Honoured) -> bool,
        list: &Option<AllowList>,
        names: &[String],
    ) -> bool {
        let asked = match &self.kind {
            Kind::Session => true,
            Kind::Listen { honoured, .. } => wanted(honoured),
        };
        asked
            && match list {
                None => true,
                Some(list) if names.is_empty() => !list.is_empty(),
                Some(list) => names.iter().any(|n| list.contains(n)),
            }
    }
}

/// Registers a stream that hears of changes; the messages come on the receiver.
pub(crate) fn listen_for_changes<E: Env>(
    env: &E,
    session: Arc<Session>,
    kind: Kind,
) -> (Registration, Changes) {
    start_fan_out(env);
    let hub = env.hub();
    let (tx, rx) = mpsc::channel(BACKLOG);
    let id = hub.next.fetch_add(1, Ordering::Relaxed);
    let key = crate::session::session_key(&session);
    let listener = Listener {
        all_resources: session.allowed_resource_templates.is_none(),
        session,
        key,
        kind,
        tx: Mutex::new(tx),
    };
    lock(&hub.listeners).insert(id, Arc::new(listener));
    let registration = Registration {
        listeners: Arc::downgrade(&hub.listeners),
        id,
    };
    (registration, rx)
}

/// Subscribes this router to the notification bus, once.
pub(crate) fn start_fan_out<E: Env>(env: &E) {
    env.hub().pump.get_or_init(|| {
        let mut changes = env.notifier().bus().subscribe();
        let weak = env.downgrade();
        tokio::spawn(async move {
            while let Some(event) = changes.next().await {
                let Some(env) = E::upgrade(&weak) else { break };
                match event {
                    BusEvent::Change(change) => {
                        if matches!(
                            change,
                            Change::ToolsChanged { .. }
                                | Change::PromptsChanged { .. }
                                | Change::ResourcesChanged { .. }
                        ) {
                            env.resync().await;
                        }
                        fan_out(&env, change).await;
                    }
                    // What was missed is unknown: every list may have changed.
                    BusEvent::Gap => {
                        crate::telemetry::metrics::bus_gap();
                        env.resync().await;
                        for change in [
                            Change::ToolsChanged { names: Vec::new() },
                            Change::PromptsChanged { names: Vec::new() },
                            Change::ResourcesChanged { names: Vec::new() },
                        ] {
                            fan_out(&env, change).await;
                        }
                        after_gap(&env).await;
                    }
                }
            }
        })
        .abort_handle()
    });
}

/// What a gap may have hidden from the listens open now, told again: each resource a listen
/// subscribed to gets `notifications/resources/updated` (the client reads it again; a legacy
/// session subscribed to one of them too), and each task a listen follows its current state.
async fn after_gap<E: Env>(env: &E) {
    let listeners = env.hub().snapshot();
    let mut uris = HashSet::new();
    let mut tasks = HashSet::new();
    for l in &listeners {
        if let Kind::Listen { honoured, .. } = &l.kind {
            uris.extend(honoured.uris.iter().cloned());
            tasks.extend(honoured.followed());
        }
    }
    if !uris.is_empty() {
        let mut uris: Vec<String> = uris.into_iter().collect();
        uris.sort();
        updated(env, &listeners, uris).await;
    }
    for task_id in tasks {
        task_updated(env, &listeners, &task_id).await;
    }
}

/// Delivers one change to every stream open now that may hear of it.
pub(crate) async fn fan_out<E: Env>(env: &E, change: Change) {
    let listeners = env.hub().snapshot();
    let list = |method: Method,
                names: &[String],
                wanted: fn(&Honoured) -> bool,
                list: fn(&Session) -> &Option<AllowList>| {
        let plain = Note::Shared(message(method, Map::new()).into());
        let tagged = Tagged::new(method, &Map::new());
        for l in &listeners {
            if l.hears_list(wanted, list(&l.session), names) {
                match &l.kind {
                    Kind::Session => l.send(plain.clone()),
                    Kind::Listen { .. } => l.send(l.tagged(&tagged)),
                }
            }
        }
    };
    match change {
        Change::ToolsChanged { names } => list(
            Method::ToolsListChanged,
            &names,
            |h| h.tools,
            |s| &s.allowed_tools,
        ),
        Change::PromptsChanged { names } => list(
            Method::PromptsListChanged,
            &names,
            |h| h.prompts,
            |s| &s.allowed_prompts,
        ),
        Change::ResourcesChanged { names } => list(
            Method::ResourcesListChanged,
            &names,
            |h| h.resources,
            |s| &s.allowed_resource_templates,
        ),
        Change::ResourcesUpdated { uris } => updated(env, &listeners, uris).await,
        Change::TaskUpdated { task_id } => {
            crate::tasks::stop_if_ended(env, &task_id).await;
            task_updated(env, &listeners, &task_id).await;
        }
        Change::TaskInput { task_id, responses } => {
            crate::tasks::deliver_input(env.running(), &task_id, responses);
        }
        Change::RequestCancelled {
            session,
            request_id,
        } => {
            env.cancel_in_flight(&session, &request_id);
        }
        Change::ElicitationComplete {
            session,
            elicitation_id,
        } => {
            let mut params = Map::new();
            params.insert("elicitationId".into(), elicitation_id.into());
            for l in &listeners {
                if matches!(l.kind, Kind::Session) && *l.key == *session {
                    l.send(Note::Own(message(
                        Method::ElicitationComplete,
                        params.clone(),
                    )));
                }
            }
        }
    }
}

/// `notifications/tasks` to each listen that follows the task, with the task as the
/// listen's session may see it now: a task it can no longer see is no longer followed, and
/// neither is one that ended (after this last notification).
async fn task_updated<E: Env>(env: &E, listeners: &[Arc<Listener>], task_id: &str) {
    for l in listeners {
        let Kind::Listen { honoured, .. } = &l.kind else {
            continue;
        };
        if !honoured.follows(task_id) {
            continue;
        }
        let task = match crate::tasks::find_task(env, task_id, &l.session).await {
            Ok(Some(task)) => task,
            Ok(None) => {
                honoured.unfollow(task_id);
                continue;
            }
            Err(failure) => {
                tracing::warn!(task = %task_id, error = %failure.error.message, "a followed task could not be fetched; its change was not delivered");
                continue;
            }
        };
        if task.status.is_terminal() {
            honoured.unfollow(task_id);
        }
        match serde_json::to_value(&task) {
            Ok(Value::Object(params)) => {
                l.send(l.tagged(&Tagged::new(Method::TaskNotification, &params)));
            }
            _ => tracing::warn!(task = %task_id, "a followed task could not be written"),
        }
    }
}

/// `notifications/resources/updated` to each stream subscribed to one of `uris`, after one
/// authorization per stream for the whole batch.
async fn updated<E: Env>(env: &E, listeners: &[Arc<Listener>], uris: Vec<String>) {
    let mut seen = HashSet::new();
    let resolved: Vec<ResolvedResource> = uris
        .into_iter()
        .filter(|u| seen.insert(u.clone()))
        .filter_map(|u| env.resolve(&u))
        .collect();
    if resolved.is_empty() {
        return;
    }
    let all: Vec<String> = resolved.iter().map(|r| r.uri.clone()).collect();
    let store = env.subscription_store();
    let asks = env.defines(Callback::AuthorizeResourceSubscriptions);
    // A notification is the same for every legacy stream, and for every listen but its tag:
    // written once per URI.
    let (plain, tagged): (Vec<Note>, Vec<Tagged>) = all
        .iter()
        .map(|uri| {
            let mut params = Map::new();
            params.insert("uri".into(), uri.as_str().into());
            let tagged = Tagged::new(Method::ResourcesUpdated, &params);
            let plain = Note::Shared(message(Method::ResourcesUpdated, params).into());
            (plain, tagged)
        })
        .unzip();
    // Which of them each legacy session subscribed to: one store call for every session here.
    let keys: Vec<&str> = listeners
        .iter()
        .filter(|l| matches!(l.kind, Kind::Session))
        .map(|l| &*l.key)
        .collect();
    let answer = if keys.is_empty() {
        Ok(Vec::new())
    } else {
        store.subscribed_each(&keys, &all).await
    };
    let found = match answer {
        Ok(found) if found.len() == keys.len() * all.len() => found,
        Ok(found) => {
            tracing::error!(
                flags = found.len(),
                expected = keys.len() * all.len(),
                "the subscription store answered subscribed_each with the wrong number of flags; updates not delivered to legacy sessions"
            );
            Vec::new()
        }
        Err(e) => {
            crate::telemetry::metrics::store_error("subscriptions");
            tracing::warn!(error = %e, sessions = keys.len(), "subscription store failed; updates not delivered to legacy sessions");
            Vec::new()
        }
    };
    let mut sessions = found.chunks_exact(all.len());
    for l in listeners {
        let flags = match &l.kind {
            Kind::Session => match sessions.next() {
                Some(flags) => Some(flags),
                // The store failed.
                None => continue,
            },
            Kind::Listen { .. } => None,
        };
        let wanted = |i: usize| match &l.kind {
            Kind::Session => flags.is_some_and(|flags| flags[i]),
            Kind::Listen { honoured, .. } => honoured.uris.contains(&all[i]),
        };
        let sees = |r: &ResolvedResource| {
            l.all_resources || allowed(&l.session.allowed_resource_templates, &r.template.name)
        };
        if !asks {
            // Nothing to ask: each resource it follows and may see, in order, without a list
            // made per stream.
            for (i, r) in resolved.iter().enumerate() {
                if wanted(i) && sees(r) {
                    match &l.kind {
                        Kind::Session => l.send(plain[i].clone()),
                        Kind::Listen { .. } => l.send(l.tagged(&tagged[i])),
                    }
                }
            }
            continue;
        }
        let offered: Vec<ResolvedResource> = resolved
            .iter()
            .enumerate()
            .filter(|(i, r)| wanted(*i) && sees(r))
            .map(|(_, r)| r.clone())
            .collect();
        if offered.is_empty() {
            continue;
        }
        let granted = authorize_resources(env, offered, &l.session).await;
        for uri in granted {
            let i = all.iter().position(|u| *u == uri).unwrap_or_default();
            match &l.kind {
                Kind::Session => l.send(plain[i].clone()),
                Kind::Listen { .. } => l.send(l.tagged(&tagged[i])),
            }
        }
    }
}

/// The URIs among `offered` that `authorize_resource_subscriptions` allows `session`. A
/// callback that panics, or answers with a resource it was not offered, allows none (fail
/// closed), and it is logged.
pub(crate) async fn authorize_resources<E: Env>(
    env: &E,
    offered: Vec<ResolvedResource>,
    session: &Session,
) -> Vec<String> {
    let asked: Vec<String> = offered.iter().map(|r| r.uri.clone()).collect();
    if !env.defines(Callback::AuthorizeResourceSubscriptions) {
        for uri in &asked {
            env.watch(uri);
        }
        return asked;
    }
    let answer = env.authorize_resource_subscriptions(offered, session);
    let Ok(answer) = guarded("authorize_resource_subscriptions", "", answer).await else {
        return Vec::new();
    };
    let allowed: Vec<String> = match answer {
        Authorized::Resources(resources) => resources.into_iter().map(|r| r.uri).collect(),
        Authorized::Uris(uris) => uris,
    };
    if let Some(stray) = allowed.iter().find(|u| !asked.contains(u)) {
        tracing::error!(
            uri = %stray,
            "authorize_resource_subscriptions allowed a resource it was not asked about; all of this batch refused"
        );
        return Vec::new();
    }
    // In the order asked, once each.
    let granted: Vec<String> = asked.into_iter().filter(|u| allowed.contains(u)).collect();
    for uri in &granted {
        env.watch(uri);
    }
    granted
}
