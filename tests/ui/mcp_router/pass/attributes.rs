//! `#[mcp_router]` keys reach `serverInfo` and `instructions`.

use phantom::prelude::*;
use phantom::testing::Client;

#[derive(Clone)]
struct S;

#[mcp_router(
    name = "catalogue",
    version = "2.1.0",
    title = "The catalogue",
    instructions = "Search first.",
    icons = ["https://example.com/icon.png"],
    website_url = "https://example.com"
)]
impl S {}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::uninitialized(S, phantom::Config::default());
    let init = c.initialize("2025-11-25").await;
    let info = &init.result()["serverInfo"];
    assert_eq!(info["name"], "catalogue");
    assert_eq!(info["version"], "2.1.0");
    assert_eq!(info["title"], "The catalogue");
    assert_eq!(info["icons"][0]["src"], "https://example.com/icon.png");
    assert_eq!(info["websiteUrl"], "https://example.com");
    assert_eq!(init.result()["instructions"], "Search first.");
}
