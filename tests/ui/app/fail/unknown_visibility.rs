use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// Flips a card.
    #[tool(ui = "ui://cards/card", visibility = ["user"])]
    async fn flip(&self) -> String {
        "flipped".into()
    }

    /// The card's view.
    #[resource("ui://cards/card")]
    async fn card(&self) -> String {
        "<p>card</p>".into()
    }
}

fn main() {}
