use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// A page.
    #[resource("cards:///page", csp(connect = ["https://api.example.com"]))]
    async fn page(&self) -> String {
        "<p>page</p>".into()
    }
}

fn main() {}
