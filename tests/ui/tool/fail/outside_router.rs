use phantom::prelude::*;

#[derive(Clone)]
struct S;

impl S {
    #[tool]
    async fn search(&self, query: String) -> String {
        query
    }
}

fn main() {}
