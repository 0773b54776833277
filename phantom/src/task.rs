//! Task types used by the task callbacks (the Tasks extension builds on them).

use serde::{Deserialize, Serialize};

use crate::protocol::ErrorObject;

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

/// A task as `tasks/get` returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Id.
    pub task_id: String,
    /// Status.
    pub status: TaskStatus,
    /// Human status message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// Creation time, ISO 8601.
    pub created_at: String,
    /// Last update time, ISO 8601.
    pub last_updated_at: String,
    /// Time to live in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
}

/// Why `get_task` found no task.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TaskError {
    /// Unknown, or not visible to this session.
    #[error("task not found")]
    NotFound,
    /// Past its TTL.
    #[error("task expired")]
    Expired,
    /// Any other JSON-RPC error.
    #[error("{0}")]
    Rpc(ErrorObject),
}
