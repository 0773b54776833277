use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool(meta(owner = team))]
    async fn search(&self) -> String {
        String::new()
    }
}

fn main() {}
