use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    #[prompt]
    async fn search(&self, query: String) -> String {
        query
    }
}

fn main() {}
