use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn search(&mut self, query: String) -> String {
        query
    }
}

fn main() {}
