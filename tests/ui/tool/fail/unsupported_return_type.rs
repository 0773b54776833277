use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn count(&self) -> u64 {
        42
    }
}

fn main() {}
