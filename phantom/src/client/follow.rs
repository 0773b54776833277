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
    /// Over HTTP, keeps a stream open for what the server sends outside any request, until the
    /// client is dropped, opening it again when it ends:
    /// - a legacy session's GET stream, when there is a listener or a handler: its requests (an
    ///   elicitation a tool sends with no request to attach it to, a `ping`) are answered by the
    ///   handlers, its notifications reach the listener. It is open before `connect` returns, so
    ///   that nothing the server sends right after is lost (a server with no GET stream — `405`,
    ///   `404` — is not asked again);
    /// - a 2026-07-28 `subscriptions/listen`, when there is a listener, for the three
    ///   `list_changed` and the resources subscribed to (opened again when they change; a server
    ///   without it, `-32601`, is not asked again).
    ///
    /// Over stdio the reader does it.
    pub(super) async fn follow(&self) {
        let Link::Http(h) = &*self.link else { return };
        let modern = self.era == Era::Modern;
        let listener = self.listener.clone();
        if listener.is_none() && (modern || !self.handlers.any()) {
            return;
        }
        // The legacy stream's first opening, awaited (bounded by the request timeout).
        let mut first = None;
        if !modern {
            match tokio::time::timeout(self.timeout, h.get()).await {
                Ok(Ok(None)) => return,
                Ok(Ok(Some(messages))) => first = Some(messages),
                Ok(Err(ClientError::Http {
                    status: 404 | 405, ..
                })) => return,
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "the server's stream could not be opened");
                }
                Err(_) => {
                    tracing::debug!("the server's stream did not open within the timeout");
                }
            }
        }
        let link = Arc::downgrade(&self.link);
        let handlers = Arc::clone(&self.handlers);
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
                let opened = match first.take() {
                    Some(messages) => Ok(Some(messages)),
                    None => {
                        let Some(strong) = link.upgrade() else { return };
                        let Link::Http(h) = &*strong else { return };
                        if modern {
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
                        }
                    }
                };
                let mut messages = match opened {
                    Ok(Some(messages)) => messages,
                    Ok(None)
                    | Err(ClientError::Http {
                        status: 404 | 405, ..
                    }) => return,
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
                        // The listen's own answer: an error ends it for good.
                        if message["error"]["code"] == -32601 {
                            tracing::debug!("the server has no `subscriptions/listen`");
                            return;
                        }
                        continue;
                    };
                    if let Some(id) = message.get("id") {
                        let reply = match handlers.answer(method, message["params"].clone()).await {
                            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                            Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                        };
                        let Some(strong) = link.upgrade() else { return };
                        if let Err(e) = strong.send(reply.to_string()).await {
                            tracing::debug!(error = %e, "the answer to `{method}` was not delivered");
                        }
                    } else if let Some(listener) = &listener {
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
