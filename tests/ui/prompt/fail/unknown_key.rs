use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[prompt(titel = "Review")]
    async fn review(&self, study: String) -> String {
        study
    }
}

fn main() {}
