//! A stdio MCP server for the client tests (`tests/client/`): echo, a tool that reports progress
//! and logs, one that asks the user, and one that exits the process mid-call. With `--chain`,
//! the router and middleware chain of `chain.rs` instead.

mod chain;

use phantom::prelude::*;
use serde_json::Value;

#[derive(Clone)]
struct Desk;

#[mcp_router(name = "desk", version = "1.0.0")]
impl Desk {
    /// Echo.
    #[tool]
    async fn echo(&self, text: String) -> String {
        format!("echo: {text}")
    }

    /// Reports progress and logs, then answers.
    #[tool]
    async fn count(&self, ctx: Ctx) -> String {
        for i in 1..=3 {
            ctx.progress(f64::from(i), Some(3.0), None).await;
        }
        ctx.log(LogLevel::Info, "counted").await;
        "3".into()
    }

    /// Asks for a name.
    #[tool]
    async fn greet(&self, ctx: Ctx) -> String {
        let form = Form::new().required("name", Field::string());
        let answer: Elicitation<Value> = ctx.elicit("name", "Your name?", form).await;
        match answer {
            Elicitation::Accept(v) => format!("Hello, {}!", v["name"].as_str().unwrap_or("?")),
            _ => "no name".into(),
        }
    }

    /// Ends the server's process before answering.
    #[tool]
    async fn crash(&self) -> String {
        std::process::exit(3)
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    if std::env::args().any(|a| a == "--chain") {
        return phantom::stdio::run_with_config(chain::Chained::default(), chain::config()).await;
    }
    phantom::stdio::run(Desk).await
}
