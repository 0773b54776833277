use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[prompt]
    async fn review(&self, study: String) -> u64 {
        study.len() as u64
    }
}

fn main() {}
