use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// A bare task handler.
    #[task_handler]
    async fn plain(&self) -> String {
        "done".into()
    }

    /// Every task key, with tool keys beside them.
    #[task_handler(mode = "required", ttl = "10m", poll_interval = "1s", prepare, read_only, timeout = "60m")]
    async fn export(&self, format: String, ctx: Ctx) -> Result<String, Error> {
        let _ = ctx;
        Ok(format)
    }
}

fn main() {}
