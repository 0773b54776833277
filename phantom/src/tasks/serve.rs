//! The tasks room: a `#[task_handler]` tool called by a client that declared the extension runs
//! as a task (stored first, then run in the background), and `tasks/get`, `tasks/update` and
//! `tasks/cancel` read and change it, for the principal that created it only.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::lookup::node_gone;
use super::{StoredTask, Task, TaskInput, new_task_id};
use crate::extract::Context;
use crate::input::{Engine, Exchange, Interrupt, interruptible};
use crate::kernel::Callback;
use crate::kernel::Locked as _;
use crate::kernel::{Body, Failure, Outbound, Status};
use crate::protocol::{ErrorObject, Params, codes};
use crate::session::{Request, Session};

/// The extension's name, as clients declare it and servers advertise it.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The tasks running on this node, by id: what `tasks/cancel` and expiry stop, and where
/// `tasks/update` delivers answers; with the node's name in leases, a signal each time a
/// handler ends (for [`Running::finished`]), and whether the shutdown's grace began (set by
/// [`finish`], read under the map's lock: from then on no task starts here).
#[derive(Debug, Default)]
pub(crate) struct Running(
    Mutex<RunningMap>,
    std::sync::OnceLock<String>,
    tokio::sync::Notify,
    std::sync::atomic::AtomicBool,
);

type RunningMap = HashMap<String, (tokio::task::AbortHandle, Arc<TaskInput>)>;

impl Running {
    fn map(&self) -> std::sync::MutexGuard<'_, RunningMap> {
        self.0.locked()
    }

    /// Whether the shutdown's grace began ([`finish`]): no task starts here any more.
    fn finishing(&self) -> bool {
        self.3.load(std::sync::atomic::Ordering::Acquire)
    }

    /// This node's name in task leases.
    fn node(&self) -> &str {
        self.1.get_or_init(crate::kernel::random_id::<9>)
    }

    /// Stops a task's handler (`tasks/cancel`): it is dropped, and work it handed a `Ctx`
    /// sees [`Ctx::cancelled`](crate::Ctx::cancelled) fire.
    pub(super) fn stop(&self, task_id: &str) {
        if let Some((handle, input)) = self.map().remove(task_id) {
            handle.abort();
            input.stop();
        }
        self.2.notify_waiters();
    }

    /// Whether a task's handler runs on this node.
    pub(super) fn runs(&self, task_id: &str) -> bool {
        self.map().contains_key(task_id)
    }

    /// Forgets a task whose handler ended.
    fn forget(&self, task_id: &str) {
        self.map().remove(task_id);
        self.2.notify_waiters();
    }

    /// Waits until no task's handler runs on this node.
    async fn finished(&self) {
        loop {
            let ended = self.2.notified();
            tokio::pin!(ended);
            // Registered before the map is read: an end between the two is not missed.
            ended.as_mut().enable();
            if self.map().is_empty() {
                return;
            }
            ended.await;
        }
    }

    /// The input side of a task running on this node.
    pub(super) fn input(&self, task_id: &str) -> Option<Arc<TaskInput>> {
        self.map().get(task_id).map(|(_, input)| Arc::clone(input))
    }
}

/// Whether the request declared the tasks extension (per request in 2026-07-28, in `initialize`
/// before).
pub(crate) fn declares_tasks(session: &Session) -> bool {
    session
        .client_capabilities
        .get("extensions")
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(|v| !v.is_null())
}

/// `-32021`: the request needs the tasks extension (HTTP 400 in 2026-07-28, as every missing
/// client capability).
pub(crate) fn needs_tasks(what: &str, session: &Session) -> Failure {
    let status = if session.is_modern() {
        Status::BadRequest
    } else {
        Status::Ok
    };
    Failure::from(
        ErrorObject::new(
            codes::MISSING_CLIENT_CAPABILITY,
            format!("Missing required client capability: {what} needs the `{EXTENSION}` extension; declare it in the request's client capabilities"),
        )
        .with_data(json!({ "requiredCapabilities": { "extensions": { EXTENSION: {} } } })),
    )
    .with_status(status)
}

/// The params of `tasks/*` as the room expects them, read only for the exact error of params whose
/// `taskId` did not read as a string.
#[derive(Deserialize)]
#[allow(dead_code)]
pub(super) struct TaskParams {
    #[serde(rename = "taskId")]
    pub(super) task_id: String,
}

pub(super) fn store_failure(error: &crate::store::StoreError) -> Failure {
    Failure::from(super::input::store_error(error))
}

/// A task as a JSON object (its fields at the top level).
pub(super) fn task_map(task: &Task) -> Result<Map<String, Value>, Failure> {
    match serde_json::to_value(task) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(Failure::internal()),
    }
}

/// A body as the `result` of a completed task.
fn body_value(body: Body) -> Value {
    match body {
        Body::Map(map) | Body::InputRequired(map) | Body::Task(map) => Value::Object(map),
        Body::Object(text) => serde_json::from_str(&text).unwrap_or_default(),
        Body::Text { text, is_error } => {
            serde_json::from_str(&crate::kernel::text_object(&text, is_error)).unwrap_or_default()
        }
        Body::Members(text) => serde_json::from_str(&format!("{{{text}}}")).unwrap_or_default(),
    }
}

/// What the tasks room may use: the tools it runs (and the server they belong to), the task
/// store, the notifier, the tasks running on this node, and the app's task callbacks. `Clone` and
/// `'static`, because a task's handler runs in a spawned task of its own.
pub(crate) trait Env: crate::tools::Env + Clone + Send + Sync + 'static {
    fn task_store(&self) -> &Arc<dyn crate::store::TaskStore>;
    fn notifier(&self) -> &crate::Notifier;
    /// The tasks running on this node.
    fn running(&self) -> &Running;
    /// Whether the impl overrides `callback`.
    fn defines(&self, callback: Callback) -> bool;
    /// The app's `get_task`.
    fn get_task<'a>(
        &'a self,
        task_id: &'a str,
        session: &'a Session,
    ) -> impl Future<Output = Result<Task, super::TaskError>> + Send + 'a;
    /// The app's `update_task`.
    fn update_task<'a>(
        &'a self,
        task: Task,
        responses: Map<String, Value>,
        session: &'a Session,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send + 'a;
    /// The app's `cancel_task`.
    fn cancel_task<'a>(
        &'a self,
        task: Task,
        session: &'a Session,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send + 'a;
    /// The app's `authorize_task_subscriptions`.
    fn authorize_task_subscriptions<'a>(
        &'a self,
        task_ids: Vec<String>,
        session: &'a Session,
    ) -> impl Future<Output = Vec<String>> + Send + 'a;
}

/// The recorder of `env`'s tasks.
pub(crate) fn recorder<E: Env>(env: &E) -> super::Recorder {
    super::Recorder::new(Arc::clone(env.task_store()), env.notifier().clone())
}

/// Whether a `tools/call` of declared `#[task_handler]` tool `name` runs as a task: for a client
/// that declared the extension (a 2026-07-28 `prepare` tool runs inline until `ctx.task()`); a
/// client that did not is refused a tool that runs only as a task.
pub(crate) fn runs_as_task(
    name: &str,
    task: crate::tools::TaskSupport,
    session: &Session,
) -> Result<bool, Failure> {
    let declared = declares_tasks(session);
    if !declared && task.required {
        let what = format!("tool `{name}` runs only as a task and");
        return Err(needs_tasks(&what, session));
    }
    Ok(declared && !(task.prepare && session.is_modern()))
}

/// Starts declared tool `name` of a `tools/call` as a task, with no input answered so far.
/// `start`'s own future, not one around it (every request pays its size: `bench/NOTES.md`,
/// round 6).
pub(crate) fn start_call<'a, E: Env>(
    env: &'a E,
    name: &'a str,
    arguments: Option<&'a RawValue>,
    cx: Context<'a>,
) -> impl Future<Output = Result<Body, Failure>> + Send + 'a {
    start(env, name, arguments, cx, Map::new())
}

/// A 2026-07-28 `tools/call` of a `#[task_handler(prepare)]` tool whose handler asked for the
/// task (`ctx.task()`): the call becomes a task of the tool it names, with the input answered so
/// far.
pub(crate) async fn escalate<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
    arguments: Option<Option<&RawValue>>,
    answers: Map<String, Value>,
) -> Result<Body, Failure> {
    let p = crate::kernel::named_arguments(cx.target, params, arguments)?;
    start(env, p.name, p.arguments, cx, answers).await
}

/// Starts declared tool `name` as a task: stores it, spawns the handler, answers the
/// `CreateTaskResult` (the task is in the store before the answer leaves).
async fn start<E: Env>(
    env: &E,
    name: &str,
    arguments: Option<&RawValue>,
    cx: Context<'_>,
    answers: Map<String, Value>,
) -> Result<Body, Failure> {
    // During the drain delay (`Dispatcher::drain` before the listener closes) tasks start as
    // every request is served: the balancer may not have seen the readiness turn 503 yet, and a
    // refusal would reach the client as a failed request, which no balancer retries. Once the
    // grace began (`finish`), a task would have only what is left of it: refused.
    if env.running().finishing() {
        return Err(shutting_down());
    }
    let index = env
        .tools()
        .declared
        .position(name)
        .ok_or_else(Failure::internal)?;
    let entry = &env.tools().declared.entries[index];
    let support = entry.def.task.unwrap_or(crate::tools::TaskSupport {
        required: false,
        ttl_ms: None,
        poll_interval_ms: None,
        prepare: false,
    });
    let id = new_task_id();
    let mut task = Task::working(id.clone(), support.ttl_ms);
    if let Some(ms) = support.poll_interval_ms {
        task = task.poll_interval_ms(ms);
    }
    let stored = StoredTask::new(task.clone(), cx.session.task_owner());
    env.task_store().put(stored.clone()).await.map_err(|e| {
        crate::telemetry::metrics::store_error("tasks");
        Failure::from(ErrorObject::new(
            codes::INTERNAL_ERROR,
            format!("Internal error: the task could not be stored: {e}"),
        ))
    })?;
    crate::telemetry::metrics::task(stored.task.status.as_str());
    let input = Arc::new(TaskInput::new(id.clone(), recorder(env), answers));
    let engine_input = Arc::clone(&input);
    let runner = env.clone();
    let session = cx.session.clone();
    let request = cx.request.clone();
    let arguments: Option<Box<RawValue>> = arguments.map(ToOwned::to_owned);
    let task_id = id.clone();
    let (expired, keeper, expired_id) = (Arc::clone(&input), env.clone(), id.clone());
    if env.task_store().lease_ttl().is_some()
        && let Err(e) = env.task_store().lease(&id, env.running().node()).await
    {
        tracing::warn!(error = %e, task = %id, "a task's lease could not be taken");
    }
    let run = async move {
        let handler = run_task(
            &runner,
            index,
            stored,
            engine_input,
            arguments.as_deref(),
            &session,
            &request,
        );
        match runner.task_store().lease_ttl() {
            Some(ttl) => {
                tokio::pin!(handler);
                let every = (ttl / 3).max(std::time::Duration::from_millis(10));
                let mut renew =
                    tokio::time::interval_at(tokio::time::Instant::now() + every, every);
                loop {
                    tokio::select! {
                        () = &mut handler => break,
                        _ = renew.tick() => {
                            let store = runner.task_store();
                            if let Err(e) = store.lease(&task_id, runner.running().node()).await {
                                tracing::warn!(error = %e, task = %task_id, "a task's lease could not be renewed");
                            }
                        }
                    }
                }
                if let Err(e) = runner.task_store().release(&task_id).await {
                    tracing::debug!(error = %e, task = %task_id, "a task's lease is left to lapse");
                }
            }
            None => handler.await,
        }
        runner.running().forget(&task_id);
    };
    // The map stays locked until the task is in it: a handler that ends at once forgets its
    // task only after it was recorded, so no entry outlives its handler.
    let mut running = env.running().map();
    let handle = match support.ttl_ms {
        Some(ttl) => tokio::spawn(async move {
            // Past its TTL the task is gone from the store; its handler stops too.
            let ttl = std::time::Duration::from_millis(ttl);
            if tokio::time::timeout(ttl, run).await.is_err() {
                expired.stop();
                keeper.running().forget(&expired_id);
            }
        }),
        None => tokio::spawn(run),
    };
    running.insert(id, (handle.abort_handle(), input));
    drop(running);
    Ok(Body::Task(task_map(&task)?))
}

/// The refusal of a task-augmented call once the shutdown's grace began.
fn shutting_down() -> Failure {
    Failure::from(ErrorObject::new(
        codes::INTERNAL_ERROR,
        "Internal error: this node is shutting down and starts no new task; send the call again (another node takes it)",
    ))
}

/// A shutdown's end for the tasks running on this node: from now on none starts here (see
/// [`start`]); those running have `within` to finish; those still running then are stopped and
/// stored `failed` with a reason that says the node shut down, and their leases released, so that every node reports them so at once (instead of `working`
/// until the lease lapses). A task is not handed to another node: its handler's state (the
/// future, what it awaits) lives only here, and running it again elsewhere could run its
/// effects twice.
pub(crate) async fn finish<E: Env>(env: &E, within: std::time::Duration) {
    env.running()
        .3
        .store(true, std::sync::atomic::Ordering::Release);
    if tokio::time::timeout(within, env.running().finished())
        .await
        .is_ok()
    {
        return;
    }
    stop_all(env, |current| {
        node_gone(
            current,
            "shut down before it finished",
            "The node running this task shut down before it finished; start it again",
        )
    })
    .await;
}

/// Waits until no task's handler runs on this node (at once when none does).
pub(crate) async fn finished<E: Env>(env: &E) {
    env.running().finished().await;
}

/// Whether a task's handler runs on this node.
pub(crate) fn running<E: Env>(env: &E) -> bool {
    !env.running().map().is_empty()
}

/// Stops every task handler running on this node (tasks still start here afterwards) and stores
/// each task `failed`, the error `-32603` and the status message both `reason`; their leases
/// are released.
pub(crate) async fn fail_all<E: Env>(env: &E, reason: &str) {
    stop_all(env, |current| {
        let error = ErrorObject::new(codes::INTERNAL_ERROR, reason.to_owned());
        super::StoredTask {
            task: current.task.failed(error).message(reason.to_owned()),
            ..current
        }
    })
    .await;
}

/// Stops every task handler running on this node; each task still open in the store is
/// written as `failed` makes it, and its lease released.
async fn stop_all<E: Env>(env: &E, failed: impl Fn(StoredTask) -> StoredTask) {
    let stopped: Vec<_> = env.running().map().drain().collect();
    env.running().2.notify_waiters();
    let store = env.task_store();
    for (id, (handle, input)) in stopped {
        handle.abort();
        input.stop();
        match store.get(&id).await {
            Ok(Some(current)) if !current.task.status.is_terminal() => {
                if let Err(e) = recorder(env).record(failed(current)).await {
                    tracing::warn!(task = %id, error = %e, "a stopped task could not be stored failed");
                }
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(task = %id, error = %e, "a stopped task could not be read; its lease lapses");
            }
        }
        if store.lease_ttl().is_some()
            && let Err(e) = store.release(&id).await
        {
            tracing::debug!(task = %id, error = %e, "a stopped task's lease is left to lapse");
        }
        tracing::info!(task = %id, "a task still running was stopped and stored failed");
    }
}

/// Runs a task's handler to its end and stores the outcome: `completed` with the tool's
/// result (an `isError` one too), `failed` with a protocol error. A task cancelled meanwhile
/// stays cancelled.
async fn run_task<E: Env>(
    env: &E,
    index: usize,
    stored: StoredTask,
    input: Arc<TaskInput>,
    arguments: Option<&RawValue>,
    session: &Session,
    request: &Request,
) {
    let outbound = Outbound::none();
    let exchange = Exchange::new(Engine::Task(input), session);
    let cx = Context {
        session,
        request,
        outbound: &outbound,
        target: crate::protocol::Target::NONE,
        progress_token: None,
        exchange: &exchange,
        notifier: env.notifier(),
    };
    let entry = &env.tools().declared.entries[index];
    let run = crate::tools::run_tool(env.server(), entry, env.tool_timeout_ms(), arguments, cx);
    // A handler stopped by its `Ctx` (input the client cannot give, an answer that does not
    // read, `insufficient_scope`) never completes: without this, the task would stay `working`
    // until its TTL.
    let outcome = interruptible(&exchange, run).await;
    let store = env.task_store();
    let id = &stored.task.task_id;
    let current = match store.get(id).await {
        Ok(Some(current)) if !current.task.status.is_terminal() => current,
        // Cancelled, expired or gone: nothing to record.
        _ => return,
    };
    let task = match outcome {
        Ok(Ok(body)) => current.task.completed(body_value(body)),
        Ok(Err(failure)) => current.task.failed(failure.error),
        Err(interrupt) => {
            let error = match interrupt {
                Interrupt::Failed(failure) => failure.error,
                // A task's exchange asks through the task, and never escalates.
                Interrupt::InputRequired(_) | Interrupt::Escalate(_) => Failure::internal().error,
            };
            tracing::warn!(
                task = %id,
                tool = %entry.def.name,
                code = error.code,
                "a task failed: its handler was stopped: {}",
                error.message
            );
            // The status message says why, not what the handler last said it was doing.
            let message = error.message.clone();
            current.task.failed(error).message(message)
        }
    };
    let finished = StoredTask { task, ..current };
    if let Err(e) = recorder(env).record(finished).await {
        tracing::warn!(task = %id, error = %e, "the task's outcome could not be stored");
    }
}

/// Whether a `tools/call` may become a task midway: a 2026-07-28 caller that declares the
/// extension, naming a declared `#[task_handler(prepare)]` tool.
pub(crate) fn escalates<E: Env>(
    env: &E,
    session: &Session,
    target: &crate::protocol::Target<'_>,
) -> bool {
    if !session.is_modern() || !declares_tasks(session) {
        return false;
    }
    let Some(name) = target.name() else {
        return false;
    };
    env.tools()
        .declared
        .get(name)
        .and_then(|t| t.def.task)
        .is_some_and(|t| t.prepare)
}

/// Whether any tool runs as a task (the extension is then advertised).
pub(crate) fn served<S>(tools: &crate::tools::Table<S>, get_task: bool) -> bool {
    tools.declared.entries.iter().any(|t| t.def.task.is_some()) || get_task || tools.relays_tasks()
}
