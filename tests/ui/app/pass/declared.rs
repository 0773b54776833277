use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// Shows a card.
    #[tool(ui = "ui://cards/card", visibility = ["model", "app"])]
    async fn show(&self, session: &Session) -> String {
        if session.supports_apps() { "card shown".into() } else { "a card".into() }
    }

    /// Flips a card, from the view only.
    #[tool(ui = "ui://cards/card", visibility = ["app"])]
    async fn flip(&self) -> String {
        "flipped".into()
    }

    /// The card's view.
    #[resource(
        "ui://cards/card",
        csp(
            connect = ["https://api.example.com"],
            resources = ["https://*.cdn.example.com"],
            frames = ["https://player.example.com"],
            base_uri = ["https://example.com"],
        ),
        permissions = ["camera", "microphone", "geolocation", "clipboard_write"],
        domain = "https://cards.example.com",
        prefers_border,
    )]
    async fn card(&self) -> &'static str {
        include_str!("card.html")
    }
}

fn main() {}
