use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// Shows a card.
    #[tool(ui = "cards:///card")]
    async fn show(&self) -> String {
        "card".into()
    }
}

fn main() {}
