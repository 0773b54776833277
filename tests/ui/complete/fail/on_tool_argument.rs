use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn search(&self, #[complete(with = "Self::words")] query: String) -> String {
        query
    }

    async fn words(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        vec![value.to_owned()]
    }
}

fn main() {}
