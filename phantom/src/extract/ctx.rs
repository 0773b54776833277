//! [`Ctx`]: a handler's line to the client while it works.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use std::sync::Arc;

use serde::de::DeserializeOwned;

use super::{Context, FromContext};
use crate::input::{
    Elicit, ElicitUrl, Elicitation, Form, Input, InputKind, Inputs, Root, Roots, Sample, Sampled,
    Shared,
};
use crate::kernel::Outbound;
use crate::protocol::{LogLevel, Method};

/// The client side of the request a handler serves (what a handler takes; [`Context`](crate::extract::Context)
/// is what extractors read it from): progress and log messages sent before the
/// result (over HTTP the response becomes an SSE stream; on stdio they are lines), and input the
/// handler asks of the client (elicitation, sampling, roots; see [`Ctx::input`]). Take it as a
/// parameter of a tool, prompt or resource handler: `ctx: Ctx`.
///
/// ```
/// use phantom::prelude::*;
///
/// #[derive(Clone)]
/// struct Jobs;
///
/// #[mcp_router(name = "jobs", version = "1.0.0")]
/// impl Jobs {
///     /// Counts to `n`, reporting progress.
///     #[tool]
///     async fn count(&self, ctx: Ctx, n: u32) -> String {
///         for i in 1..=n {
///             ctx.progress(f64::from(i), Some(f64::from(n)), None).await;
///         }
///         ctx.log(LogLevel::Info, "counted").await;
///         format!("counted to {n}")
///     }
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Ctx {
    outbound: Outbound,
    progress: Option<Arc<Progress>>,
    log_level: Option<LogLevel>,
    exchange: Arc<Shared>,
}

/// A request's progress token and the last progress sent for it, shared by a `Ctx`'s clones so
/// that the values they send keep increasing, as the protocol requires.
#[derive(Debug)]
struct Progress {
    token: Box<RawValue>,
    /// The last `progress` and `total` sent.
    last: std::sync::Mutex<Option<(f64, Option<f64>)>>,
}

impl Progress {
    /// Sends `notifications/progress`: `progress` when it is above the last value sent, else
    /// the next value above that one (a status message: the work has not moved on); `total`,
    /// when `None`, is the last one sent.
    fn send(
        &self,
        outbound: &Outbound,
        progress: Option<f64>,
        total: Option<f64>,
        message: Option<&str>,
    ) -> bool {
        use crate::kernel::Locked as _;
        // Locked while sending, so clones of the `Ctx` send their values in order.
        let mut last = self.last.locked();
        let progress = match (*last, progress) {
            (None, progress) => progress.unwrap_or(0.0),
            (Some((before, _)), Some(progress)) if progress > before => progress,
            (Some((before, _)), _) => before.next_up(),
        };
        let total = total.or_else(|| last.and_then(|(_, total)| total));
        *last = Some((progress, total));
        let params = ProgressParams {
            progress_token: &self.token,
            progress,
            total,
            message,
        };
        outbound.notify(Method::Progress, &params)
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProgressParams<'a> {
    progress_token: &'a RawValue,
    progress: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

impl Ctx {
    /// Reports progress to whoever follows the request. One call serves a handler that runs
    /// inline or as a task (a `#[task_handler]`), as [`status`](Self::status) does:
    ///
    /// | the request | `progress(p, total, message)` | `status(message)` |
    /// |---|---|---|
    /// | inline, with a `_meta.progressToken` | `notifications/progress` with `p`, `total` and `message` | `notifications/progress` with `message`, the last `total` and a `progress` just above the last one sent (`0` first) |
    /// | inline, without a token | nothing | nothing |
    /// | a task | the `message`, if any, becomes the task's `statusMessage` (the tasks extension has no numbers) | the task's `statusMessage` |
    ///
    /// A task's `statusMessage` is what `tasks/get` shows, and a change of it reaches the
    /// listens that follow the task (`notifications/tasks`). `progress` should grow with every
    /// call; the protocol requires each notification's value to be above the last, so a value
    /// that is not goes as the next one above the last sent.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(line) = &self.progress {
            line.send(&self.outbound, Some(progress), total, message);
        }
        if let Some(message) = message
            && self.exchange.task_id().is_some()
        {
            self.exchange.status(message.to_owned()).await;
        }
    }

    /// Sends a log message (`notifications/message`) when the client asked for this level or a
    /// lower one: with `logging/setLevel` (2025-11-25 and earlier) or the request's
    /// `_meta["io.modelcontextprotocol/logLevel"]` (2026-07-28). A client that asked for nothing
    /// gets nothing.
    pub async fn log(&self, level: LogLevel, data: impl Serialize) {
        if self.log_level.is_none_or(|min| level < min) {
            return;
        }
        let mut params = Map::new();
        params.insert(
            "level".into(),
            serde_json::to_value(level).unwrap_or_default(),
        );
        params.insert(
            "data".into(),
            serde_json::to_value(data).unwrap_or(Value::Null),
        );
        self.outbound.notify(Method::LogMessage, &params);
    }

    /// Asks the client for input, one request or several at once (a tuple), and returns the
    /// answers in the same order: `ctx.input((Elicit::new(..), Roots::new("roots"))).await` is a
    /// `(Elicitation<T>, Vec<Root>)`. The `phantom::testing` module shows a whole handler.
    ///
    /// On a 2025-11-25 session phantom sends the requests on the request's own stream and waits
    /// for the answers. On a 2026-07-28 request the first round ends the request with
    /// `input_required` (this call never returns, and the handler is dropped); the client's
    /// retry runs the handler again from the top, and this call returns the answers. So a
    /// handler must do nothing before its input requests that it cannot safely do twice.
    ///
    /// The request ends with an error instead (and the handler is dropped) when the client did
    /// not declare the capability an input needs (`-32021`, its `data.requiredCapabilities`
    /// naming what is missing; check first with [`supports`](Self::supports)), when an answer
    /// does not read (`-32602`), or when the client answers with an error. A handler running as
    /// a task (`#[task_handler]`) asks through its task (`input_required`, answered by
    /// `tasks/update`); when it cannot ask, the task is `failed` at once with that error, and
    /// its `statusMessage` says what was asked.
    pub async fn input<I: Inputs>(&self, inputs: I) -> I::Output {
        let requests = inputs.requests();
        let keys: Vec<String> = requests.iter().map(|r| r.key().to_owned()).collect();
        let answers = self.exchange.ask(requests).await;
        match I::read(answers) {
            Ok(output) => output,
            Err((i, why)) => {
                let key = keys.get(i).map_or("", String::as_str);
                self.exchange.unreadable(key, &why).await
            }
        }
    }

    /// Requires the user to complete a URL flow (sign-in, payment) before the request can go on.
    /// On a 2025-11-25 session the request ends at once with `-32042`
    /// (URLElicitationRequiredError) listing the elicitation, and the client retries the request
    /// once the user is done; in 2026-07-28 it is an input request like any other
    /// (`input_required`), whose answer this returns. Either way the handler runs again on the
    /// retry, so call this only while the flow is still needed (check first).
    pub async fn require_url(&self, request: ElicitUrl) -> Elicitation<()> {
        let key = request.key().to_owned();
        let answer = self.exchange.require_url(request.request()).await;
        match <ElicitUrl as Input>::read(answer) {
            Ok(output) => output,
            Err(why) => self.exchange.unreadable(&key, &why).await,
        }
    }

    /// Asks the user to fill in `form`, under `key`; the accepted content reads as `T`.
    pub async fn elicit<T: DeserializeOwned + Send>(
        &self,
        key: &str,
        message: &str,
        form: Form,
    ) -> Elicitation<T> {
        self.input(Elicit::<T>::new(key, message, form)).await
    }

    /// Asks the client's LLM for a completion.
    pub async fn sample(&self, request: Sample) -> Sampled {
        self.input(request).await
    }

    /// Asks the client for its roots, under `key`.
    pub async fn roots(&self, key: &str) -> Vec<Root> {
        self.input(Roots::new(key)).await
    }

    /// Pings the client and waits for its answer (a 2025-11-25 session: a `ping` request on the
    /// request's stream). `true` once it answers; `false` where no client can be pinged mid-request
    /// (2026-07-28, which has no server-to-client requests; stateless mode; completions) or when
    /// it answers with an error. Time spent waiting does not count against a tool's time limit.
    pub async fn ping(&self) -> bool {
        self.exchange.ping().await
    }

    /// Ends the request's stream now, while the handler goes on (SEP-1699 polling, 2025-11-25
    /// over HTTP): the client reconnects with `GET` and `Last-Event-ID` and receives the messages
    /// that follow and the result. For long handlers behind proxies that cut idle connections.
    /// Elsewhere (2026-07-28, stdio, JSON responses) it does nothing.
    pub fn close_stream(&self) {
        self.outbound.close_stream();
    }

    /// Resolves when the request is cancelled or abandoned: `notifications/cancelled`
    /// (2025-11-25), a closed response (2026-07-28), the tool's time limit, or a 2026-07-28
    /// round that ends in `input_required`; for a `#[task_handler]` running as a task,
    /// `tasks/cancel` or the task's TTL. The handler's own future is dropped then anyway;
    /// this is for work it hands to a task of its own with a clone of the `Ctx`.
    pub async fn cancelled(&self) {
        self.exchange.cancelled().await;
    }

    /// Where a `#[task_handler(prepare)]` tool's task begins: what the handler did before ran
    /// inline in the client's request (its input asked in 2026-07-28 MRTR rounds); from here on
    /// it runs as a task, and the client gets the `CreateTaskResult`. The handler runs again from
    /// the start in the task, where its earlier questions are answered with the answers already
    /// given, so it should do nothing irreversible before this point. Anywhere else (a client
    /// without the tasks extension, a task already running, a tool without `prepare`) it
    /// returns at once.
    pub async fn task(&self) {
        self.exchange.escalate().await;
    }

    /// Says what the handler is doing, to whoever follows the request: the `statusMessage` of
    /// the task it runs as (`#[task_handler]`; `tasks/get` shows it, and the listens that
    /// follow the task hear `notifications/tasks`), or, inline, a `notifications/progress`
    /// carrying `message` when the request has a `_meta.progressToken` (its `progress` just
    /// above the last one sent, so the work does not look as if it moved on). The table at
    /// [`progress`](Self::progress) shows both calls in both modes. `true` when the message
    /// reached someone; `false` inline without a progress token, or for a task that ended.
    pub async fn status(&self, message: impl Into<String>) -> bool {
        let message = message.into();
        if self.exchange.task_id().is_some() {
            return self.exchange.status(message).await;
        }
        self.progress
            .as_ref()
            .is_some_and(|line| line.send(&self.outbound, None, None, Some(&message)))
    }

    /// The id of the task this handler runs as (`#[task_handler]`): the `taskId` the client got
    /// from `tools/call` and names in `tasks/get` and `tasks/cancel`, for linking the app's own
    /// records to the task (the [`#[task_handler]`](crate::task_handler) docs show clean-up on
    /// `tasks/cancel` with it). `None` where the handler does not run as a task: a plain tool, a
    /// `#[task_handler]` run inline for a client without the tasks extension, and the inline
    /// phase of `prepare` before [`task`](Self::task).
    pub fn task_id(&self) -> Option<&str> {
        self.exchange.task_id()
    }

    /// Stops the handler and answers its request with HTTP 403 and an `insufficient_scope`
    /// challenge naming `scopes` (JSON-RPC `-32001` with `data.requiredScopes`), for a decision
    /// only the handler can make; a tool's fixed needs belong in `#[tool(scopes = […])]`. The
    /// client may ask its authorization server for the scopes and call again. Never returns.
    ///
    /// ```
    /// # use phantom::prelude::*;
    /// # #[derive(Clone)] struct Notes;
    /// # #[mcp_router] impl Notes {
    /// /// Delete a note; another author's note needs `notes:admin`.
    /// #[tool(scopes = ["notes:write"])]
    /// async fn delete(&self, session: &Session, ctx: Ctx, author: String) -> String {
    ///     let me = session.principal.as_deref();
    ///     let admin = session.auth.as_ref().is_some_and(|a| a.has_scope("notes:admin"));
    ///     if me != Some(author.as_str()) && !admin {
    ///         return ctx.insufficient_scope(["notes:admin"]).await;
    ///     }
    ///     "deleted".to_owned()
    /// }
    /// # }
    /// ```
    pub async fn insufficient_scope<T, I, S>(&self, scopes: I) -> T
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let scopes: Vec<String> = scopes.into_iter().map(|s| s.as_ref().to_owned()).collect();
        let scopes: Vec<&str> = scopes.iter().map(String::as_str).collect();
        let failure = crate::auth::insufficient_scope(&scopes, "this call");
        self.exchange
            .halt(crate::input::Interrupt::Failed(failure))
            .await
    }

    /// Whether the request was cancelled or abandoned (see [`cancelled`](Self::cancelled)).
    pub fn is_cancelled(&self) -> bool {
        self.exchange.is_cancelled()
    }

    /// Whether the client declared the capability an input of `kind` needs.
    pub fn supports(&self, kind: InputKind) -> bool {
        self.exchange.supports(kind)
    }

    /// Whether the client asked for log messages of this level.
    pub fn logs(&self, level: LogLevel) -> bool {
        self.log_level.is_some_and(|min| level >= min)
    }
}

impl<'a> FromContext<'a> for Ctx {
    fn from_context(cx: &Context<'a>) -> Result<Self, String> {
        Ok(Self {
            outbound: cx.outbound.clone(),
            progress: cx.progress_token.map(|token| {
                Arc::new(Progress {
                    token: token.to_owned(),
                    last: std::sync::Mutex::new(None),
                })
            }),
            log_level: cx.session.log_level,
            exchange: cx.exchange.shared(),
        })
    }
}
