use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool(mode = "required", ttl = "10m")]
    async fn export(&self) -> String {
        "done".into()
    }
}

fn main() {}
