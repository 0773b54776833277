//! [`Timeout`]: a time limit per tool and per method.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::json;

use super::{Answer, Call, Middleware, Next};
use crate::error::Error;
use crate::kernel::BoxFuture;
use crate::protocol::Method;
use crate::tools::human;

/// Cuts a request off at its time limit: a tool's own ([`tool`](Self::tool)), else its method's
/// ([`method`](Self::method)), else every request's ([`all`](Self::all)). The handler is dropped —
/// its [`Ctx::cancelled`](crate::Ctx::cancelled) resolves for a clone it handed off — and the
/// client gets, for a tool, the tool error ``Tool `<name>` timed out after <limit>`` (as
/// `#[tool(timeout = "30s")]` answers), for another method a `-32603` naming the method and the limit.
/// Unlike `#[tool(timeout = "30s")]`, the time a legacy handler waits for the client's input counts.
///
/// ```
/// use std::time::Duration;
/// use phantom::middleware::Timeout;
/// use phantom::protocol::Method;
///
/// let limits = Timeout::new()
///     .all(Duration::from_secs(30))
///     .method(Method::ResourcesRead, Duration::from_secs(5))
///     .tool("export", Duration::from_secs(120));
/// let config = phantom::Config::default().with_middleware(limits);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Timeout {
    all: Option<Duration>,
    methods: Vec<(Method, Duration)>,
    tools: HashMap<String, Duration>,
}

impl Timeout {
    /// A `Timeout` that cuts nothing off until a limit is set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The limit of every request without a narrower one.
    #[must_use]
    pub fn all(mut self, limit: Duration) -> Self {
        self.all = Some(limit);
        self
    }

    /// The limit of one method's requests.
    #[must_use]
    pub fn method(mut self, method: Method, limit: Duration) -> Self {
        self.methods.push((method, limit));
        self
    }

    /// The limit of one tool's calls.
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>, limit: Duration) -> Self {
        self.tools.insert(name.into(), limit);
        self
    }

    fn limit(&self, call: &Call<'_>) -> Option<Duration> {
        let tool = (call.method == Method::ToolsCall)
            .then(|| call.name.and_then(|n| self.tools.get(n)))
            .flatten();
        tool.copied()
            .or_else(|| {
                self.methods
                    .iter()
                    .find(|(m, _)| *m == call.method)
                    .map(|(_, d)| *d)
            })
            .or(self.all)
    }
}

impl Middleware for Timeout {
    fn on_request<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        let Some(limit) = self.limit(&call) else {
            return next.run(call);
        };
        Box::pin(async move {
            let (method, name) = (call.method, call.name);
            let answered = tokio::time::timeout(limit, next.run(call)).await;
            if answered.is_err() {
                crate::telemetry::metrics::refusal("timed_out");
            }
            match answered {
                Ok(answer) => answer,
                Err(_) if method == Method::ToolsCall => {
                    let text = format!(
                        "Tool `{}` timed out after {}",
                        name.unwrap_or_default(),
                        human(limit)
                    );
                    Answer::result(
                        json!({"content": [{"type": "text", "text": text}], "isError": true}),
                    )
                }
                Err(_) => Answer::error(
                    Error::internal(format!(
                        "Internal error: `{}` timed out after {}",
                        method.as_str(),
                        human(limit)
                    ))
                    .with_data(json!({"timeoutMs": limit.as_millis() as u64})),
                ),
            }
        })
    }
}
