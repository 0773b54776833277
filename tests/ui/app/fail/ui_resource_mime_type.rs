use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// The card's view.
    #[resource("ui://cards/card", mime_type = "text/html")]
    async fn card(&self) -> String {
        "<p>card</p>".into()
    }
}

fn main() {}
