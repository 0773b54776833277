use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[prompt]
    async fn review(&self, study: String) -> String {
        study
    }

    #[prompt(name = "review")]
    async fn review_again(&self, study: String) -> String {
        study
    }
}

fn main() {}
