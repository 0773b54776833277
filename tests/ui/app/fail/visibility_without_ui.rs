use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// Flips a card.
    #[tool(visibility = ["app"])]
    async fn flip(&self) -> String {
        "flipped".into()
    }
}

fn main() {}
