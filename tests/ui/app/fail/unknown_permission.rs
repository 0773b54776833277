use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// The card's view.
    #[resource("ui://cards/card", permissions = ["bluetooth"])]
    async fn card(&self) -> String {
        "<p>card</p>".into()
    }
}

fn main() {}
