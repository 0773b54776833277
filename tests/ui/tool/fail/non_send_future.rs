use phantom::prelude::*;

#[derive(Clone)]
struct S;

use std::rc::Rc;

async fn tick() {}

#[mcp_router]
impl S {
    #[tool]
    async fn count(&self) -> String {
        let shared = Rc::new(1);
        tick().await;
        shared.to_string()
    }
}

fn main() {}
