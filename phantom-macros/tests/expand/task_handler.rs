//! A task handler (required, with a time to live and a poll interval) and the `cancel_task`
//! callback, which the generated `Server` impl lists among its overrides.

use phantom::prelude::*;
use phantom::{protocol::ErrorObject, tasks::Task};

#[derive(Clone)]
struct Exports;

#[mcp_router(name = "exports", version = "1.0.0")]
impl Exports {
    /// Exports everything.
    #[task_handler(mode = "required", ttl = "10m", poll_interval = "1s")]
    async fn export(&self, format: String, ctx: Ctx) -> Result<String, Error> {
        let _ = ctx;
        Ok(format)
    }

    async fn cancel_task(&self, task: Task, session: &Session) -> Result<(), ErrorObject> {
        let _ = (task, session);
        Ok(())
    }
}

fn main() {}
