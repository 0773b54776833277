use phantom::prelude::*;

#[derive(Clone)]
struct S;

impl S {
    #[prompt]
    async fn review(&self, study: String) -> String {
        study
    }
}

fn main() {}
