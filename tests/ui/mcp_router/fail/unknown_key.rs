use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", verison = "1.0.0")]
impl S {
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }
}

fn main() {}
