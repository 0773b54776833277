//! The server of the soak (`phantom-bench soak`): a little of every feature both eras use, at
//! `http://$ADDR/mcp` (default `127.0.0.1:8960`), with phantom's defaults.
//!
//! - tools `echo {text}`, `touch {uri}` (announces that the resource was updated), `ask` (two
//!   input requests: MRTR rounds in 2026-07-28, `elicitation/create` on a 2025-11-25 session);
//! - the task tool `job {ms}` (sleeps `ms`, then answers), kept for 10 s once created;
//! - the resource template `soak://items/<id>`, which sessions subscribe to and listens follow;
//! - the prompt `greeting {name}`.
//!
//! Unlike `examples/everything` (whose tasks are kept for 10 minutes), every piece of state a
//! request leaves behind here lives shorter than the soak's measuring window, so the server's
//! memory can reach a steady state within the first minute.

use phantom::prelude::*;
use serde_json::Value;

#[derive(Clone)]
struct Soak;

#[mcp_router(name = "phantom-soak", version = "0.1.0")]
impl Soak {
    /// Returns its input.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    /// Announces that `uri` was updated.
    #[tool]
    async fn touch(&self, notifier: Notifier, uri: String) -> Result<&'static str, Error> {
        notifier
            .notify_resource_updated(uri)
            .await
            .map_err(|e| Error::new(-32603, e.to_string()))?;
        Ok("touched")
    }

    /// Asks a name (key `name`), then a colour (key `color`).
    #[tool]
    async fn ask(&self, ctx: Ctx) -> String {
        let name = ask_one(&ctx, "name", "Your name?").await;
        let color = ask_one(&ctx, "color", "Your favourite colour?").await;
        format!("{name} likes {color}")
    }

    /// Sleeps `ms`, then answers: a task when the client declares the tasks extension.
    #[task_handler(ttl = "10s", poll_interval = "20ms")]
    async fn job(&self, ms: u64) -> String {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        format!("slept {ms} ms")
    }

    /// One item.
    #[resource("soak://items/<id>", mime_type = "text/plain")]
    async fn item(&self, id: u64) -> String {
        format!("item {id}")
    }

    /// Greets someone.
    #[prompt]
    async fn greeting(&self, name: String) -> PromptReply {
        PromptReply::default().user(format!("Hello, {name}!"))
    }
}

/// The `value` field of an accepted form under `key`; empty when declined.
async fn ask_one(ctx: &Ctx, key: &str, message: &str) -> String {
    let form = Form::new().required("value", Field::string());
    ctx.elicit::<Value>(key, message, form)
        .await
        .accepted()
        .and_then(|v| v.get("value").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:8960".into());
    eprintln!("phantom-soak listening on http://{addr}/mcp");
    phantom::serve(Soak, addr).await
}
