use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[prompt(scopes = ["vault:read", "vault:read"])]
    async fn reveal(&self, id: String) -> String {
        id
    }
}

fn main() {}
