use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("vault:///secret", scopes = ["vault:read vault:write"])]
    async fn secret(&self) -> String {
        "s3cret".into()
    }
}

fn main() {}
