use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[prompt]
    async fn review(&self, #[complete] study: String) -> String {
        study
    }
}

fn main() {}
