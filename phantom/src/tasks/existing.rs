//! The methods on a task that exists: `tasks/get`, `tasks/update` (answers to the input it
//! waits for, delivered to its handler on whichever node runs it) and `tasks/cancel`.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::lookup::{named, relay_of};
use super::serve::{Env, Running, recorder, store_failure, task_map};
use super::{StoredTask, TaskStatus};
use crate::extract::Context;
use crate::kernel::{Body, Callback, Failure, parse_params};
use crate::protocol::Params;

/// `tasks/get`.
pub(crate) async fn get<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    if let Some(relay) = relay_of(env, cx) {
        return relay.forward("tasks/get", params, cx).await;
    }
    let (_, task, _) = named(env, "tasks/get", params, cx).await?;
    Ok(Body::Map(task_map(&task)?))
}

/// `tasks/update`: answers go to the handler waiting for them (keys it does not wait for are
/// ignored, as the extension says); the task resumes once all are in. An app's `update_task`
/// gets the answers to the keys the task asks for.
pub(crate) async fn update<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    if let Some(relay) = relay_of(env, cx) {
        return relay.forward("tasks/update", params, cx).await;
    }
    let session = cx.session;
    let (task_id, task, stored) = named(env, "tasks/update", params, cx).await?;
    #[derive(Deserialize)]
    struct Update {
        #[serde(rename = "inputResponses", default)]
        input_responses: Option<Map<String, Value>>,
    }
    let update: Update = parse_params(params)?;
    let responses = update.input_responses.unwrap_or_default();
    if let Some(stored) = stored.filter(|_| !env.defines(Callback::UpdateTask)) {
        answered_now(env, stored, &responses).await?;
    }
    if let Some(input) = env.running().input(&task_id) {
        input.deliver(responses.clone());
    } else if !env.notifier().in_process() && !task.status.is_terminal() {
        // Another node may be running it.
        let change = crate::store::Change::TaskInput {
            task_id: task_id.clone(),
            responses: responses.clone(),
        };
        if let Err(e) = env.notifier().publish(change).await {
            tracing::warn!(error = %e, task = %task_id, "a task's input could not be passed to the other nodes");
            return Err(store_failure(&e));
        }
    }
    if env.defines(Callback::UpdateTask) {
        let asked = task.input_requests.clone().unwrap_or_default();
        let outstanding: Map<String, Value> = responses
            .into_iter()
            .filter(|(k, _)| asked.contains_key(k))
            .collect();
        env.update_task(task, outstanding, session).await?;
    }
    Ok(Body::Map(Map::new()))
}

/// The requests `responses` answer leave the task's `inputRequests` as `tasks/update` is
/// answered, not when its handler (on this node or another) next writes the task: a `tasks/get`
/// right after a partial update sees only what is still asked. When nothing is left, the
/// handler's own `working` follows.
async fn answered_now<E: Env>(
    env: &E,
    stored: StoredTask,
    responses: &Map<String, Value>,
) -> Result<(), Failure> {
    let Some(asked) = stored
        .task
        .input_requests
        .as_ref()
        .filter(|_| stored.task.status == TaskStatus::InputRequired)
    else {
        return Ok(());
    };
    if !responses.keys().any(|k| asked.contains_key(k)) {
        return Ok(());
    }
    let left: Map<String, Value> = asked
        .iter()
        .filter(|(k, _)| !responses.contains_key(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if left.is_empty() {
        return Ok(());
    }
    let changed = StoredTask {
        task: stored.task.clone().input_required(left),
        ..stored
    };
    env.task_store()
        .put_unless_ended(changed)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(())
}

/// Answers to a task's input that another node received: handed to the handler if it runs here.
pub(crate) fn deliver_input(
    running: &Running,
    task_id: &str,
    responses: serde_json::Map<String, Value>,
) {
    if let Some(input) = running.input(task_id) {
        input.deliver(responses);
    }
}

/// A task changed somewhere (another node's `tasks/cancel` included): a handler running here
/// for a task the store now has in a terminal state (cancelled) is stopped.
pub(crate) async fn stop_if_ended<E: Env>(env: &E, task_id: &str) {
    if !env.running().runs(task_id) {
        return;
    }
    match env.task_store().get(task_id).await {
        Ok(Some(stored)) if stored.task.status.is_terminal() => env.running().stop(task_id),
        Ok(_) => {}
        Err(e) => {
            tracing::warn!(error = %e, task = task_id, "a running task's state could not be read");
        }
    }
}

/// `tasks/cancel`: a task of this server's store is stopped and stored cancelled; an app's
/// `cancel_task` hears of a task still running.
pub(crate) async fn cancel<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    if let Some(relay) = relay_of(env, cx) {
        return relay.forward("tasks/cancel", params, cx).await;
    }
    let session = cx.session;
    let (task_id, task, stored) = named(env, "tasks/cancel", params, cx).await?;
    if let Some(stored) = stored.filter(|s| !s.task.status.is_terminal()) {
        env.running().stop(&task_id);
        let cancelled = StoredTask {
            task: stored.task.cancelled(),
            ..stored
        };
        recorder(env)
            .record(cancelled)
            .await
            .map_err(|e| store_failure(&e))?;
    }
    if env.defines(Callback::CancelTask) && !task.status.is_terminal() {
        env.cancel_task(task, session).await?;
    }
    Ok(Body::Map(Map::new()))
}
