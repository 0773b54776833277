use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn search(query: String) -> String {
        query
    }
}

fn main() {}
