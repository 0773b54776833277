use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool(read_only = "yes")]
    async fn search(&self) -> String {
        String::new()
    }
}

fn main() {}
