use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn search<T: Into<String>>(&self, query: String) -> String {
        query
    }
}

fn main() {}
