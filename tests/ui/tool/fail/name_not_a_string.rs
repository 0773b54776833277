use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool(name = search)]
    async fn search(&self) -> String {
        String::new()
    }
}

fn main() {}
