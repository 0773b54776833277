use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router(tool_timeout = "0s")]
impl S {
    #[tool]
    async fn summarize(&self) -> String {
        "summary".to_owned()
    }
}

fn main() {}
