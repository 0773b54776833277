//! What the server sends outside any request: a stream kept open for it (a legacy session's GET
//! stream, a 2026-07-28 `subscriptions/listen`), and resource subscriptions.

use std::collections::BTreeSet;
use std::sync::Arc;

use futures_util::StreamExt as _;
use serde_json::{Map, Value, json};

use super::session::Link;
use super::{Client, ClientError, Era};
use crate::protocol::Method;

impl Client {
    /// With a listener, over HTTP: keeps a stream open for what the server sends outside any
    /// request — a legacy session's GET stream, or a 2026-07-28 `subscriptions/listen` for the
    /// three `list_changed` and the resources subscribed to — and hands its notifications to the
    /// listener, opening it again when it ends (or the subscriptions change), until the client
    /// is dropped. (Over stdio the reader does it.)
    pub(super) fn follow(&self) {
        let (Some(listener), Link::Http(_)) = (self.listener.clone(), &*self.link) else {
            return;
        };
        let link = Arc::downgrade(&self.link);
        let modern = self.era == Era::Modern;
        let mut base = Map::new();
        let mut headers = Vec::new();
        self.envelope(
            Method::SubscriptionsListen.as_str(),
            &mut base,
            &mut headers,
        );
        let mut watched = self.watched.subscribe();
        tokio::spawn(async move {
            for round in 0u64.. {
                let uris: BTreeSet<String> = watched.borrow_and_update().clone();
                let Some(strong) = link.upgrade() else { return };
                let Link::Http(h) = &*strong else { return };
                let opened = if modern {
                    let mut params = base.clone();
                    let mut filter = json!({
                        "toolsListChanged": true,
                        "promptsListChanged": true,
                        "resourcesListChanged": true,
                    });
                    if !uris.is_empty() {
                        filter["resourceSubscriptions"] = json!(uris);
                    }
                    params.insert("notifications".into(), filter);
                    let message = json!({
                        "jsonrpc": "2.0",
                        "id": format!("listen-{round}"),
                        "method": Method::SubscriptionsListen.as_str(),
                        "params": params,
                    });
                    h.post(message.to_string(), &headers).await.map(Some)
                } else {
                    h.get().await
                };
                drop(strong);
                let mut messages = match opened {
                    Ok(Some(messages)) => messages,
                    Ok(None) => return,
                    Err(e) => {
                        tracing::debug!(error = %e, "the server's stream could not be opened");
                        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                        continue;
                    }
                };
                loop {
                    let message = tokio::select! {
                        message = messages.next() => message,
                        changed = watched.changed(), if modern => {
                            if changed.is_err() {
                                return;
                            }
                            break;
                        }
                    };
                    let Some(Ok(message)) = message else {
                        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                        break;
                    };
                    let Some(method) = message.get("method").and_then(Value::as_str) else {
                        continue;
                    };
                    if let Some(id) = message.get("id") {
                        // A request on this stream (`ping`): answered at once.
                        let reply = json!({"jsonrpc": "2.0", "id": id, "result": {}});
                        let Some(strong) = link.upgrade() else { return };
                        let _ = strong.send(reply.to_string()).await;
                    } else {
                        listener(method, &message["params"]);
                    }
                }
            }
        });
    }

    /// Subscribes to the resource at `uri`: its `notifications/resources/updated` reach the
    /// [listener](super::Builder::on_notification) — `resources/subscribe` on a 2025-11-25
    /// session (stdio included), a `subscriptions/listen` naming it in 2026-07-28 (opened
    /// again with every change of the subscriptions). Without a listener nothing hears them.
    pub async fn subscribe(&self, uri: &str) -> Result<(), ClientError> {
        if self.era != Era::Modern || matches!(*self.link, Link::Stdio(_)) {
            self.call(Method::ResourcesSubscribe, json!({"uri": uri}))
                .await?;
        }
        self.watched.send_modify(|uris| {
            uris.insert(uri.to_owned());
        });
        Ok(())
    }

    /// Ends a [subscription](Self::subscribe).
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ClientError> {
        if self.era != Era::Modern || matches!(*self.link, Link::Stdio(_)) {
            self.call(Method::ResourcesUnsubscribe, json!({"uri": uri}))
                .await?;
        }
        self.watched.send_modify(|uris| {
            uris.remove(uri);
        });
        Ok(())
    }
}
