use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool(name = "find studies")]
    async fn find(&self, query: String) -> String {
        query
    }
}

fn main() {}
