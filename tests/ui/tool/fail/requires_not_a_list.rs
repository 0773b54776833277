use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool(requires = "sampling")]
    async fn summarize(&self) -> String {
        "summary".to_owned()
    }
}

fn main() {}
