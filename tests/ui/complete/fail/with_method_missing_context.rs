use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[prompt]
    async fn review(&self, #[complete(with = "Self::ids")] study: String) -> String {
        study
    }

    // A completion function also takes the context: `cx: &CompleteContext<'_>`.
    async fn ids(&self, value: &str) -> Vec<String> {
        vec![value.to_owned()]
    }
}

fn main() {}
