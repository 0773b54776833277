//! The echo server every phantom figure of the benchmark serves: one tool `echo {text}` → text,
//! one tool `progress {count}`, one tool `touch {uri}`, one task tool `job {text}` and one resource
//! template (`bench/src/bin/phantom_echo.rs` over HTTP, `bench/src/bin/phantom_lambda.rs` as a
//! Lambda function).

use phantom::prelude::*;

#[derive(Clone)]
pub(crate) struct Echo;

#[mcp_router(name = "phantom-echo", version = "0.1.0")]
impl Echo {
    /// Returns its input.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    /// Reports `count` progress notifications, then answers `done`.
    #[tool]
    async fn progress(&self, ctx: Ctx, count: u32) -> &'static str {
        for i in 1..=count {
            ctx.progress(f64::from(i), Some(f64::from(count)), None)
                .await;
        }
        "done"
    }

    /// Announces that `uri` was updated (the fan-out benchmark's trigger).
    #[tool]
    async fn touch(&self, notifier: Notifier, uri: String) -> Result<&'static str, Error> {
        notifier
            .notify_resource_updated(uri)
            .await
            .map_err(|e| Error::new(-32603, e.to_string()))?;
        Ok("touched")
    }

    /// Returns its input from a task (the task-creation benchmark): a client that declares the
    /// tasks extension gets a `CreateTaskResult`, and the task stays stored for its 10-minute TTL.
    #[task_handler(ttl = "10m")]
    async fn job(&self, text: String) -> String {
        text
    }

    /// A user's profile.
    #[resource("users://<id>/profile", mime_type = "text/plain")]
    async fn profile(&self, id: String) -> String {
        format!("profile of {id}")
    }
}
