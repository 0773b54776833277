use phantom::prelude::*;

#[derive(Clone)]
struct S;

struct Query(String);

#[mcp_router]
impl S {
    #[tool]
    async fn search(&self, query: Query) -> String {
        query.0
    }
}

fn main() {}
