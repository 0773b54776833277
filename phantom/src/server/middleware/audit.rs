//! [`Audit`]: an access log of feature requests as `tracing` events.

use std::time::Instant;

use super::{Answer, Call, Middleware, Next};
use crate::kernel::BoxFuture;

/// An access log: one `tracing` event per feature request (target `phantom::audit`, level INFO)
/// with who (`principal`, `session`), what (`method`, `name`), the outcome (`ok`, `tool_error`
/// or `error` with its `code`) and `duration_ms`. Argument values are left out unless
/// [`with_arguments`](Self::with_arguments) asks for them.
///
/// ```
/// let config = phantom::Config::default().with_middleware(phantom::middleware::Audit::new());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Audit {
    arguments: bool,
}

impl Audit {
    /// Logs without argument values.
    pub fn new() -> Self {
        Self::default()
    }

    /// Logs the arguments of `tools/call` and `prompts/get` too (as JSON text).
    #[must_use]
    pub fn with_arguments(mut self) -> Self {
        self.arguments = true;
        self
    }
}

impl Middleware for Audit {
    fn on_request<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let started = Instant::now();
            let arguments = self
                .arguments
                .then(|| call.arguments().map(|a| a.to_string()))
                .flatten();
            let (method, name, session) = (call.method, call.name, call.session);
            let answer = next.run(call).await;
            let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
            let (outcome, code) = match answer.as_error() {
                Some(e) => ("error", Some(e.code)),
                None if answer.is_tool_error() => ("tool_error", None),
                None => ("ok", None),
            };
            tracing::info!(
                target: "phantom::audit",
                principal = session.principal.as_deref().unwrap_or("-"),
                session = session.id.as_deref().unwrap_or("-"),
                method = method.as_str(),
                name = name.unwrap_or("-"),
                outcome,
                code,
                duration_ms,
                arguments = arguments.as_deref(),
                "request"
            );
            answer
        })
    }
}
