//! A phantom MCP server as an AWS Lambda function, on [`lambda_http`]: Function URLs and API
//! Gateway (REST and HTTP APIs), with buffered or streamed responses.
//!
//! ```no_run
//! use phantom::prelude::*;
//!
//! #[derive(Clone)]
//! struct Hello;
//!
//! #[mcp_router(name = "hello", version = "1.0.0")]
//! impl Hello {
//!     /// Greets.
//!     #[tool]
//!     async fn greet(&self, name: String) -> String {
//!         format!("hello {name}")
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), phantom_lambda::Error> {
//!     // PHANTOM_ALLOWED_HOSTS, PHANTOM_ALLOWED_ORIGINS, PHANTOM_PATH, PHANTOM_RESPONSE
//!     // and PHANTOM_STATE_KEY, each optional.
//!     let lambda = phantom_lambda::LambdaConfig::from_env()?;
//!     let config = phantom_lambda::config_from_env(phantom::Config::default())?;
//!     let dispatcher = phantom::dispatch::Dispatcher::with_config(Hello, config);
//!     phantom_lambda::run(dispatcher, lambda).await
//! }
//! ```
//!
//! Each invocation is one HTTP request answered by phantom's own endpoint
//! ([`phantom::http::service_dispatcher`]): the same `Host` and `Origin` checks, the same JSON
//! or SSE answers. What has to outlive an invocation — legacy sessions, SSE events, list
//! changes, tasks — lives in the dispatcher's backend: give it a shared one
//! (`phantom_redis::backend`) so that every instance of the function sees it.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use phantom::Server;
use phantom::dispatch::Dispatcher;
use phantom::http::HttpConfig;

pub use lambda_http::Error;

/// The largest request Lambda takes in a synchronous invocation (6 MB, the event's envelope
/// included), and so the default body limit of [`LambdaConfig`].
pub const PAYLOAD_LIMIT: usize = 6 * 1024 * 1024;

/// How the function's answers reach the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ResponseKind {
    /// Response streaming (`InvokeMode: RESPONSE_STREAM` on the Function URL): an SSE answer
    /// reaches the client event by event. The default.
    #[default]
    Streaming,
    /// The whole answer in one payload (API Gateway, or a Function URL in `BUFFERED` mode): an
    /// SSE answer is sent once its stream has ended. Legacy GET streams never end, so they
    /// are refused with 405 in this mode.
    Buffered,
}

/// Settings of the function: phantom's [`HttpConfig`], the path the MCP endpoint answers at
/// and the [`ResponseKind`].
#[derive(Debug, Clone)]
pub struct LambdaConfig {
    http: HttpConfig,
    path: String,
    response: ResponseKind,
    timeout: Duration,
    task_margin: Duration,
}

/// Lambda's default function timeout: what [`LambdaConfig`] takes for an invocation whose
/// deadline is not given (an emulator's) unless `AWS_LAMBDA_FUNCTION_TIMEOUT` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long before an invocation's deadline the task handlers still running are stopped, by
/// default: the time to store them `failed` and end the answer.
pub const DEFAULT_TASK_MARGIN: Duration = Duration::from_secs(1);

impl Default for LambdaConfig {
    fn default() -> Self {
        Self {
            http: HttpConfig::default().with_body_limit(PAYLOAD_LIMIT),
            path: "/mcp".to_owned(),
            response: ResponseKind::Streaming,
            timeout: DEFAULT_TIMEOUT,
            task_margin: DEFAULT_TASK_MARGIN,
        }
    }
}

/// A setting read from the environment that is not valid; the message names the variable.
#[derive(Debug)]
pub struct EnvError(String);

impl std::fmt::Display for EnvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EnvError {}

/// A comma-separated list, without empty items.
fn list(text: Option<String>) -> Option<Vec<String>> {
    let text = text?;
    Some(
        text.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

impl LambdaConfig {
    /// The defaults: the endpoint at `/mcp`, response streaming, the body limit
    /// [`PAYLOAD_LIMIT`], and `Host` and `Origin` checked as by [`HttpConfig::default`]
    /// (loopback only: set the function's own host with [`LambdaConfig::with_http`] or
    /// `PHANTOM_ALLOWED_HOSTS`).
    pub fn new() -> Self {
        Self::default()
    }

    /// The defaults, changed by the environment:
    ///
    /// - `PHANTOM_ALLOWED_HOSTS`: the `Host` values allowed, comma-separated (the Function
    ///   URL's `<id>.lambda-url.<region>.on.aws`, an API's domain), or `*` for any;
    /// - `PHANTOM_ALLOWED_ORIGINS`: the browser origins allowed, comma-separated;
    /// - `PHANTOM_PATH`: the path the endpoint answers at (and below), `/mcp` by default; `/`
    ///   for every path;
    /// - `PHANTOM_RESPONSE`: `streaming` (the default) or `buffered`;
    /// - `AWS_LAMBDA_FUNCTION_TIMEOUT`: the function's timeout in seconds, used only when an
    ///   invocation comes without a deadline ahead (an emulator's: `cargo lambda watch` gives
    ///   one in 1970); Lambda itself always gives one.
    pub fn from_env() -> Result<Self, EnvError> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// [`LambdaConfig::from_env`] with the variables read by `var`.
    fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, EnvError> {
        let mut config = Self::new();
        if let Some(hosts) = list(var("PHANTOM_ALLOWED_HOSTS")) {
            if hosts.is_empty() {
                return Err(EnvError(
                    "PHANTOM_ALLOWED_HOSTS is empty: name the hosts (comma-separated), or `*` for any".into(),
                ));
            }
            config.http = if hosts.iter().any(|h| h == "*") {
                config.http.with_any_host()
            } else {
                config.http.with_allowed_hosts(hosts)
            };
        }
        if let Some(origins) = list(var("PHANTOM_ALLOWED_ORIGINS")) {
            config.http = config.http.with_allowed_origins(origins);
        }
        if let Some(path) = var("PHANTOM_PATH") {
            if !path.starts_with('/') {
                return Err(EnvError(format!(
                    "PHANTOM_PATH must start with `/` (as `/mcp`), not `{path}`"
                )));
            }
            config = config.with_path(path);
        }
        if let Some(mode) = var("PHANTOM_RESPONSE") {
            config.response = match mode.as_str() {
                "streaming" => ResponseKind::Streaming,
                "buffered" => ResponseKind::Buffered,
                other => {
                    return Err(EnvError(format!(
                        "PHANTOM_RESPONSE must be `streaming` or `buffered`, not `{other}`"
                    )));
                }
            };
        }
        if let Some(seconds) = var("AWS_LAMBDA_FUNCTION_TIMEOUT") {
            match seconds.trim().parse::<u64>() {
                Ok(seconds) if seconds > 0 => {
                    config.timeout = Duration::from_secs(seconds);
                }
                _ => {
                    return Err(EnvError(format!(
                        "AWS_LAMBDA_FUNCTION_TIMEOUT must be a whole number of seconds above 0, not `{seconds}`"
                    )));
                }
            }
        }
        Ok(config)
    }

    /// The function's timeout, for an invocation whose deadline is not ahead of it (an
    /// emulator's); [`DEFAULT_TIMEOUT`] unless set.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long before the invocation's deadline the task handlers still running are stopped
    /// and stored `failed` ([`DEFAULT_TASK_MARGIN`] unless set).
    #[must_use]
    pub fn with_task_margin(mut self, margin: Duration) -> Self {
        self.task_margin = margin;
        self
    }

    /// Replaces phantom's HTTP settings (keep [`PAYLOAD_LIMIT`] or less as the body limit:
    /// Lambda refuses larger requests before the function sees them).
    #[must_use]
    pub fn with_http(mut self, http: HttpConfig) -> Self {
        self.http = http;
        self
    }

    /// The path the endpoint answers at, and below (`/mcp` by default; `/` for every path);
    /// other paths get 404. API Gateway's REST APIs put the stage first (`/prod/mcp`) unless
    /// `AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH` is set.
    #[must_use]
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        let mut path = path.into();
        while path.len() > 1 && path.ends_with('/') {
            path.pop();
        }
        self.path = path;
        self
    }

    /// Sets how answers are sent.
    #[must_use]
    pub fn with_response(mut self, response: ResponseKind) -> Self {
        self.response = response;
        self
    }

    /// Phantom's HTTP settings.
    pub fn http(&self) -> &HttpConfig {
        &self.http
    }

    /// The path the endpoint answers at.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// How answers are sent.
    pub fn response(&self) -> ResponseKind {
        self.response
    }

    /// The function's timeout when an invocation's deadline is not given.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// How long before the deadline running task handlers are stopped.
    pub fn task_margin(&self) -> Duration {
        self.task_margin
    }

    /// When an invocation received now (`at`) stops waiting for task handlers: its deadline
    /// (`deadline`, from the Lambda context) less the margin, or the timeout from now when the
    /// deadline is not ahead.
    fn hold_until(
        &self,
        deadline: Option<SystemTime>,
        at: tokio::time::Instant,
    ) -> tokio::time::Instant {
        let left = deadline
            .and_then(|d| d.duration_since(SystemTime::now()).ok())
            .filter(|left| !left.is_zero())
            .unwrap_or(self.timeout);
        at + left.saturating_sub(self.task_margin)
    }

    /// Whether `path` is the endpoint's or below it.
    fn serves(&self, path: &str) -> bool {
        self.path == "/"
            || path
                .strip_prefix(self.path.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }
}

/// `config` with the state key of `PHANTOM_STATE_KEY` (32 bytes in base64), if set: every
/// instance of the function seals 2026-07-28 `requestState` with it, so that a round sealed by
/// one instance opens on the next ([`phantom::Config::with_state_key`]).
pub fn config_from_env(config: phantom::Config) -> Result<phantom::Config, EnvError> {
    match std::env::var("PHANTOM_STATE_KEY") {
        Ok(key) => {
            let key = phantom::input::StateKey::from_base64(&key)
                .map_err(|e| EnvError(format!("PHANTOM_STATE_KEY: {e}")))?;
            Ok(config.with_state_key(key))
        }
        Err(_) => Ok(config),
    }
}

/// The function's handler as a tower service over [`lambda_http::Request`]: phantom's endpoint
/// at [`LambdaConfig::path`], 404 elsewhere. [`run`] runs it; use it yourself to add layers.
///
/// An invocation that leaves a task's handler running (a task-augmented `tools/call`) is held
/// open until no handler runs in this instance, or until its deadline less
/// [`LambdaConfig::task_margin`], when those still running are stored `failed`, saying the
/// invocation ended ([`Dispatcher::fail_tasks`]): Lambda freezes an instance between
/// invocations, so a handler left running would advance only while the instance serves others,
/// and die with it. In streaming mode a JSON answer becomes one SSE event (the client accepts
/// both), so that the client reads it at once while the stream stays open; in buffered mode the
/// answer is sent once the handlers ended.
pub fn service<S: Server>(dispatcher: Dispatcher<S>, config: &LambdaConfig) -> Handler {
    Handler {
        endpoint: phantom::http::service_dispatcher(dispatcher.clone(), config.http.clone()),
        tasks: std::sync::Arc::new(dispatcher),
        config: std::sync::Arc::new(config.clone()),
    }
}

/// Runs the function until the Lambda runtime stops it: one invocation at a time, each an
/// HTTP request answered as [`LambdaConfig::response`] says.
///
/// The instance's `requestState` key is first compared with the other instances' on the
/// backend ([`Dispatcher::check_state_key`]): an instance whose key shares none with theirs
/// fails its start, with a message naming `PHANTOM_STATE_KEY`, rather than fail every input
/// round that lands on it.
pub async fn run<S: Server>(dispatcher: Dispatcher<S>, config: LambdaConfig) -> Result<(), Error> {
    dispatcher.check_state_key().await?;
    let handler = service(dispatcher, &config);
    match config.response {
        ResponseKind::Streaming => lambda_http::run_with_streaming_response(handler).await,
        ResponseKind::Buffered => lambda_http::run(handler).await,
    }
}

/// The service [`service`] makes.
#[derive(Clone)]
pub struct Handler {
    endpoint: axum::Router,
    tasks: std::sync::Arc<dyn Tasks>,
    config: std::sync::Arc<LambdaConfig>,
}

/// What [`Handler`] asks of its dispatcher about the tasks running in this instance.
trait Tasks: Send + Sync {
    fn runs(&self) -> bool;
    fn finished(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
    fn fail(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// The reason stored with a task whose handler was still running at the invocation's end.
const INVOCATION_ENDED: &str = "the Lambda invocation running this task ended before the task finished (the function's timeout); start it again, or run it on a long-lived server";

impl<S: Server> Tasks for Dispatcher<S> {
    fn runs(&self) -> bool {
        self.runs_tasks()
    }

    fn finished(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(self.tasks_finished())
    }

    fn fail(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(self.fail_tasks(INVOCATION_ENDED))
    }
}

/// Waits until no task handler runs in this instance, or until `until`; then stops and fails
/// those still running.
async fn settle(tasks: std::sync::Arc<dyn Tasks>, until: tokio::time::Instant) {
    if tokio::time::timeout_at(until, tasks.finished())
        .await
        .is_err()
    {
        tasks.fail().await;
    }
}

/// The answer of a [`Handler`]: phantom's response, its body JSON or an SSE stream.
pub type Response = http::Response<axum::body::Body>;

impl tower::Service<lambda_http::Request> for Handler {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: lambda_http::Request) -> Self::Future {
        if !self.config.serves(req.uri().path()) {
            return Box::pin(std::future::ready(Ok(status(http::StatusCode::NOT_FOUND))));
        }
        if self.config.response == ResponseKind::Buffered && req.method() == http::Method::GET {
            // A GET stream stays open for as long as the session: a buffered invocation would
            // never answer. 405 is the transport's way to say "no stream here".
            let mut resp = status(http::StatusCode::METHOD_NOT_ALLOWED);
            resp.headers_mut().insert(
                http::header::ALLOW,
                http::HeaderValue::from_static("POST, DELETE"),
            );
            return Box::pin(std::future::ready(Ok(resp)));
        }
        let until = self.config.hold_until(
            lambda_http::RequestExt::lambda_context_ref(&req).map(|c| c.deadline()),
            tokio::time::Instant::now(),
        );
        let takes_sse = self.config.response == ResponseKind::Streaming
            && req
                .headers()
                .get_all(http::header::ACCEPT)
                .iter()
                .any(|v| v.to_str().is_ok_and(|v| v.contains("text/event-stream")));
        let tasks = std::sync::Arc::clone(&self.tasks);
        let answer = tower::ServiceExt::oneshot(self.endpoint.clone(), req);
        Box::pin(async move {
            let resp = answer.await?;
            if !tasks.runs() {
                return Ok(resp);
            }
            Ok(held(resp, takes_sse, Box::pin(settle(tasks, until))).await)
        })
    }
}

/// `resp` whose body ends only once `hold` completed; a JSON answer becomes one SSE `message`
/// event when `sse`.
async fn held(
    resp: Response,
    sse: bool,
    hold: Pin<Box<dyn Future<Output = ()> + Send>>,
) -> Response {
    let (mut parts, body) = resp.into_parts();
    let json = parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let body = if sse && json {
        // phantom's own JSON answer, already whole.
        let bytes = axum::body::to_bytes(body, usize::MAX)
            .await
            .unwrap_or_default();
        let mut event = String::from("event: message\n");
        for line in String::from_utf8_lossy(&bytes).lines() {
            event.push_str("data: ");
            event.push_str(line);
            event.push('\n');
        }
        event.push('\n');
        parts.headers.insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("text/event-stream"),
        );
        parts.headers.insert(
            http::header::CACHE_CONTROL,
            http::HeaderValue::from_static("no-cache"),
        );
        parts.headers.remove(http::header::CONTENT_LENGTH);
        axum::body::Body::from(event)
    } else {
        parts.headers.remove(http::header::CONTENT_LENGTH);
        body
    };
    Response::from_parts(
        parts,
        axum::body::Body::new(Held {
            body,
            hold: Some(hold),
        }),
    )
}

/// A body that ends once its inner body ended and `hold` completed.
struct Held {
    body: axum::body::Body,
    hold: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl http_body::Body for Held {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Ready(None) => {}
            other => return other,
        }
        if let Some(hold) = this.hold.as_mut() {
            if hold.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            this.hold = None;
        }
        Poll::Ready(None)
    }

    fn is_end_stream(&self) -> bool {
        self.hold.is_none() && self.body.is_end_stream()
    }
}

/// An empty answer with `code`.
fn status(code: http::StatusCode) -> Response {
    let mut resp = Response::new(axum::body::Body::empty());
    *resp.status_mut() = code;
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Result<LambdaConfig, EnvError> {
        LambdaConfig::from_vars(|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn defaults_are_lambdas() {
        let config = from(&[]).unwrap();
        assert_eq!(config.path(), "/mcp");
        assert_eq!(config.response(), ResponseKind::Streaming);
        assert_eq!(config.http().body_limit(), PAYLOAD_LIMIT);
        assert!(
            config
                .http()
                .allowed_hosts()
                .is_some_and(|h| h.iter().any(|h| h == "localhost"))
        );
    }

    #[test]
    fn the_environment_sets_hosts_origins_path_and_mode() {
        let config = from(&[
            (
                "PHANTOM_ALLOWED_HOSTS",
                "abc.lambda-url.eu-west-1.on.aws, api.example.com",
            ),
            ("PHANTOM_ALLOWED_ORIGINS", "https://app.example.com"),
            ("PHANTOM_PATH", "/prod/mcp/"),
            ("PHANTOM_RESPONSE", "buffered"),
            ("AWS_LAMBDA_FUNCTION_TIMEOUT", "5"),
        ])
        .unwrap();
        assert_eq!(config.timeout(), Duration::from_secs(5));
        assert_eq!(
            config.http().allowed_hosts().map(<[String]>::to_vec),
            Some(vec![
                "abc.lambda-url.eu-west-1.on.aws".to_owned(),
                "api.example.com".to_owned()
            ])
        );
        assert_eq!(
            config.http().allowed_origins(),
            ["https://app.example.com".to_owned()]
        );
        assert_eq!(config.path(), "/prod/mcp");
        assert_eq!(config.response(), ResponseKind::Buffered);
        let any = from(&[("PHANTOM_ALLOWED_HOSTS", "*")]).unwrap();
        assert!(any.http().allowed_hosts().is_none());
    }

    #[test]
    fn a_bad_variable_is_named() {
        for (vars, name) in [
            (
                &[("AWS_LAMBDA_FUNCTION_TIMEOUT", "3s")][..],
                "AWS_LAMBDA_FUNCTION_TIMEOUT",
            ),
            (
                &[("PHANTOM_ALLOWED_HOSTS", " , ")][..],
                "PHANTOM_ALLOWED_HOSTS",
            ),
            (&[("PHANTOM_PATH", "mcp")][..], "PHANTOM_PATH"),
            (&[("PHANTOM_RESPONSE", "stream")][..], "PHANTOM_RESPONSE"),
        ] {
            let message = from(vars).unwrap_err().to_string();
            assert!(message.starts_with(name), "{message}");
        }
    }

    #[test]
    fn the_path_and_below_are_served() {
        let mcp = LambdaConfig::new();
        assert!(mcp.serves("/mcp") && mcp.serves("/mcp/") && mcp.serves("/mcp/x"));
        assert!(!mcp.serves("/mcpx") && !mcp.serves("/") && !mcp.serves("/prod/mcp"));
        let root = LambdaConfig::new().with_path("/");
        assert!(root.serves("/") && root.serves("/anything"));
    }

    #[derive(Clone)]
    struct Hello;

    #[phantom::mcp_router(name = "hello", version = "1.0.0")]
    impl Hello {
        /// Greets.
        #[phantom::tool]
        async fn greet(&self, name: String) -> String {
            format!("hello {name}")
        }
    }

    #[derive(Clone)]
    struct Jobs;

    #[phantom::mcp_router(name = "jobs", version = "1.0.0")]
    impl Jobs {
        /// Sleeps `ms`.
        #[phantom::task_handler(ttl = "10m")]
        async fn sleep(&self, ms: u64) -> String {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            format!("slept {ms} ms")
        }
    }

    /// A 2026-07-28 request of the tasks extension; its answer's content type and body, and
    /// how long the body took to end.
    async fn send(
        handler: &Handler,
        method: &str,
        name: &str,
        params: &str,
    ) -> (String, String, Duration) {
        use http_body_util::BodyExt as _;
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}}}}}}}}"#
        );
        let req = http::Request::post("/mcp")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .header("mcp-name", name);
        let req = req.body(lambda_http::Body::Text(body)).unwrap();
        let began = tokio::time::Instant::now();
        let resp = tower::ServiceExt::oneshot(handler.clone(), req)
            .await
            .unwrap();
        let kind = resp
            .headers()
            .get(http::header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        (
            kind,
            String::from_utf8_lossy(&body).into_owned(),
            began.elapsed(),
        )
    }

    /// A task of `sleep` for `ms`.
    async fn sleep(handler: &Handler, ms: u64) -> (String, String, Duration) {
        let params = format!(r#""name":"sleep","arguments":{{"ms":{ms}}}"#);
        send(handler, "tools/call", "sleep", &params).await
    }

    /// `tasks/get` of the task whose creation answered `created`.
    async fn get_task(handler: &Handler, created: &str) -> (String, String, Duration) {
        let id = task_id(created);
        send(handler, "tasks/get", &id, &format!(r#""taskId":"{id}""#)).await
    }

    /// The task id in an answer (JSON or one SSE event).
    fn task_id(body: &str) -> String {
        let json = body
            .trim()
            .trim_start_matches("event: message")
            .trim()
            .trim_start_matches("data: ");
        let value: serde_json::Value =
            serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {body}"));
        value["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("{body}"))
            .to_owned()
    }

    #[tokio::test]
    async fn an_invocation_is_held_until_its_task_ends_or_its_deadline() {
        let config = LambdaConfig::new()
            .with_timeout(Duration::from_millis(900))
            .with_task_margin(Duration::from_millis(300));
        let handler = service(Dispatcher::new(Jobs), &config);
        // A task that ends within the deadline: the answer (one SSE event, read at once by the
        // client) ends with it, and it completed.
        let (kind, body, took) = sleep(&handler, 200).await;
        assert_eq!(kind, "text/event-stream", "{body}");
        assert!(body.starts_with("event: message\ndata: {"), "{body}");
        assert!(
            took >= Duration::from_millis(200) && took < Duration::from_millis(600),
            "{took:?}"
        );
        let (kind, got, took) = get_task(&handler, &body).await;
        assert!(
            kind.starts_with("application/json") && took < Duration::from_millis(200),
            "{kind} {took:?}"
        );
        assert!(
            got.contains(r#""status":"completed""#) && got.contains("slept 200 ms"),
            "{got}"
        );
        // One that outlives it: the answer ends at the deadline less the margin, and the task is
        // failed, saying the invocation ended.
        let (_, body, took) = sleep(&handler, 60_000).await;
        assert!(
            took >= Duration::from_millis(550) && took < Duration::from_millis(900),
            "{took:?}"
        );
        let (_, got, _) = get_task(&handler, &body).await;
        assert!(got.contains(r#""status":"failed""#), "{got}");
        assert!(
            got.contains(&format!(r#""statusMessage":"{INVOCATION_ENDED}""#)),
            "{got}"
        );
    }

    async fn answer(config: &LambdaConfig, req: http::Request<&'static str>) -> (u16, String) {
        use http_body_util::BodyExt as _;
        let handler = service(Dispatcher::new(Hello), config);
        let req = req.map(|b| lambda_http::Body::Text(b.to_owned()));
        let resp = tower::ServiceExt::oneshot(handler, req).await.unwrap();
        let status = resp.status().as_u16();
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    fn post(path: &str, host: &str) -> http::Request<&'static str> {
        http::Request::post(path)
            .header("host", host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "greet")
            .body(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"lambda"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#)
            .unwrap()
    }

    #[tokio::test]
    async fn the_endpoint_answers_at_its_path_for_its_hosts() {
        let config = LambdaConfig::new().with_http(
            LambdaConfig::new()
                .http()
                .clone()
                .with_allowed_hosts(["abc.lambda-url.eu-west-1.on.aws"]),
        );
        let (status, body) = answer(&config, post("/mcp", "abc.lambda-url.eu-west-1.on.aws")).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("hello lambda"), "{body}");
        let (status, _) = answer(&config, post("/other", "abc.lambda-url.eu-west-1.on.aws")).await;
        assert_eq!(status, 404);
        let (status, body) = answer(&config, post("/mcp", "localhost")).await;
        assert_eq!(status, 403, "{body}");
    }

    #[tokio::test]
    async fn buffered_mode_refuses_the_get_stream() {
        let get = || {
            http::Request::get("/mcp")
                .header("host", "localhost")
                .header("accept", "text/event-stream")
                .body("")
                .unwrap()
        };
        let buffered = LambdaConfig::new().with_response(ResponseKind::Buffered);
        let (status, body) = answer(&buffered, get()).await;
        assert_eq!((status, body.as_str()), (405, ""));
        // Streaming hands it to phantom, whose answer says why.
        let (_, body) = answer(&LambdaConfig::new(), get()).await;
        assert!(!body.is_empty());
    }
}
