//! `subscriptions/listen` (2026-07-28): one request whose answer is a stream. Its first message
//! acknowledges what the server honours of the filter; every later one carries the request's id
//! as `_meta["io.modelcontextprotocol/subscriptionId"]`. It ends when the client closes it, or
//! with `notifications/cancelled` and a final result when the server shuts down.

use std::collections::HashSet;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::Kind;
use crate::dispatch::{Body, Dispatcher, Failure, Outbound, parse_params};
use crate::protocol::{Capability, ErrorObject, Method, RequestId, codes, meta};
use crate::server::{ResolvedResource, Server, Session, allowed};

/// What a listen asked for and the server grants.
#[derive(Debug, Clone, Default)]
pub(crate) struct Honoured {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    /// The resources it hears updates of, authorized when it started.
    pub(crate) uris: HashSet<String>,
}

#[derive(Deserialize)]
struct ListenParams {
    notifications: Filter,
}

/// `SubscriptionFilter`.
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
    /// The tasks extension's `taskIds`: not honoured until tasks land.
    #[serde(default, rename = "taskIds")]
    _task_ids: Option<Vec<String>>,
}

impl<S: Server> Dispatcher<S> {
    pub(crate) async fn listen(
        &self,
        id: &RequestId,
        params: Option<&RawValue>,
        session: &Session,
        outbound: &Outbound,
    ) -> Result<Body, Failure> {
        let p: ListenParams =
            parse_params(params).map_err(|f| f.with_data(json!({ "field": "notifications" })))?;
        if !outbound.is_open() {
            return Err(Failure::from(ErrorObject::new(
                codes::INTERNAL_ERROR,
                "Internal error: `subscriptions/listen` needs a transport that streams its answer",
            )));
        }
        let f = p.notifications;
        let mut honoured = Honoured {
            tools: f.tools_list_changed && self.offers(Capability::Tools),
            prompts: f.prompts_list_changed && self.offers(Capability::Prompts),
            resources: f.resources_list_changed && self.offers(Capability::Resources),
            uris: HashSet::new(),
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
                .filter_map(|u| self.inner.router.resolve(u))
                .filter(|r| allowed(&session.allowed_resource_templates, r.template.name))
                .collect();
            let granted = if offered.is_empty() {
                Vec::new()
            } else {
                self.authorize_resources(offered, session).await
            };
            ack.insert("resourceSubscriptions".into(), json!(granted));
            honoured.uris = granted.into_iter().collect();
        }
        let tag = serde_json::to_value(id).unwrap_or(Value::Null);
        let meta_tag = || json!({ meta::SUBSCRIPTION_ID: tag });
        let kind = Kind::Listen {
            id: tag.clone(),
            honoured,
        };
        let (registration, mut rx) = self.listen_for_changes(Arc::new(session.clone()), kind);
        let note = |method: Method, mut params: Map<String, Value>| {
            params.insert("_meta".into(), meta_tag());
            json!({ "jsonrpc": "2.0", "method": method.as_str(), "params": params }).to_string()
        };
        let mut params = Map::new();
        params.insert("notifications".into(), Value::Object(ack));
        outbound.send(note(Method::SubscriptionsAcknowledged, params));
        let mut closing = self.inner.hub.closing();
        let every = self.inner.config.keep_alive;
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        loop {
            tokio::select! {
                message = rx.recv() => {
                    // The client closed the stream (or the server dropped the registration).
                    if !message.is_some_and(|m| outbound.send(m)) {
                        break;
                    }
                }
                _ = closing.wait_for(|closing| *closing) => {
                    let mut params = Map::new();
                    params.insert("requestId".into(), tag.clone());
                    params.insert("reason".into(), "The server is shutting down".into());
                    outbound.send(note(Method::Cancelled, params));
                    break;
                }
                _ = tick.tick() => if !outbound.keep_alive() {
                    break;
                },
            }
        }
        drop(registration);
        let mut result = Map::new();
        result.insert("_meta".into(), meta_tag());
        Ok(Body::Map(result))
    }
}
