use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// The card's view.
    #[resource("ui://cards/card", csp(conect = ["https://api.example.com"]))]
    async fn card(&self) -> String {
        "<p>card</p>".into()
    }
}

fn main() {}
