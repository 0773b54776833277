//! What a request asks the client directly on a 2025-11-25 session: the server-to-client
//! requests sent on the request's stream and their answers through the reply bus, URL
//! elicitation's `-32042`, and `ping`.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Engine, Interrupt, Shared, missing_capabilities};
use crate::input::{ClientAnswer, InputKind, InputRequest, Replies};
use crate::kernel::{Failure, Outbound};
use crate::protocol::{ErrorObject, Method, codes};

impl Shared {
    /// 2025-11-25: sends each request to the client and waits for the answers.
    pub(super) async fn ask_client(
        &self,
        requests: &[InputRequest],
        outbound: &Outbound,
        session: &Arc<str>,
        replies: &Arc<Replies>,
    ) -> Vec<Value> {
        let mut waits = Vec::with_capacity(requests.len());
        for r in requests {
            let id = replies.next_id();
            let waiter = match replies.expect(session, &id).await {
                Ok(w) => w,
                Err(e) => {
                    crate::telemetry::metrics::store_error("replies");
                    tracing::warn!(error = %e, "could not wait for a client answer");
                    let error = ErrorObject::new(codes::INTERNAL_ERROR, "Internal error");
                    return self.halt(Interrupt::Failed(Failure::from(error))).await;
                }
            };
            let mut params = r.params.clone();
            if r.kind == InputKind::Url {
                let chosen = r.elicitation_id.clone().unwrap_or_else(|| id.clone());
                params.insert("elicitationId".into(), chosen.into());
            }
            let message = json!({
                "jsonrpc": "2.0",
                "id": id,
                "method": r.kind.method().as_str(),
                "params": params,
            });
            if !outbound.send(message.to_string()) {
                replies.forget(session, &id).await;
                let error = ErrorObject::new(
                    codes::INTERNAL_ERROR,
                    "Internal error: the client cannot be asked for input on this request (no stream to send it on)",
                );
                return self.halt(Interrupt::Failed(Failure::from(error))).await;
            }
            waits.push((r.key.clone(), id, waiter));
        }
        let mut answers = Vec::with_capacity(waits.len());
        let mut pending: Vec<String> = waits.iter().map(|(_, id, _)| id.clone()).collect();
        for (key, id, waiter) in waits {
            self.wait_starts();
            let answer = {
                let _counted = crate::telemetry::metrics::InputWait::new();
                tokio::time::timeout(replies.timeout(), waiter).await
            };
            self.wait_ends();
            pending.retain(|p| *p != id);
            let Ok(answer) = answer else {
                for id in pending.iter().chain([&id]) {
                    replies.forget(session, id).await;
                }
                let error = ErrorObject::new(
                    codes::INTERNAL_ERROR,
                    format!(
                        "The client did not answer the input request `{key}` within {} s",
                        replies.timeout().as_secs_f64()
                    ),
                )
                .with_data(json!({ "key": key }));
                return self.halt(Interrupt::Failed(Failure::from(error))).await;
            };
            match answer {
                Ok(ClientAnswer::Result(text)) => {
                    answers.push(serde_json::from_str(&text).unwrap_or(Value::Null));
                }
                Ok(ClientAnswer::Error(text)) => {
                    let client: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                    let error = ErrorObject::new(
                        codes::INTERNAL_ERROR,
                        format!("The client answered the input request `{key}` with an error"),
                    )
                    .with_data(json!({ "key": key, "error": client }));
                    return self.halt(Interrupt::Failed(Failure::from(error))).await;
                }
                Err(_) => {
                    let error = ErrorObject::new(
                        codes::INTERNAL_ERROR,
                        format!(
                            "The input request `{key}` was abandoned before the client answered"
                        ),
                    );
                    return self.halt(Interrupt::Failed(Failure::from(error))).await;
                }
            }
        }
        answers
    }

    /// A URL the user must visit before the request can go on: on a 2025-11-25 session the
    /// request ends with `-32042` listing it (the client retries when the user is done); in
    /// 2026-07-28 it is an input request like any other. Returns the answer (2026-07-28 only).
    pub(crate) async fn require_url(&self, request: InputRequest) -> Value {
        let Engine::Legacy { replies, .. } = &self.engine else {
            return self.ask(vec![request]).await.pop().unwrap_or(Value::Null);
        };
        if let Some(missing) = missing_capabilities(&[request.kind.capability()], &self.caps) {
            let error = ErrorObject::new(
                codes::MISSING_CLIENT_CAPABILITY,
                format!(
                    "Missing required client capability: this request needs the user to visit a URL (`{}`), and the client does not declare URL elicitation",
                    request.key
                ),
            )
            .with_data(json!({ "requiredCapabilities": missing }));
            return self.halt(self.failure(error)).await;
        }
        let mut params = request.params;
        let id = request.elicitation_id.unwrap_or_else(|| replies.next_id());
        params.insert("elicitationId".into(), id.into());
        let error = ErrorObject::new(
            codes::URL_ELICITATION_REQUIRED,
            "URL elicitation required: complete it, then retry the request",
        )
        .with_data(json!({ "elicitations": [params] }));
        self.halt(Interrupt::Failed(Failure::from(error))).await
    }

    /// Pings the client (2025-11-25 sessions): `true` once it answers. `false` where there is no
    /// client to ping mid-request (2026-07-28 requests, stateless mode, completions) or when the
    /// client answers with an error.
    pub(crate) async fn ping(&self) -> bool {
        let Engine::Legacy {
            outbound,
            session,
            replies,
        } = &self.engine
        else {
            return false;
        };
        let id = replies.next_id();
        let Ok(waiter) = replies.expect(session, &id).await else {
            return false;
        };
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": Method::Ping.as_str() });
        if !outbound.send(message.to_string()) {
            replies.forget(session, &id).await;
            return false;
        }
        self.wait_starts();
        let answer = tokio::time::timeout(replies.timeout(), waiter).await;
        self.wait_ends();
        if answer.is_err() {
            replies.forget(session, &id).await;
        }
        matches!(answer, Ok(Ok(ClientAnswer::Result(_))))
    }
}
