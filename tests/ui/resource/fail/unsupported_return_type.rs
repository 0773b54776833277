use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("myapp:///count")]
    async fn count(&self) -> u64 {
        42
    }
}

fn main() {}
