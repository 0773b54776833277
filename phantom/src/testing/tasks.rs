//! The test client's tasks and listens: call a `#[task_handler]` tool as a task, poll, answer
//! and cancel it, and open a 2026-07-28 `subscriptions/listen` that runs beside the client's
//! other requests.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{Client, Response, with_envelope};
use crate::kernel::{Frame, Outbound};
use crate::protocol::{Era, Method};
use crate::server::Server;
use crate::session::SessionSlot;

/// How long [`Client::wait_task`] polls before it gives up.
const WAIT: Duration = Duration::from_secs(10);

impl<S: Server> Client<S> {
    /// `tasks/get`.
    pub async fn get_task(&mut self, task_id: &str) -> Response {
        self.request(Method::TasksGet.as_str(), json!({ "taskId": task_id }))
            .await
    }

    /// `tasks/update` with these `inputResponses` (by key).
    pub async fn update_task(&mut self, task_id: &str, input_responses: Value) -> Response {
        self.request(
            Method::TasksUpdate.as_str(),
            json!({ "taskId": task_id, "inputResponses": input_responses }),
        )
        .await
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&mut self, task_id: &str) -> Response {
        self.request(Method::TasksCancel.as_str(), json!({ "taskId": task_id }))
            .await
    }

    /// Polls `tasks/get` until the task is in one of `statuses` (e.g. `["completed"]`,
    /// `["input_required"]`), and returns that answer.
    ///
    /// # Panics
    ///
    /// If `tasks/get` fails, or the task is not in one of them within 10 s.
    pub async fn wait_task(&mut self, task_id: &str, statuses: &[&str]) -> Response {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let got = self.get_task(task_id).await;
            let status = got.result()["status"].as_str().unwrap_or_default();
            if statuses.contains(&status) {
                return got;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "task {task_id} is still {status} after {WAIT:?}, not one of {statuses:?}: {}",
                got.json
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Opens a 2026-07-28 `subscriptions/listen` with this filter (`{"toolsListChanged": true}`,
    /// `{"taskIds": [..]}`, …). It runs beside the client's other requests; dropping the
    /// [`Listen`] closes it, as a client that closes the response does.
    ///
    /// # Panics
    ///
    /// If the client is a legacy one (2025-11-25 has no `subscriptions/listen`).
    #[track_caller]
    pub fn listen(&mut self, filter: Value) -> Listen {
        assert_eq!(
            self.era,
            Era::Modern,
            "subscriptions/listen is 2026-07-28 only"
        );
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
        Listen { rx, task }
    }
}

/// A `subscriptions/listen` open on the in-process dispatcher: its messages in order (the
/// acknowledgement first, the final result or an error last).
#[derive(Debug)]
pub struct Listen {
    rx: mpsc::UnboundedReceiver<Frame>,
    task: tokio::task::JoinHandle<()>,
}

impl Listen {
    /// The next JSON-RPC message (keep-alives skipped); `None` once the listen is over and
    /// everything was read.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Frame::Message(text) = self.rx.recv().await? {
                return Some(
                    serde_json::from_str(&text).expect("the dispatcher writes valid JSON"),
                );
            }
        }
    }

    /// The next message within `wait`, or `None` when none comes in time.
    pub async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        tokio::time::timeout(wait, self.next()).await.ok().flatten()
    }
}

impl Drop for Listen {
    fn drop(&mut self) {
        self.task.abort();
    }
}
