use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn search(&self, query: String) -> String {
        query
    }

    #[tool(name = "search")]
    async fn find(&self, query: String) -> String {
        query
    }
}

fn main() {}
