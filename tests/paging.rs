//! [`Paging`]: a task that asks the client for input, whatever the client can do.

use phantom::prelude::*;
use serde_json::Value;

/// A router with one `#[task_handler]`, `page`: it says what it does, then asks the responder
/// for the severity (a form under the key `severity`) and answers what they did with it.
#[derive(Clone, Debug, Default)]
pub struct Paging;

#[mcp_router(name = "paging", version = "1.0.0")]
impl Paging {
    /// Says what it does, then asks the responder for the severity (a form).
    #[task_handler(ttl = "10m")]
    async fn page(&self, ctx: Ctx) -> String {
        ctx.status("asking the responder").await;
        let form = Form::new().required("severity", Field::string());
        let answer = ctx
            .elicit::<Value>("severity", "How bad is it?", form)
            .await;
        format!("paged: {}", answer.action())
    }
}
