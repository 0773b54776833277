use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[prompt]
    async fn review(&self, #[complete(with = "Self::ids")] study: String) -> String {
        study
    }

    async fn ids(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<&'static str> {
        let _ = value;
        vec!["1"]
    }
}

fn main() {}
