//! The Tasks extension from the client's side: a tool call that answers with a task, and
//! `tasks/get`, `tasks/update`, `tasks/cancel` on it.

use std::time::Duration;

use serde_json::{Value, json};

use super::{Client, ClientError};
use crate::protocol::Method;
use crate::tasks::{Task, TaskStatus};
use crate::tools::ToolResult;

/// What a `tools/call` made by a client that declares the Tasks extension
/// ([`Builder::tasks`](super::Builder::tasks)) answers: the result, or a task to follow.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolCall {
    /// The tool ran inline.
    Done(ToolResult),
    /// The tool runs as a task: poll it with [`Client::get_task`] or [`Client::wait_task`].
    Task(Task),
}

/// How long [`Client::wait_task`] waits between polls when the task suggests no interval.
const POLL: Duration = Duration::from_millis(100);

impl Client {
    /// `tools/call`, answered inline or with a task.
    pub async fn call_tool_or_task(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<ToolCall, ClientError> {
        let result = self
            .call(
                Method::ToolsCall,
                json!({"name": name, "arguments": arguments}),
            )
            .await?;
        let is_task = result.get("taskId").is_some() && result.get("status").is_some();
        let read = |what: &str, e: serde_json::Error| {
            ClientError::protocol(format!(
                "the {what} `tools/call` answered does not read: {e}"
            ))
        };
        if is_task {
            serde_json::from_value(result)
                .map(ToolCall::Task)
                .map_err(|e| read("task", e))
        } else {
            serde_json::from_value(result)
                .map(ToolCall::Done)
                .map_err(|e| read("result", e))
        }
    }

    /// `tasks/get`.
    pub async fn get_task(&self, task_id: &str) -> Result<Task, ClientError> {
        let result = self
            .call(Method::TasksGet, json!({"taskId": task_id}))
            .await?;
        serde_json::from_value(result)
            .map_err(|e| ClientError::protocol(format!("the task {task_id} does not read: {e}")))
    }

    /// `tasks/update`: answers to the inputs an `input_required` task asks for, by key.
    pub async fn update_task(
        &self,
        task_id: &str,
        input_responses: Value,
    ) -> Result<(), ClientError> {
        self.call(
            Method::TasksUpdate,
            json!({"taskId": task_id, "inputResponses": input_responses}),
        )
        .await
        .map(|_| ())
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        self.call(Method::TasksCancel, json!({"taskId": task_id}))
            .await
            .map(|_| ())
    }

    /// Polls `tasks/get` (at the task's `pollIntervalMs`, else every 100 ms) until the task is in
    /// one of `statuses` or has ended; [`ClientError::Timeout`] after `within`.
    pub async fn wait_task(
        &self,
        task_id: &str,
        statuses: &[TaskStatus],
        within: Duration,
    ) -> Result<Task, ClientError> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let task = self.get_task(task_id).await?;
            if statuses.contains(&task.status) || task.status.is_terminal() {
                return Ok(task);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(ClientError::Timeout(within));
            }
            let every = task.poll_interval_ms.map_or(POLL, Duration::from_millis);
            tokio::time::sleep(every.min(Duration::from_secs(5))).await;
        }
    }
}
