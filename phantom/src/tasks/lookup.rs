//! Finding the task a `tasks/*` request names: the app's, the store's (failed when its node
//! died), or another server's (a gateway's relay).

use std::sync::Arc;

use serde_json::json;

use super::serve::{Env, TaskParams, declares_tasks, needs_tasks, recorder, store_failure};
use super::{StoredTask, Task};
use crate::extract::Context;
use crate::kernel::{Callback, Failure, invalid, target_member};
use crate::protocol::{ErrorObject, Params, codes};

/// The task a `tasks/*` request names, for `method`: from the `get_task` callback when the router
/// defines it (the app's tasks, and its access check), else from the task store (tasks of
/// `#[task_handler]` tools, for their owner only), with the stored copy when there is one.
pub(super) async fn named<E: Env>(
    env: &E,
    method: &str,
    params: Option<Params<'_>>,
    cx: Context<'_>,
) -> Result<(String, Task, Option<StoredTask>), Failure> {
    let session = cx.session;
    if !declares_tasks(session) {
        return Err(needs_tasks(method, session));
    }
    let task_id = target_member::<TaskParams>(cx.target.task_id(), params, "taskId")?;
    let unknown = || {
        invalid(format!("Invalid params: no task `{task_id}`"))
            .with_data(json!({ "taskId": task_id }))
    };
    let stored = env
        .task_store()
        .get(task_id)
        .await
        .map_err(|e| store_failure(&e))?
        .filter(|s| s.owner == session.task_owner());
    let stored = match stored {
        Some(s) => Some(orphaned(env, s).await?),
        None => None,
    };
    let task = if env.defines(Callback::GetTask) {
        super::find_task(env, task_id, session)
            .await?
            .ok_or_else(unknown)?
    } else {
        stored.as_ref().ok_or_else(unknown)?.task.clone()
    };
    Ok((task_id.to_owned(), task, stored))
}

/// The relay of a task another server runs for this caller (a gateway's upstream), if the
/// request names one.
pub(super) fn relay_of<E: Env>(
    env: &E,
    cx: Context<'_>,
) -> Option<Arc<dyn crate::tools::TaskRelay>> {
    env.tools().task_relay(cx.target.task_id()?, cx.session)
}

/// `stored`, failed because the node running it is gone: the status message says what became
/// of the node (`the node running this task {what}`), the error tells the caller (`error`).
/// Both ways a node goes — it died (its lease lapsed), or it shut down with the task running —
/// leave the task so.
pub(super) fn node_gone(stored: StoredTask, what: &str, error: &'static str) -> StoredTask {
    let error = ErrorObject::new(codes::INTERNAL_ERROR, error);
    StoredTask {
        task: stored
            .task
            .failed(error)
            .message(format!("the node running this task {what}")),
        ..stored
    }
}

/// A task the store has running while no node holds its lease — the node running it died — is
/// stored `failed`, with a reason. Without leases (one process) it is returned as it is.
async fn orphaned<E: Env>(env: &E, stored: StoredTask) -> Result<StoredTask, Failure> {
    let store = env.task_store();
    if store.lease_ttl().is_none()
        || stored.task.status.is_terminal()
        || env.running().runs(&stored.task.task_id)
        || store
            .leased(&stored.task.task_id)
            .await
            .map_err(|e| store_failure(&e))?
    {
        return Ok(stored);
    }
    let failed = node_gone(
        stored,
        "stopped before it finished",
        "The node running this task stopped before it finished (its lease lapsed)",
    );
    let written = recorder(env)
        .record(failed.clone())
        .await
        .map_err(|e| store_failure(&e))?;
    if written {
        return Ok(failed);
    }
    // It ended meanwhile (its outcome or a cancel came first): that is what it is.
    let current = store
        .get(&failed.task.task_id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(current.unwrap_or(failed))
}
