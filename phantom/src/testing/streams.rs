//! What the test client hears besides its replies: a 2025-11-25 session's own stream (what its
//! HTTP GET stream or stdio carries between replies) and 2026-07-28 `subscriptions/listen`
//! streams. Both are registered with the served router's hub as the transports register them,
//! so they hear a change exactly as a client of those transports would.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{Client, with_envelope};
use crate::kernel::{Frame, Outbound};
use crate::protocol::{Era, Method};
use crate::server::Server;
use crate::session::SessionSlot;
use crate::subscriptions::{FILTER_KEYS, Kind, Registration};

impl<S: Server> Client<S> {
    /// Opens this 2025-11-25 session's stream: what its HTTP GET stream (or stdio, between
    /// replies) carries. That is every change announced through the server's
    /// [`Notifier`](crate::Notifier) while the stream is open, as the session may see it:
    ///
    /// - `notifications/resources/updated` for the resources it subscribed to with
    ///   `resources/subscribe` (and `authorize_resource_subscriptions` allows, once per batch);
    /// - `notifications/tools/list_changed`, `…/prompts/list_changed` and
    ///   `…/resources/list_changed` when its allow-lists let it see what changed;
    /// - `notifications/elicitation/complete` addressed to this session (an in-process session,
    ///   like a stdio one, has no id: address it with `""`).
    ///
    /// A change announced before the stream opens is not heard, as over HTTP. Progress and log
    /// messages of a request come on that request's [`Response::notifications`](super::Response::notifications),
    /// never here. The stream sees the session as it is when it opens: open it after changing
    /// [`session_mut`](Self::session_mut) to test an allow-list.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use phantom::Config;
    /// use phantom::prelude::*;
    /// use phantom::testing::Client;
    /// use serde_json::json;
    ///
    /// #[derive(Clone)]
    /// struct Notes;
    ///
    /// #[mcp_router(name = "notes", version = "1.0.0")]
    /// impl Notes {
    ///     /// One note.
    ///     #[resource("notes:///<id>")]
    ///     async fn note(&self, id: u32) -> String {
    ///         format!("note {id}")
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let config = Config::default();
    /// let notifier = config.notifier().clone();
    /// let mut client = Client::builder(Notes).config(config).legacy().await;
    /// client.request("resources/subscribe", json!({"uri": "notes:///1"})).await.result();
    /// let mut stream = client.stream();
    ///
    /// notifier.notify_resources_updated(["notes:///2", "notes:///1"]).await.unwrap();
    /// let updated = stream.next_within(Duration::from_secs(5)).await.expect("an update");
    /// assert_eq!(updated["method"], "notifications/resources/updated");
    /// assert_eq!(updated["params"]["uri"], "notes:///1");
    /// // `notes:///2` was not subscribed to.
    /// assert_eq!(stream.next_within(Duration::from_millis(100)).await, None);
    /// # });
    /// ```
    ///
    /// # Panics
    ///
    /// If the client is a 2026-07-28 one, which has no session and hears changes on
    /// [`listen`](Self::listen) instead; or if `initialize` has not opened the session yet.
    #[track_caller]
    pub fn stream(&self) -> Listen {
        assert!(
            self.era == Era::Legacy,
            "a 2026-07-28 client has no session stream\n\
             help: open a `subscriptions/listen` with `Client::listen` to hear changes"
        );
        let session = self.session.get().unwrap_or_else(|| {
            panic!(
                "this client has no session yet\n\
                 help: send `initialize` first (`Client::initialize`, or make it with `Builder::legacy`)"
            )
        });
        let (registration, rx) = self
            .dispatcher
            .listen_for_changes(Arc::new(session.clone()), Kind::Session);
        Listen {
            source: Source::Session {
                rx,
                _registration: registration,
            },
        }
    }

    /// Opens a 2026-07-28 `subscriptions/listen` with `filter`, the `SubscriptionFilter` itself:
    /// the kit sends it as the request's `params.notifications`, beside the `_meta` envelope. Its
    /// keys are `toolsListChanged`, `promptsListChanged`, `resourcesListChanged` (booleans),
    /// `resourceSubscriptions` (URIs) and the tasks extension's `taskIds`. The listen runs
    /// beside the client's other requests; its first message is the acknowledgement of what the
    /// server honours. Dropping the [`Listen`] closes it, as a client that closes the response
    /// does.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use phantom::Config;
    /// use phantom::prelude::*;
    /// use phantom::testing::Client;
    /// use serde_json::json;
    ///
    /// #[derive(Clone)]
    /// struct Notes;
    ///
    /// #[mcp_router(name = "notes", version = "1.0.0")]
    /// impl Notes {
    ///     /// Says hello.
    ///     #[tool]
    ///     async fn hello(&self) -> &'static str {
    ///         "hello"
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let config = Config::default();
    /// let notifier = config.notifier().clone();
    /// let mut client = Client::builder(Notes).config(config).modern();
    /// // On the wire: `"params": {"notifications": {"toolsListChanged": true}, "_meta": {…}}`.
    /// let mut listen = client.listen(json!({"toolsListChanged": true}));
    /// let ack = listen.next().await.expect("the acknowledgement");
    /// assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true}));
    ///
    /// notifier.notify_tools_changed().await.unwrap();
    /// let changed = listen.next_within(Duration::from_secs(5)).await.expect("a change");
    /// assert_eq!(changed["method"], "notifications/tools/list_changed");
    /// assert_eq!(changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 1);
    /// # });
    /// ```
    ///
    /// # Panics
    ///
    /// If the client is a legacy one (2025-11-25 has no `subscriptions/listen`; its session
    /// hears changes on [`stream`](Self::stream)), or if `filter` is an object with a key
    /// the filter does not define: a server ignores such a key (extensions add keys; the
    /// acknowledgement says what it honours), so in a test it would only mean silence. A filter
    /// passed wrapped as `{"notifications": {…}}` is refused so. To test how the server answers
    /// a filter that is not an object, pass one: it is sent as it is.
    #[track_caller]
    pub fn listen(&mut self, filter: Value) -> Listen {
        assert!(
            self.era == Era::Modern,
            "2025-11-25 has no `subscriptions/listen`\n\
             help: a legacy session hears changes on its own stream: `Client::stream`"
        );
        check_filter(&filter);
        self.next_id += 1;
        let id = self.next_id;
        let mut filter_params = serde_json::Map::new();
        filter_params.insert("notifications".into(), filter);
        let params = with_envelope(Value::Object(filter_params), &self.capabilities);
        let text = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": Method::SubscriptionsListen.as_str(),
            "params": params,
        })
        .to_string();
        let (outbound, rx) = Outbound::channel();
        let dispatcher = self.dispatcher.clone();
        let request = self.request.clone();
        let task = tokio::spawn(async move {
            let mut slot = SessionSlot::default();
            let reply = dispatcher
                .handle(&text, &request, &mut slot, &outbound)
                .await;
            // The final result (or the error) comes last on the same channel.
            if let Some(reply) = reply {
                outbound.send(reply.body);
            }
        });
        Listen {
            source: Source::Listen { rx, task },
        }
    }
}

/// Refuses a filter key that `SubscriptionFilter` (with the tasks extension) does not define.
#[track_caller]
fn check_filter(filter: &Value) {
    let Some(map) = filter.as_object() else {
        return;
    };
    let Some(key) = map.keys().find(|k| !FILTER_KEYS.contains(&k.as_str())) else {
        return;
    };
    let accepted = FILTER_KEYS.map(|k| format!("`{k}`")).join(", ");
    let folded = |k: &str| k.replace(['_', '-'], "").to_ascii_lowercase();
    let near = FILTER_KEYS.iter().find(|k| folded(k) == folded(key));
    let help = match near {
        _ if key == "notifications" => {
            "pass the filter itself, e.g. `json!({\"taskIds\": [id]})`: \
             `listen` sends it as `params.notifications`"
                .to_owned()
        }
        Some(near) => format!("did you mean `{near}`?"),
        None => {
            "a server ignores a key it does not know, so the listen would not hear of it".to_owned()
        }
    };
    panic!(
        "`listen` filter has a key `{key}` that `subscriptions/listen` does not define \
         (its keys are {accepted})\nhelp: {help}"
    );
}

/// A stream of server messages open on the in-process dispatcher, in order: a legacy session's
/// stream ([`Client::stream`]) or a 2026-07-28 `subscriptions/listen` ([`Client::listen`]:
/// the acknowledgement first, the final result or an error last). Dropping it closes it.
pub struct Listen {
    source: Source,
}

enum Source {
    /// A `subscriptions/listen` request running on its own task.
    Listen {
        rx: mpsc::UnboundedReceiver<Frame>,
        task: tokio::task::JoinHandle<()>,
    },
    /// A legacy session's registration with the hub, as the HTTP GET stream and stdio hold it.
    Session {
        rx: crate::subscriptions::Changes,
        _registration: Registration,
    },
}

impl std::fmt::Debug for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.source {
            Source::Listen { .. } => "subscriptions/listen",
            Source::Session { .. } => "session",
        };
        f.debug_struct("Listen")
            .field("stream", &kind)
            .finish_non_exhaustive()
    }
}

impl Listen {
    /// The next JSON-RPC message (keep-alives skipped); `None` once the stream is over (a
    /// listen that ended, a session stream whose client is gone) and everything was read.
    pub async fn next(&mut self) -> Option<Value> {
        let text = match &mut self.source {
            Source::Listen { rx, .. } => loop {
                if let Frame::Message(text) = rx.recv().await? {
                    break text;
                }
            },
            Source::Session { rx, .. } => futures_util::StreamExt::next(rx).await?.into(),
        };
        Some(serde_json::from_str(&text).expect("the dispatcher writes valid JSON"))
    }

    /// The next message within `wait`, or `None` when none comes in time.
    pub async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        tokio::time::timeout(wait, self.next()).await.ok().flatten()
    }
}

impl Drop for Listen {
    fn drop(&mut self) {
        if let Source::Listen { task, .. } = &self.source {
            task.abort();
        }
    }
}
