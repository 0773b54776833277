//! The engine behind [`Ctx::input`](crate::Ctx::input): how a request for input is answered in
//! each era, and how a handler that cannot go on is stopped.
//!
//! A handler is run inside [`interruptible`]. When it asks for input that cannot be had now (a
//! 2026-07-28 round without the answer, a capability the client lacks, an answer that does not
//! read), the engine records an [`Interrupt`] and the input future never completes; the
//! dispatcher sees the interrupt, drops the handler's future and answers with it.

mod client;

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Poll;
use std::time::{Duration, Instant};

use futures_util::task::AtomicWaker;
use serde_json::{Map, Value, json};

use super::{InputKind, InputRequest, Replies};
use crate::kernel::Locked as _;
use crate::kernel::{BoxFuture, Failure, Outbound, Status};
use crate::protocol::{ErrorObject, codes};
use crate::session::Session;

/// Where input comes from for one request.
#[derive(Clone, Debug)]
pub(crate) enum Engine {
    /// Nowhere: a handler that asks anyway gets this error.
    Unavailable(Unavailable),
    /// 2026-07-28: the answers the request carries (its `inputResponses` and its opened
    /// `requestState`).
    Modern(Map<String, Value>),
    /// 2025-11-25 and earlier: requests to the client on the request's stream, answers through
    /// the reply bus.
    Legacy {
        outbound: Outbound,
        session: Arc<str>,
        replies: Arc<Replies>,
    },
    /// A tool running as a task: the task waits (`input_required`) for `tasks/update`.
    Task(Arc<dyn TaskChannel>),
}

/// What a handler running as a task asks through: its task's status and the answers that
/// `tasks/update` delivers. The tasks room implements it, so this room need not know tasks.
pub(crate) trait TaskChannel: Send + Sync + std::fmt::Debug {
    /// The task's id.
    fn task_id(&self) -> &str;
    /// Whether the task was cancelled or expired.
    fn is_stopped(&self) -> bool;
    /// Resolves once the task is cancelled or expires.
    fn stopped(&self) -> BoxFuture<'_, ()>;
    /// Sets the task's status message.
    fn status(&self, message: String) -> BoxFuture<'_, Result<(), ErrorObject>>;
    /// The answers to `requests`, in order, once the client has given every one.
    fn ask<'a>(
        &'a self,
        requests: &'a [InputRequest],
    ) -> BoxFuture<'a, Result<Vec<Value>, ErrorObject>>;
}

/// Why a request cannot ask the client for input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unavailable {
    /// Only `tools/call`, `prompts/get` and `resources/read` may ask.
    Method(&'static str),
    /// Legacy stateless mode: no session, so no stream for the answer to come back on.
    Stateless,
}

impl Unavailable {
    fn error(self) -> ErrorObject {
        match self {
            Self::Method(method) => ErrorObject::new(
                codes::INTERNAL_ERROR,
                format!(
                    "Internal error: a `{method}` handler cannot ask the client for input (only tools/call, prompts/get and resources/read can)"
                ),
            ),
            Self::Stateless => ErrorObject::new(
                codes::MISSING_CLIENT_CAPABILITY,
                "Missing required client capability: this server runs in stateless mode (no Mcp-Session-Id), where a handler cannot ask the client for input",
            )
            .with_data(json!({ "requiredCapabilities": {}, "mode": "stateless" })),
        }
    }
}

/// Why a handler was stopped.
#[derive(Debug)]
pub(crate) enum Interrupt {
    /// 2026-07-28: answer `input_required` with these requests.
    InputRequired(Vec<InputRequest>),
    /// Answer with this error.
    Failed(Failure),
    /// A `#[task_handler(prepare)]` reached `ctx.task()`: start the task with the answers the
    /// request carried.
    Escalate(Map<String, Value>),
}

/// One request's input engine. The shared part is made only when a handler takes a `Ctx`.
#[derive(Debug)]
pub(crate) struct Exchange {
    engine: Engine,
    caps: Arc<Value>,
    modern: bool,
    shared: OnceLock<Arc<Shared>>,
    /// What a 2026-07-28 state of this request is bound to, computed at most once.
    binding: OnceLock<super::Binding>,
    /// Whether `ctx.task()` starts a task (a `#[task_handler(prepare)]` tool called with the
    /// tasks extension declared).
    escalates: std::sync::atomic::AtomicBool,
}

/// What a `Ctx` holds of its request's exchange.
pub(crate) struct Shared {
    engine: Engine,
    caps: Arc<Value>,
    modern: bool,
    interrupt: Mutex<Option<Interrupt>>,
    waker: AtomicWaker,
    /// 2026-07-28: the answers the handler used, carried to the next round.
    used: Mutex<Map<String, Value>>,
    /// Time spent waiting for the client's answers (2025-11-25), which a tool's time limit does
    /// not count: the total of finished waits, and the start of the current one.
    waits: Mutex<(Duration, Option<Instant>)>,
    /// Set (and waiters woken) when the request is cancelled or abandoned.
    cancelled: AtomicBool,
    cancel: tokio::sync::Notify,
    /// See [`Exchange::escalates`].
    escalates: bool,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exchange")
            .field("modern", &self.modern)
            .finish_non_exhaustive()
    }
}

impl Exchange {
    pub(crate) fn new(engine: Engine, session: &Session) -> Self {
        Self {
            engine,
            caps: Arc::clone(&session.client_capabilities),
            modern: session.is_modern(),
            shared: OnceLock::new(),
            binding: OnceLock::new(),
            escalates: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Lets `ctx.task()` start the task (before any `Ctx` is made).
    pub(crate) fn escalates(&self) {
        self.escalates.store(true, Ordering::SeqCst);
    }

    /// The request's binding, computed by `make` on first use.
    pub(crate) fn binding(&self, make: impl FnOnce() -> super::Binding) -> &super::Binding {
        self.binding.get_or_init(make)
    }

    /// Keeps a binding computed before the exchange was made.
    pub(crate) fn keep_binding(&self, binding: super::Binding) {
        let _ = self.binding.set(binding);
    }

    /// The shared part, made on first use.
    pub(crate) fn shared(&self) -> Arc<Shared> {
        Arc::clone(self.shared.get_or_init(|| {
            Arc::new(Shared {
                engine: self.engine.clone(),
                caps: Arc::clone(&self.caps),
                modern: self.modern,
                interrupt: Mutex::new(None),
                waker: AtomicWaker::new(),
                used: Mutex::new(Map::new()),
                waits: Mutex::new((Duration::ZERO, None)),
                cancelled: AtomicBool::new(false),
                cancel: tokio::sync::Notify::new(),
                escalates: self.escalates.load(Ordering::SeqCst),
            })
        }))
    }

    /// Marks the request cancelled or abandoned, for work the handler spawned with a `Ctx`
    /// (`Ctx::cancelled`). Nothing to do when no handler took a `Ctx`.
    pub(crate) fn cancel(&self) {
        if let Some(shared) = self.shared.get() {
            shared.cancelled.store(true, Ordering::SeqCst);
            shared.cancel.notify_waiters();
        }
    }

    /// The answers the handler used (2026-07-28), for the next round's state.
    pub(crate) fn used(&self) -> Map<String, Value> {
        self.shared
            .get()
            .map_or_else(Map::new, |s| std::mem::take(&mut *s.used.locked()))
    }
}

/// Runs `fut` for at most `limit` of its own time: time spent waiting for the client's input
/// does not count. `None` when the limit passed first (and `fut` was dropped).
pub(crate) async fn limited<F: Future>(
    exchange: &Exchange,
    limit: Duration,
    fut: F,
) -> Option<F::Output> {
    let start = Instant::now();
    let waited = || exchange.shared.get().map_or(Duration::ZERO, |s| s.waited());
    let mut fut = pin!(fut);
    loop {
        // While the handler waits for the client, `waited` grows with the clock, so the deadline
        // moves on with it.
        let deadline = start + limit + waited();
        if Instant::now() >= deadline {
            return None;
        }
        tokio::select! {
            out = &mut fut => return Some(out),
            () = tokio::time::sleep_until(deadline.into()) => {}
        }
    }
}

/// Runs `fut` until it completes or its exchange is interrupted. A handler that does not
/// complete (interrupted, or dropped with this future: a cancellation, a closed connection)
/// leaves its exchange cancelled.
///
/// A future type rather than an `async fn`, so that `fut` is stored once, not once as the
/// argument and again pinned inside.
pub(crate) fn interruptible<F: Future>(exchange: &Exchange, fut: F) -> Interruptible<'_, F> {
    Interruptible {
        exchange,
        armed: true,
        fut,
    }
}

pin_project_lite::pin_project! {
    /// See [`interruptible`].
    pub(crate) struct Interruptible<'a, F> {
        exchange: &'a Exchange,
        armed: bool,
        #[pin]
        fut: F,
    }

    impl<F> PinnedDrop for Interruptible<'_, F> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if *this.armed {
                this.exchange.cancel();
            }
        }
    }
}

impl<F: Future> Future for Interruptible<'_, F> {
    type Output = Result<F::Output, Interrupt>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(out) = this.fut.poll(cx) {
            *this.armed = false;
            return Poll::Ready(Ok(out));
        }
        if let Some(shared) = this.exchange.shared.get() {
            shared.waker.register(cx.waker());
            if let Some(interrupt) = shared.interrupt.locked().take() {
                return Poll::Ready(Err(interrupt));
            }
        }
        Poll::Pending
    }
}

impl Shared {
    /// Whether the request was cancelled or abandoned (for a task: cancelled or expired).
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
            || matches!(&self.engine, Engine::Task(input) if input.is_stopped())
    }

    /// Resolves once the request is cancelled or abandoned (a task: `tasks/cancel`, its TTL).
    pub(crate) async fn cancelled(&self) {
        loop {
            let notified = self.cancel.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            match &self.engine {
                Engine::Task(input) => {
                    tokio::select! {
                        () = notified => {}
                        () = input.stopped() => return,
                    }
                }
                _ => notified.await,
            }
        }
    }

    /// Time spent waiting for the client so far, the current wait included.
    fn waited(&self) -> Duration {
        let (total, since) = *self.waits.locked();
        total + since.map_or(Duration::ZERO, |s| s.elapsed())
    }

    fn wait_starts(&self) {
        self.waits.locked().1 = Some(Instant::now());
    }

    fn wait_ends(&self) {
        let mut waits = self.waits.locked();
        if let Some(since) = waits.1.take() {
            waits.0 += since.elapsed();
        }
    }

    /// `ctx.task()`: in the inline phase of a `#[task_handler(prepare)]`, stops the handler so
    /// the task starts (with the answers this request carried); anywhere else, returns at once.
    pub(crate) async fn escalate(&self) {
        if !self.escalates {
            return;
        }
        let answers = match &self.engine {
            Engine::Modern(answers) => answers.clone(),
            _ => Map::new(),
        };
        self.halt::<()>(Interrupt::Escalate(answers)).await;
    }

    /// The id of the task the handler runs as; `None` where it is no task.
    pub(crate) fn task_id(&self) -> Option<&str> {
        match &self.engine {
            Engine::Task(input) => Some(input.task_id()),
            _ => None,
        }
    }

    /// Sets the status message of the task the handler runs as; `false` where it is no task.
    pub(crate) async fn status(&self, message: String) -> bool {
        match &self.engine {
            Engine::Task(input) => input.status(message).await.is_ok(),
            _ => false,
        }
    }

    /// Whether the client declared the capability `kind` needs.
    pub(crate) fn supports(&self, kind: InputKind) -> bool {
        missing_capabilities(&[kind.capability()], &self.caps).is_none()
    }

    /// Stops the handler with `interrupt`: records it, wakes the dispatcher, never returns.
    pub(crate) async fn halt<T>(&self, interrupt: Interrupt) -> T {
        {
            let mut slot = self.interrupt.locked();
            // The first interrupt wins (two inputs asked concurrently).
            slot.get_or_insert(interrupt);
        }
        self.waker.wake();
        std::future::pending().await
    }

    fn failure(&self, error: ErrorObject) -> Interrupt {
        let status = if self.modern && error.code == codes::MISSING_CLIENT_CAPABILITY {
            Status::BadRequest
        } else {
            Status::Ok
        };
        Interrupt::Failed(Failure::from(error).with_status(status))
    }

    /// The client's answers to `requests`, in order; stops the handler when they cannot be had.
    pub(crate) async fn ask(&self, requests: Vec<InputRequest>) -> Vec<Value> {
        if let Engine::Unavailable(why) = &self.engine {
            return self.halt(self.failure(why.error())).await;
        }
        let needed: Vec<&str> = requests.iter().map(|r| r.kind.capability()).collect();
        if let Some(missing) = missing_capabilities(&needed, &self.caps) {
            let asked: Vec<String> = requests
                .iter()
                .filter(|r| !self.supports(r.kind))
                .map(|r| {
                    let (method, needs) = (r.kind.method(), r.kind.capability());
                    format!("`{}` ({method}, which needs `{needs}`)", r.key)
                })
                .collect();
            let what = match self.engine {
                Engine::Task(_) => "task",
                _ => "request",
            };
            let error = ErrorObject::new(
                codes::MISSING_CLIENT_CAPABILITY,
                format!(
                    "Missing required client capability: this {what} asks the client for {}, and the client's capabilities do not declare it",
                    asked.join(" and ")
                ),
            )
            .with_data(json!({ "requiredCapabilities": missing }));
            return self.halt(self.failure(error)).await;
        }
        match &self.engine {
            Engine::Unavailable(_) => unreachable!("answered above"),
            Engine::Modern(answers) => {
                let missing: Vec<InputRequest> = requests
                    .iter()
                    .filter(|r| !answers.contains_key(&r.key))
                    .cloned()
                    .collect();
                if !missing.is_empty() {
                    return self.halt(Interrupt::InputRequired(missing)).await;
                }
                let mut used = self.used.locked();
                requests
                    .iter()
                    .map(|r| {
                        let answer = answers[&r.key].clone();
                        used.insert(r.key.clone(), answer.clone());
                        answer
                    })
                    .collect()
            }
            Engine::Legacy {
                outbound,
                session,
                replies,
            } => self.ask_client(&requests, outbound, session, replies).await,
            Engine::Task(input) => {
                self.wait_starts();
                let answers = {
                    let _counted = crate::telemetry::metrics::InputWait::new();
                    input.ask(&requests).await
                };
                self.wait_ends();
                match answers {
                    Ok(answers) => answers,
                    Err(error) => self.halt(Interrupt::Failed(Failure::from(error))).await,
                }
            }
        }
    }

    /// Stops the handler because the answer under `key` does not read.
    pub(crate) async fn unreadable<T>(&self, key: &str, why: &str) -> T {
        let field = if self.modern {
            format!("inputResponses.{key}")
        } else {
            format!("the client's answer to `{key}`")
        };
        let error = ErrorObject::new(
            codes::INVALID_PARAMS,
            format!("Invalid params: {field}: {why}"),
        )
        .with_data(json!({ "field": field }));
        self.halt(Interrupt::Failed(Failure::from(error))).await
    }
}

/// The capabilities of `required` (dotted paths such as `elicitation.url`) the client did not
/// declare, as a `ClientCapabilities` object; `None` when all are declared.
pub(crate) fn missing_capabilities(required: &[&str], declared: &Value) -> Option<Value> {
    let mut missing = Map::new();
    for path in required {
        let mut at = declared;
        let present = path.split('.').all(|key| match at.get(key) {
            Some(v) if !v.is_null() => {
                at = v;
                true
            }
            _ => false,
        });
        // An empty `elicitation` object is form mode only (the 2025-11-25 back-compat rule).
        let present = present
            || (*path == "elicitation.form"
                && declared
                    .get("elicitation")
                    .and_then(Value::as_object)
                    .is_some_and(Map::is_empty));
        if !present {
            let mut node = &mut missing;
            for key in path.split('.') {
                let next = node.entry(key).or_insert_with(|| Value::Object(Map::new()));
                if !next.is_object() {
                    *next = Value::Object(Map::new());
                }
                node = next.as_object_mut().expect("object");
            }
        }
    }
    (!missing.is_empty()).then_some(Value::Object(missing))
}

/// Server-side request ids: unique per process and, with the random prefix, across nodes.
pub(crate) fn next_request_id(prefix: &str, counter: &AtomicU64) -> String {
    format!("{prefix}-{}", counter.fetch_add(1, Ordering::Relaxed))
}
