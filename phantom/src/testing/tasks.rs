//! The test client's tasks: call a `#[task_handler]` tool as a task, poll, answer and cancel it.
//! A listen that follows tasks (`taskIds`) is opened with [`Client::listen`] (`streams.rs`).

use std::time::Duration;

use serde_json::{Value, json};

use super::{Client, Response};
use crate::protocol::Method;
use crate::server::Server;

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
}
