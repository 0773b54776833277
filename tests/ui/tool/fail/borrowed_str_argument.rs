use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn search(&self, query: &str) -> String {
        query.to_owned()
    }
}

fn main() {}
