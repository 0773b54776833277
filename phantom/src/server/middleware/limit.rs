//! [`SizeLimit`]: a tool result over a size becomes a tool error.

use serde_json::json;

use super::{Answer, Call, Middleware, Next};
use crate::kernel::BoxFuture;

/// Keeps tool results under `max` bytes of JSON: a larger one is replaced by a tool error
/// (`isError: true`) that says how large it was and what the limit is, so the model sees why.
///
/// ```
/// // Results over 1 MiB become tool errors.
/// let config = phantom::Config::default().with_middleware(phantom::middleware::SizeLimit::new(1 << 20));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SizeLimit {
    max: usize,
}

impl SizeLimit {
    /// At most `max` bytes per tool result.
    pub fn new(max: usize) -> Self {
        Self { max }
    }
}

impl Middleware for SizeLimit {
    fn on_call_tool<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let name = call.name.unwrap_or_default();
            let answer = next.run(call).await;
            let size = answer.size();
            if !answer.is_result() || size <= self.max {
                return answer;
            }
            crate::telemetry::metrics::refusal("too_large");
            let text = format!(
                "The result of tool `{name}` is {size} bytes, over this server's limit of {} bytes",
                self.max
            );
            Answer::result(json!({"content": [{"type": "text", "text": text}], "isError": true}))
        })
    }
}
