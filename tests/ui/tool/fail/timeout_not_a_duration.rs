use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool(timeout = "soon")]
    async fn summarize(&self) -> String {
        "summary".to_owned()
    }
}

fn main() {}
