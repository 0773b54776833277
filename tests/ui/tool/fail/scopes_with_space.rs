use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool(scopes = ["notes:read notes:write"])]
    async fn add(&self, text: String) -> String {
        text
    }
}

fn main() {}
