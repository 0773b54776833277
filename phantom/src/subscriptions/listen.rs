//! `subscriptions/listen` (2026-07-28): one request whose answer is a stream. Its first message
//! acknowledges what the server honours of the filter; every later one carries the request's id
//! as `_meta["io.modelcontextprotocol/subscriptionId"]`. It ends when the client closes it, or
//! with `notifications/cancelled` and a final result when the server shuts down.
//!
//! A filter key the server does not know is ignored, not refused: extensions add keys (the tasks
//! extension's `taskIds`), and the acknowledgement tells the client what was honoured. The test
//! kit's `Client::listen` refuses such a key instead (`FILTER_KEYS`): there it is a mistake in a
//! test (a misspelt key, a filter wrapped in `notifications` twice) that the server's silence
//! would hide.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use tokio::sync::watch;

use futures_util::StreamExt as _;

use super::{Env, Kind, Registration};
use crate::kernel::Callback;
use crate::kernel::Locked as _;
use crate::kernel::{Body, Failure, Outbound, parse_params};
use crate::protocol::{Capability, ErrorObject, Method, Params, RequestId, codes, meta};
use crate::resources::ResolvedResource;
use crate::session::{Session, allowed};

/// What a listen asked for and the server grants.
#[derive(Debug, Default)]
pub(crate) struct Honoured {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    /// The resources it hears updates of, authorized when it started.
    pub(crate) uris: HashSet<String>,
    /// The tasks it follows (authorized when it started), until each ends or is no longer
    /// visible to the listen's session.
    tasks: Mutex<HashSet<String>>,
}

impl Honoured {
    /// Whether the listen follows this task.
    pub(crate) fn follows(&self, task_id: &str) -> bool {
        self.tasks().contains(task_id)
    }

    /// Stops following this task (it ended, or the session may no longer see it).
    pub(crate) fn unfollow(&self, task_id: &str) {
        self.tasks().remove(task_id);
    }

    /// The tasks it follows now.
    pub(crate) fn followed(&self) -> Vec<String> {
        self.tasks().iter().cloned().collect()
    }

    fn tasks(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.tasks.locked()
    }
}

#[derive(Deserialize)]
struct ListenParams {
    notifications: Filter,
}

/// The keys of [`Filter`] as they are written: `SubscriptionFilter`'s, and the tasks
/// extension's `taskIds`.
pub(crate) const FILTER_KEYS: [&str; 5] = [
    "toolsListChanged",
    "promptsListChanged",
    "resourcesListChanged",
    "resourceSubscriptions",
    "taskIds",
];

/// `SubscriptionFilter`; the keys are [`FILTER_KEYS`], and any other is ignored.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Filter {
    #[serde(default)]
    tools_list_changed: bool,
    #[serde(default)]
    prompts_list_changed: bool,
    #[serde(default)]
    resources_list_changed: bool,
    resource_subscriptions: Option<Vec<String>>,
    /// The tasks extension's `taskIds`: the tasks to follow.
    #[serde(default, rename = "taskIds")]
    task_ids: Option<Vec<String>>,
}

/// A listen opened and acknowledged: what streams it, without the request that opened it (the
/// HTTP transport keeps only this while the stream is open).
pub(crate) struct Listening {
    _registration: Registration,
    rx: super::Changes,
    tag: Value,
    closing: watch::Receiver<bool>,
    tick: tokio::time::Interval,
    ack: Option<String>,
    ended: bool,
}

/// What a listen sends next.
pub(crate) enum Next {
    /// A JSON-RPC notification.
    Message(String),
    /// Nothing happened for a while: show the stream is alive.
    KeepAlive,
    /// The listen is over: send its final result.
    End,
}

impl Listening {
    /// The acknowledgement first, then every notification; at shutdown `notifications/cancelled`
    /// and then the end.
    pub(crate) async fn next(&mut self) -> Next {
        std::future::poll_fn(|cx| self.poll_next(cx)).await
    }

    /// [`next`](Self::next) as a poll, so that a transport can hold the listen in a stream
    /// without a future beside it. Shutdown closes the listener's channel (`Hub::close`),
    /// which wakes this.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Next> {
        if let Some(ack) = self.ack.take() {
            return Poll::Ready(Next::Message(ack));
        }
        if self.ended {
            return Poll::Ready(Next::End);
        }
        if *self.closing.borrow() {
            self.ended = true;
            let mut params = Map::new();
            params.insert("requestId".into(), self.tag.clone());
            params.insert("reason".into(), "The server is shutting down".into());
            return Poll::Ready(Next::Message(tagged(&self.tag, Method::Cancelled, params)));
        }
        if let Poll::Ready(message) = self.rx.poll_next_unpin(cx) {
            return Poll::Ready(message.map_or(Next::End, |m| Next::Message(m.into())));
        }
        match self.tick.poll_tick(cx) {
            Poll::Ready(_) => Poll::Ready(Next::KeepAlive),
            Poll::Pending => Poll::Pending,
        }
    }

    /// The final result's body: the subscription id in `_meta`.
    pub(crate) fn result(&self) -> Body {
        let mut result = Map::new();
        result.insert("_meta".into(), json!({ meta::SUBSCRIPTION_ID: self.tag }));
        Body::Map(result)
    }
}

/// A notification of a listen: its id in `_meta`.
fn tagged(tag: &Value, method: Method, mut params: Map<String, Value>) -> String {
    params.insert("_meta".into(), json!({ meta::SUBSCRIPTION_ID: tag }));
    json!({ "jsonrpc": "2.0", "method": method.as_str(), "params": params }).to_string()
}

/// `subscriptions/listen` on a transport that streams through `outbound` (stdio, a POST
/// that turned into SSE): runs until the listen ends, and answers its final result.
pub(crate) async fn listen<E: Env>(
    env: &E,
    id: &RequestId,
    params: Option<Params<'_>>,
    session: &Session,
    outbound: &Outbound,
) -> Result<Body, Failure> {
    if !outbound.is_open() {
        return Err(Failure::from(ErrorObject::new(
            codes::INTERNAL_ERROR,
            "Internal error: `subscriptions/listen` needs a transport that streams its answer",
        )));
    }
    let mut listening = open_listen(env, id, params, &Arc::new(session.clone())).await?;
    loop {
        let sent = match listening.next().await {
            Next::Message(message) => outbound.send(message),
            Next::KeepAlive => outbound.keep_alive(),
            Next::End => break,
        };
        // The client closed the stream.
        if !sent {
            break;
        }
    }
    Ok(listening.result())
}

/// Opens a listen: reads the filter, grants what the server honours (`resourceSubscriptions`
/// authorized all at once), registers it and prepares its acknowledgement.
pub(crate) async fn open_listen<E: Env>(
    env: &E,
    id: &RequestId,
    params: Option<Params<'_>>,
    session: &Arc<Session>,
) -> Result<Listening, Failure> {
    let p: ListenParams =
        parse_params(params).map_err(|f| f.with_data(json!({ "field": "notifications" })))?;
    let f = p.notifications;
    if f.task_ids.is_some() && !crate::tasks::declares_tasks(session) {
        return Err(
            crate::tasks::needs_tasks("`taskIds` in `subscriptions/listen`", session).with_data(
                json!({
                    "field": "notifications.taskIds",
                    "requiredCapabilities": { "extensions": { crate::tasks::EXTENSION: {} } },
                }),
            ),
        );
    }
    let mut honoured = Honoured {
        tools: f.tools_list_changed && env.offers(Capability::Tools),
        prompts: f.prompts_list_changed && env.offers(Capability::Prompts),
        resources: f.resources_list_changed && env.offers(Capability::Resources),
        ..Honoured::default()
    };
    let mut ack = Map::new();
    for (key, on) in [
        ("toolsListChanged", honoured.tools),
        ("promptsListChanged", honoured.prompts),
        ("resourcesListChanged", honoured.resources),
    ] {
        if on {
            ack.insert(key.into(), true.into());
        }
    }
    if let Some(asked) = f.resource_subscriptions {
        let mut seen = HashSet::new();
        let offered: Vec<ResolvedResource> = asked
            .iter()
            .filter(|u| seen.insert(u.as_str()))
            .filter_map(|u| env.resolve(u))
            .filter(|r| allowed(&session.allowed_resource_templates, &r.template.name))
            .collect();
        for resolved in &offered {
            super::check_resource_scopes(resolved, session)?;
        }
        let granted = if offered.is_empty() {
            Vec::new()
        } else {
            super::authorize_resources(env, offered, session).await
        };
        ack.insert("resourceSubscriptions".into(), json!(granted));
        honoured.uris = granted.into_iter().collect();
    }
    if let Some(asked) = f.task_ids {
        let granted = if crate::tasks::served(env.tools(), env.defines(Callback::GetTask)) {
            crate::tasks::authorize_tasks(env, asked, session).await
        } else {
            Vec::new()
        };
        ack.insert("taskIds".into(), json!(granted));
        honoured.tasks = Mutex::new(granted.into_iter().collect());
    }
    let tag = serde_json::to_value(id).unwrap_or(Value::Null);
    let kind = Kind::Listen {
        tag: tag.to_string().into_boxed_str(),
        honoured,
    };
    let (registration, rx) = super::listen_for_changes(env, Arc::clone(session), kind);
    let mut params = Map::new();
    params.insert("notifications".into(), Value::Object(ack));
    let ack = tagged(&tag, Method::SubscriptionsAcknowledged, params);
    let every = env.keep_alive();
    Ok(Listening {
        _registration: registration,
        rx,
        tag,
        closing: env.hub().closing(),
        tick: tokio::time::interval_at(tokio::time::Instant::now() + every, every),
        ack: Some(ack),
        ended: false,
    })
}

#[cfg(test)]
mod tests {
    use super::{FILTER_KEYS, Filter};

    #[test]
    fn the_filter_keys_are_the_fields_of_the_filter() {
        // A key that is a field refuses a value of the wrong type; an unknown key would be
        // ignored, and the filter would read.
        for key in FILTER_KEYS {
            let wrong = serde_json::json!({ key: "neither a bool nor a list" });
            assert!(
                serde_json::from_value::<Filter>(wrong).is_err(),
                "`{key}` is not a field of `Filter`"
            );
        }
        // And every field is listed: a field added to `Filter` breaks this pattern until it is
        // added here and to `FILTER_KEYS`.
        fn fields(filter: &Filter) -> usize {
            let Filter {
                tools_list_changed: _,
                prompts_list_changed: _,
                resources_list_changed: _,
                resource_subscriptions: _,
                task_ids: _,
            } = filter;
            5
        }
        let empty = serde_json::from_value(serde_json::json!({})).expect("every key is optional");
        assert_eq!(fields(&empty), FILTER_KEYS.len());
    }
}
