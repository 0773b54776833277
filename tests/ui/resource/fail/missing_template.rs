use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource]
    async fn summary(&self) -> String {
        String::new()
    }
}

fn main() {}
