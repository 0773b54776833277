use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// Shows a card.
    #[tool(ui = "ui://cards/card")]
    async fn show(&self) -> String {
        "card".into()
    }

    /// Another view.
    #[resource("ui://cards/other")]
    async fn other(&self) -> String {
        "<p>other</p>".into()
    }
}

fn main() {}
