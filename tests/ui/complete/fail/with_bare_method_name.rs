use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[prompt]
    async fn review(&self, #[complete(with = "ids")] study: String) -> String {
        study
    }

    async fn ids(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        vec![value.to_owned()]
    }
}

fn main() {}
