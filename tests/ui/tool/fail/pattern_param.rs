use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn sum(&self, (a, b): (u32, u32)) -> String {
        (a + b).to_string()
    }
}

fn main() {}
