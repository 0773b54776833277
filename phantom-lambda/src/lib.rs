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
}

impl Default for LambdaConfig {
    fn default() -> Self {
        Self {
            http: HttpConfig::default().with_body_limit(PAYLOAD_LIMIT),
            path: "/mcp".to_owned(),
            response: ResponseKind::Streaming,
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
    /// - `PHANTOM_RESPONSE`: `streaming` (the default) or `buffered`.
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
        Ok(config)
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
pub fn service<S: Server>(dispatcher: Dispatcher<S>, config: &LambdaConfig) -> Handler {
    Handler {
        endpoint: phantom::http::service_dispatcher(dispatcher, config.http.clone()),
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
    config: std::sync::Arc<LambdaConfig>,
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
        Box::pin(tower::ServiceExt::oneshot(self.endpoint.clone(), req))
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
        ])
        .unwrap();
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
