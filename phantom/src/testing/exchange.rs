//! One request of the test client and its exchanges with the server on the way: answering the
//! handler's input requests (legacy server-to-client requests as they come, 2026-07-28
//! `input_required` rounds by retrying) and cancelling a call as each era does.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{Client, Response, with_envelope};
use crate::dispatch::Dispatcher;
use crate::kernel::{Frame, Outbound, Reply};
use crate::protocol::{Era, Method};
use crate::server::Server;
use crate::session::SessionSlot;
use crate::store::ClientAnswer;

/// A closure that answers one kind of input request: it gets the request's params and returns
/// the result (an `ElicitResult`, a `CreateMessageResult`, a `ListRootsResult`).
pub(super) type Answer = Arc<dyn Fn(&Value) -> Value + Send + Sync>;

/// The closures a test client answers input requests with.
#[derive(Clone, Default)]
pub(super) struct Answers {
    pub(super) elicit: Option<Answer>,
    pub(super) sample: Option<Answer>,
    pub(super) roots: Option<Answer>,
}

impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answers")
            .field("elicit", &self.elicit.is_some())
            .field("sample", &self.sample.is_some())
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

impl Answers {
    fn for_method(&self, method: &str) -> Option<&Answer> {
        match Method::parse(method)? {
            Method::ElicitationCreate => self.elicit.as_ref(),
            Method::SamplingCreateMessage => self.sample.as_ref(),
            Method::RootsList => self.roots.as_ref(),
            _ => None,
        }
    }
}

/// Declares `key` in a capabilities object unless it is declared already.
pub(super) fn declare(capabilities: &mut Value, key: &str) {
    if !capabilities.is_object() {
        *capabilities = json!({});
    }
    if let Some(map) = capabilities.as_object_mut() {
        map.entry(key).or_insert_with(|| json!({}));
    }
}

/// The most rounds a modern request is retried with answers before the client gives up.
const MAX_ROUNDS: usize = 16;

impl<S: Server> Client<S> {
    /// Sends a request with exactly these params (no envelope added). Input requests the handler
    /// makes are answered with the client's closures (see [`Builder::on_elicit`](super::Builder::on_elicit)): a legacy
    /// server's requests as they come, a modern `input_required` result by retrying with the
    /// answers. Without a closure for a kind, a legacy request is answered with an error and a
    /// modern `input_required` result is returned as it is.
    pub async fn raw_request(&mut self, method: &str, params: Option<Value>) -> Response {
        let mut params = params;
        let mut notifications = Vec::new();
        let mut requests = Vec::new();
        for _ in 0..MAX_ROUNDS {
            let reply = self
                .exchange(method, params.as_ref(), &mut notifications, &mut requests)
                .await;
            let response = Response::new(reply, Vec::new());
            let result = response.json.get("result");
            let input = result
                .filter(|r| r["resultType"] == "input_required")
                .map(|r| (r["inputRequests"].clone(), r.get("requestState").cloned()));
            let Some((Value::Object(asked), state)) = input else {
                return Response::new(response.reply, notifications).with_requests(requests);
            };
            let mut responses = Map::new();
            for (key, request) in &asked {
                requests.push(request.clone());
                let answer = request["method"]
                    .as_str()
                    .and_then(|m| self.answers.for_method(m));
                let Some(answer) = answer else {
                    return Response::new(response.reply, notifications).with_requests(requests);
                };
                responses.insert(key.clone(), answer(&request["params"]));
            }
            let mut next = params.take().unwrap_or_else(|| json!({}));
            next["inputResponses"] = Value::Object(responses);
            match state {
                Some(state) => next["requestState"] = state,
                None => {
                    if let Some(map) = next.as_object_mut() {
                        map.remove("requestState");
                    }
                }
            }
            params = Some(next);
        }
        panic!("`{method}` still asked for input after {MAX_ROUNDS} rounds");
    }

    /// One request and its reply; answers the server's requests (legacy) while it waits.
    async fn exchange(
        &mut self,
        method: &str,
        params: Option<&Value>,
        notifications: &mut Vec<Value>,
        requests: &mut Vec<Value>,
    ) -> Reply {
        self.next_id += 1;
        let mut msg = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method});
        if let Some(params) = params {
            msg["params"] = params.clone();
        }
        let text = msg.to_string();
        let (outbound, mut rx) = Outbound::channel();
        let key = self
            .session
            .get()
            .and_then(|s| s.id.as_deref())
            .unwrap_or_default()
            .to_owned();
        let Self {
            dispatcher,
            session,
            request,
            answers,
            ..
        } = self;
        let handling = dispatcher.handle(&text, request, session, &outbound);
        tokio::pin!(handling);
        let reply = loop {
            tokio::select! {
                biased;
                reply = &mut handling => break reply,
                Some(out) = rx.recv() => {
                    Self::outgoing(dispatcher, answers, &key, &out, notifications, requests).await;
                }
            }
        };
        while let Ok(out) = rx.try_recv() {
            Self::outgoing(dispatcher, answers, &key, &out, notifications, requests).await;
        }
        reply.expect("a request gets a reply")
    }

    /// A message the server sent before its reply: a notification is recorded; a request
    /// (legacy input) is recorded and answered.
    async fn outgoing(
        dispatcher: &Dispatcher<S>,
        answers: &Answers,
        key: &str,
        frame: &Frame,
        notifications: &mut Vec<Value>,
        requests: &mut Vec<Value>,
    ) {
        let Frame::Message(text) = frame else {
            return;
        };
        let message: Value = serde_json::from_str(text).expect("outbound messages are JSON");
        let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
            notifications.push(message);
            return;
        };
        let id = match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let answer = match answers.for_method(method) {
            _ if method == Method::Ping.as_str() => ClientAnswer::Result("{}".into()),
            Some(answer) => ClientAnswer::Result(answer(&message["params"]).to_string()),
            None => ClientAnswer::Error(
                json!({"code": -32601, "message": format!("the test client has no answer for `{method}`")})
                    .to_string(),
            ),
        };
        requests.push(json!({"method": method, "params": message["params"]}));
        dispatcher.deliver_answer(key, &id, answer).await;
    }

    /// Calls a tool and cancels the call after `after`, as a client does: on a legacy session
    /// with `notifications/cancelled` (the call then gets no reply), on a modern request by
    /// dropping it (closing its response). Returns what the handling sent before it stopped.
    ///
    /// # Panics
    ///
    /// If the call finishes before `after`, or a cancelled legacy call still replies.
    pub async fn cancel_tool_call(
        &mut self,
        name: &str,
        arguments: Value,
        after: std::time::Duration,
    ) -> Vec<Value> {
        let params = json!({"name": name, "arguments": arguments});
        let params = match self.era {
            Era::Legacy => params,
            Era::Modern => with_envelope(params, &self.capabilities),
        };
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": Method::ToolsCall.as_str(), "params": params});
        let text = msg.to_string();
        let snapshot = self.session.get().cloned();
        let era = self.era;
        let (outbound, mut rx) = Outbound::channel();
        let Self {
            dispatcher,
            session,
            request,
            ..
        } = self;
        let handling = dispatcher.handle(&text, request, session, &outbound);
        tokio::pin!(handling);
        let timer = tokio::time::sleep(after);
        tokio::pin!(timer);
        let mut notifications = Vec::new();
        loop {
            tokio::select! {
                biased;
                reply = &mut handling => panic!("`{name}` finished before it was cancelled: {reply:?}"),
                Some(frame) = rx.recv() => {
                    if let Frame::Message(out) = frame {
                        notifications.push(serde_json::from_str(&out).expect("outbound messages are JSON"));
                    }
                }
                () = &mut timer => break,
            }
        }
        if era == Era::Legacy {
            let cancel = json!({"jsonrpc": "2.0", "method": Method::Cancelled.as_str(),
                                "params": {"requestId": id, "reason": "cancelled by the test"}});
            let mut side = SessionSlot::new(snapshot);
            dispatcher
                .handle(&cancel.to_string(), request, &mut side, &Outbound::none())
                .await;
            let reply = tokio::time::timeout(std::time::Duration::from_secs(5), &mut handling)
                .await
                .expect("a cancelled call ends");
            assert!(reply.is_none(), "a cancelled call gets no reply: {reply:?}");
        }
        while let Ok(frame) = rx.try_recv() {
            if let Frame::Message(out) = frame {
                notifications.push(serde_json::from_str(&out).expect("outbound messages are JSON"));
            }
        }
        notifications
    }
}
