//! The Tasks extension's wire shape: [`Task`] and [`TaskStatus`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ErrorObject;
use super::time;

/// A task's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    /// Whether the task is over (`completed`, `failed` or `cancelled`): it changes no more.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// The wire name (`working`, `input_required`, …).
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// A task as `tasks/get` returns it and `notifications/tasks` carries it: the extension's
/// `DetailedTask`. `ttlMs` is always written (`null`: no time limit); `inputRequests`, `result`
/// and `error` belong to `input_required`, `completed` and `failed`, and the transitions below
/// keep it so.
///
/// ```
/// use phantom::{tasks::{Task, TaskStatus}};
/// let task = Task::working("t-1", Some(60_000)).completed(serde_json::json!({"content": []}));
/// assert_eq!(task.status, TaskStatus::Completed);
/// let wire = serde_json::to_value(&task).unwrap();
/// assert_eq!(wire["ttlMs"], 60_000);
/// assert!(task.validate().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Id: at least 128 random bits, URL-safe ([`new_task_id`](crate::store::new_task_id)).
    pub task_id: String,
    /// Status.
    pub status: TaskStatus,
    /// Human status message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Creation time, ISO 8601 (UTC).
    pub created_at: String,
    /// Last update time, ISO 8601 (UTC).
    pub last_updated_at: String,
    /// Time to live from creation, in milliseconds; `None` (written `null`): no limit.
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
    /// What the task waits for (`input_required` only), by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<Map<String, Value>>,
    /// The original request's result (`completed` only; a tool result with `isError` too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The protocol error that ended it (`failed` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

impl Task {
    /// A new `working` task, created now.
    pub fn working(task_id: impl Into<String>, ttl_ms: Option<u64>) -> Self {
        let now = time::now_iso8601();
        Self {
            task_id: task_id.into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl_ms,
            poll_interval_ms: None,
            input_requests: None,
            result: None,
            error: None,
        }
    }

    /// Sets the suggested polling interval.
    #[must_use]
    pub fn poll_interval_ms(mut self, ms: u64) -> Self {
        self.poll_interval_ms = Some(ms);
        self
    }

    /// Sets the status message.
    #[must_use]
    pub fn message(mut self, text: impl Into<String>) -> Self {
        self.status_message = Some(text.into());
        self.touch();
        self
    }

    /// Back to `working` (input arrived).
    #[must_use]
    pub fn resumed(self) -> Self {
        self.moved(TaskStatus::Working)
    }

    /// `input_required`, waiting for `requests` (by key).
    #[must_use]
    pub fn input_required(self, requests: Map<String, Value>) -> Self {
        let mut task = self.moved(TaskStatus::InputRequired);
        task.input_requests = Some(requests);
        task
    }

    /// `completed` with the original request's result.
    #[must_use]
    pub fn completed(self, result: Value) -> Self {
        let mut task = self.moved(TaskStatus::Completed);
        task.result = Some(result);
        task
    }

    /// `failed` with a protocol error.
    #[must_use]
    pub fn failed(self, error: ErrorObject) -> Self {
        let mut task = self.moved(TaskStatus::Failed);
        task.error = Some(error);
        task
    }

    /// `cancelled`, without a status message: the last one told of work that stopped.
    #[must_use]
    pub fn cancelled(self) -> Self {
        let mut task = self.moved(TaskStatus::Cancelled);
        task.status_message = None;
        task
    }

    fn moved(mut self, status: TaskStatus) -> Self {
        self.status = status;
        self.input_requests = None;
        self.result = None;
        self.error = None;
        self.touch();
        self
    }

    fn touch(&mut self) {
        self.last_updated_at = time::now_iso8601();
    }

    /// Checks the extension's rules: a URL-safe id, and `inputRequests`, `result` and `error`
    /// present exactly with `input_required`, `completed` and `failed`.
    pub fn validate(&self) -> Result<(), String> {
        let id_ok = !self.task_id.is_empty()
            && self
                .task_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !id_ok {
            return Err(format!(
                "task id `{}` is not URL-safe (`A-Z a-z 0-9 - _`, not empty)",
                self.task_id
            ));
        }
        let pairs = [
            (
                "inputRequests",
                self.input_requests.is_some(),
                TaskStatus::InputRequired,
            ),
            ("result", self.result.is_some(), TaskStatus::Completed),
            ("error", self.error.is_some(), TaskStatus::Failed),
        ];
        for (field, present, status) in pairs {
            if present != (self.status == status) {
                let verb = if present { "has" } else { "lacks" };
                return Err(format!(
                    "a `{:?}` task {verb} `{field}`, which belongs to `{status:?}` tasks",
                    self.status
                ));
            }
        }
        Ok(())
    }
}
