//! Tasks (`io.modelcontextprotocol/tasks`, SEP-2663): the [`Task`] wire shape, what `get_task`
//! answers when there is none ([`TaskError`]), `#[task_handler]` tools run as tasks and the
//! methods `tasks/get`, `tasks/update` and `tasks/cancel`. The task store seam is
//! [`phantom::store::TaskStore`](crate::store::TaskStore).

mod existing;
mod follow;
mod input;
mod lookup;
mod serve;

pub(crate) use existing::{cancel, deliver_input, get, stop_if_ended, update};
pub(crate) use follow::{Recorder, authorize_tasks, find_task};
pub(crate) use input::TaskInput;
pub(crate) use serve::{
    EXTENSION, Env, Running, declares_tasks, escalate, escalates, fail_all, finish, finished,
    needs_tasks, running, runs_as_task, served, start_call,
};

pub use crate::protocol::task::{Task, TaskStatus};
pub(crate) use crate::store::{MemoryTaskStore, StoredTask, TaskStore, new_task_id};

use crate::protocol::ErrorObject;

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
