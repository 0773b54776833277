//! The tasks room: a `#[task_handler]` tool called by a client that declared the extension runs
//! as a task (stored first, then run in the background), and `tasks/get`, `tasks/update` and
//! `tasks/cancel` read and change it, for the principal that created it only.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::{StoredTask, Task, TaskInput, new_task_id};
use crate::dispatch::Dispatcher;
use crate::extract::Context;
use crate::input::{Engine, Exchange};
use crate::kernel::Locked as _;
use crate::kernel::{Body, Failure, Outbound, Status, invalid, parse_params};
use crate::protocol::{ErrorObject, Method, codes};
use crate::server::{Callback, Server};
use crate::session::{Request, Session};

/// The extension's name, as clients declare it and servers advertise it.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The tasks running on this node, by id: what `tasks/cancel` and expiry stop, and where
/// `tasks/update` delivers answers.
#[derive(Debug, Default)]
pub(crate) struct Running(Mutex<RunningMap>);

type RunningMap = HashMap<String, (tokio::task::AbortHandle, Arc<TaskInput>)>;

impl Running {
    fn map(&self) -> std::sync::MutexGuard<'_, RunningMap> {
        self.0.locked()
    }

    /// Stops a task's handler (`tasks/cancel`): it is dropped, and work it handed a `Ctx`
    /// sees [`Ctx::cancelled`](crate::Ctx::cancelled) fire.
    fn stop(&self, task_id: &str) {
        if let Some((handle, input)) = self.map().remove(task_id) {
            handle.abort();
            input.stop();
        }
    }

    /// Forgets a task whose handler ended.
    fn forget(&self, task_id: &str) {
        self.map().remove(task_id);
    }

    /// The input side of a task running on this node.
    fn input(&self, task_id: &str) -> Option<Arc<TaskInput>> {
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

#[derive(Deserialize)]
struct TaskParams {
    #[serde(rename = "taskId")]
    task_id: String,
}

pub(super) fn store_failure(error: &crate::store::StoreError) -> Failure {
    Failure::from(super::input::store_error(error))
}

/// A task as a JSON object (its fields at the top level).
fn task_map(task: &Task) -> Result<Map<String, Value>, Failure> {
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
        Body::Members(text) => serde_json::from_str(&format!("{{{text}}}")).unwrap_or_default(),
    }
}

impl<S: Server> Dispatcher<S> {
    /// Starts tool `index` as a task: stores it, spawns the handler, answers the
    /// `CreateTaskResult` (the task is in the store before the answer leaves).
    pub(crate) async fn start_task(
        &self,
        index: usize,
        arguments: Option<&RawValue>,
        cx: Context<'_>,
        answers: Map<String, Value>,
    ) -> Result<Body, Failure> {
        let entry = &self.inner.router.tools[index];
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
        let store = &self.inner.config.task_store;
        store.put(stored.clone()).await.map_err(|e| {
            Failure::from(ErrorObject::new(
                codes::INTERNAL_ERROR,
                format!("Internal error: the task could not be stored: {e}"),
            ))
        })?;
        let input = Arc::new(TaskInput::new(id.clone(), self.recorder(), answers));
        let engine_input = Arc::clone(&input);
        let dispatcher = self.clone();
        let session = cx.session.clone();
        let request = cx.request.clone();
        let arguments: Option<Box<RawValue>> = arguments.map(ToOwned::to_owned);
        let task_id = id.clone();
        let (expired, keeper, expired_id) = (Arc::clone(&input), self.clone(), id.clone());
        let run = async move {
            dispatcher
                .run_task(
                    index,
                    stored,
                    engine_input,
                    arguments.as_deref(),
                    &session,
                    &request,
                )
                .await;
            dispatcher.inner.node.running.forget(&task_id);
        };
        // The map stays locked until the task is in it: a handler that ends at once forgets its
        // task only after it was recorded, so no entry outlives its handler.
        let mut running = self.inner.node.running.map();
        let handle = match support.ttl_ms {
            Some(ttl) => tokio::spawn(async move {
                // Past its TTL the task is gone from the store; its handler stops too.
                let ttl = std::time::Duration::from_millis(ttl);
                if tokio::time::timeout(ttl, run).await.is_err() {
                    expired.stop();
                    keeper.inner.node.running.forget(&expired_id);
                }
            }),
            None => tokio::spawn(run),
        };
        running.insert(id, (handle.abort_handle(), input));
        drop(running);
        Ok(Body::Task(task_map(&task)?))
    }

    /// Runs a task's handler to its end and stores the outcome: `completed` with the tool's
    /// result (an `isError` one too), `failed` with a protocol error. A task cancelled meanwhile
    /// stays cancelled.
    async fn run_task(
        &self,
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
            progress_token: None,
            exchange: &exchange,
            notifier: &self.inner.config.notifier,
        };
        let router = self.inner.router;
        let entry = &router.tools[index];
        let outcome = crate::tools::run_tool(
            &self.inner.server,
            entry,
            router.info.tool_timeout_ms,
            arguments,
            cx,
        )
        .await;
        let store = &self.inner.config.task_store;
        let id = &stored.task.task_id;
        let current = match store.get(id).await {
            Ok(Some(current)) if !current.task.status.is_terminal() => current,
            // Cancelled, expired or gone: nothing to record.
            _ => return,
        };
        let task = match outcome {
            Ok(body) => current.task.completed(body_value(body)),
            Err(failure) => current.task.failed(failure.error),
        };
        let finished = StoredTask { task, ..current };
        if let Err(e) = self.recorder().record(finished).await {
            tracing::warn!(task = %id, error = %e, "the task's outcome could not be stored");
        }
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel`. The task comes from the `get_task`
    /// callback when the router defines it (the app's tasks, and its access check), else from
    /// the task store (tasks of `#[task_handler]` tools, for their owner only).
    pub(crate) async fn task_method(
        &self,
        method: Method,
        params: Option<&RawValue>,
        cx: Context<'_>,
    ) -> Result<Body, Failure> {
        if !declares_tasks(cx.session) {
            return Err(needs_tasks(method.as_str(), cx.session));
        }
        let p: TaskParams = parse_params(params)?;
        let session = cx.session;
        let router = self.inner.router;
        let store = &self.inner.config.task_store;
        let unknown = || {
            invalid(format!("Invalid params: no task `{}`", p.task_id))
                .with_data(json!({ "taskId": p.task_id }))
        };
        let stored = store
            .get(&p.task_id)
            .await
            .map_err(|e| store_failure(&e))?
            .filter(|s| s.owner == session.task_owner());
        let task = if router.overrides(Callback::GetTask) {
            self.find_task(&p.task_id, session)
                .await?
                .ok_or_else(unknown)?
        } else {
            stored.as_ref().ok_or_else(unknown)?.task.clone()
        };
        match method {
            Method::TasksGet => Ok(Body::Map(task_map(&task)?)),
            // Answers go to the handler waiting for them (keys it does not wait for are
            // ignored, as the extension says); the task resumes once all are in. An app's
            // `update_task` gets the answers to the keys the task asks for.
            Method::TasksUpdate => {
                #[derive(Deserialize)]
                struct Update {
                    #[serde(rename = "inputResponses", default)]
                    input_responses: Option<Map<String, Value>>,
                }
                let update: Update = parse_params(params)?;
                let responses = update.input_responses.unwrap_or_default();
                if let Some(input) = self.inner.node.running.input(&p.task_id) {
                    input.deliver(responses.clone());
                }
                if router.overrides(Callback::UpdateTask) {
                    let asked = task.input_requests.clone().unwrap_or_default();
                    let outstanding: Map<String, Value> = responses
                        .into_iter()
                        .filter(|(k, _)| asked.contains_key(k))
                        .collect();
                    self.inner
                        .server
                        .update_task(task, outstanding, session)
                        .await?;
                }
                Ok(Body::Map(Map::new()))
            }
            _ => {
                if let Some(stored) = stored.filter(|s| !s.task.status.is_terminal()) {
                    self.inner.node.running.stop(&p.task_id);
                    let cancelled = StoredTask {
                        task: stored.task.cancelled(),
                        ..stored
                    };
                    self.recorder()
                        .record(cancelled)
                        .await
                        .map_err(|e| store_failure(&e))?;
                }
                if router.overrides(Callback::CancelTask) && !task.status.is_terminal() {
                    self.inner.server.cancel_task(task, session).await?;
                }
                Ok(Body::Map(Map::new()))
            }
        }
    }

    /// Whether a `tools/call` names a `#[task_handler(prepare)]` tool.
    pub(crate) fn prepares_task(&self, params: Option<&RawValue>) -> bool {
        let Ok(p) = parse_params::<crate::tools::NameParams<'_>>(params) else {
            return false;
        };
        let router = self.inner.router;
        router
            .tool_position(&p.name)
            .and_then(|i| router.tools[i].def.task)
            .is_some_and(|t| t.prepare)
    }

    /// Whether any tool runs as a task (the extension is then advertised).
    pub(crate) fn serves_tasks(&self) -> bool {
        let router = self.inner.router;
        router.tools.iter().any(|t| t.def.task.is_some()) || router.overrides(Callback::GetTask)
    }
}
