//! MCP Apps: `_meta.ui` on tools and on `ui://` resources (list entries and contents) in both
//! eras, app-only tools, the advertised extension, and what a client without it gets.

use phantom::prelude::*;
use phantom::testing::{Client, Response};
use serde_json::{Value, json};

#[derive(Clone)]
struct Cards;

const VIEW: &str = "<!doctype html><div id=card></div>";

#[mcp_router(name = "cards", version = "1.0.0")]
impl Cards {
    /// Shows card `id`: its view renders it for clients that render apps; the others get the
    /// card in words.
    #[tool(ui = "ui://cards/card", visibility = ["model", "app"])]
    async fn show(&self, session: &Session, id: u64) -> String {
        if session.supports_apps() {
            format!("showing card {id}")
        } else {
            format!("card {id}: the ace of spades")
        }
    }

    /// Flips a card; only the view calls it.
    #[tool(ui = "ui://cards/card", visibility = ["app"])]
    async fn flip(&self, id: u64) -> String {
        format!("flipped card {id}")
    }

    /// A tool without a view.
    #[tool]
    async fn count(&self) -> String {
        "52".into()
    }

    /// The card's view.
    #[resource(
        "ui://cards/card",
        csp(connect = ["https://api.example.com"], resources = ["https://*.cdn.example.com"]),
        permissions = ["clipboard_write"],
        domain = "https://cards.example.com",
        prefers_border
    )]
    async fn card(&self) -> &'static str {
        VIEW
    }
}

fn ui_ext() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

async fn clients(caps: Value) -> [Client<Cards>; 2] {
    let legacy = Client::builder(Cards)
        .capabilities(caps.clone())
        .legacy()
        .await;
    let modern = Client::builder(Cards).capabilities(caps).modern();
    [legacy, modern]
}

fn tool<'a>(list: &'a Response, name: &str) -> &'a Value {
    list.result()["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no tool {name}: {}", list.json))
}

fn expected_ui() -> Value {
    json!({
        "csp": {
            "connectDomains": ["https://api.example.com"],
            "resourceDomains": ["https://*.cdn.example.com"],
        },
        "permissions": {"clipboardWrite": {}},
        "domain": "https://cards.example.com",
        "prefersBorder": true,
    })
}

#[tokio::test]
async fn tools_carry_their_view_and_visibility_in_both_eras() {
    for mut client in clients(ui_ext()).await {
        let list = client.list_tools(None).await;
        let show = tool(&list, "show");
        assert_eq!(
            show["_meta"]["ui"],
            json!({"resourceUri": "ui://cards/card", "visibility": ["model", "app"]}),
            "{show}"
        );
        assert_eq!(show["_meta"]["ui/resourceUri"], "ui://cards/card");
        // An app-only tool is listed (the host keeps it from the model) and can be called.
        let flip = tool(&list, "flip");
        assert_eq!(flip["_meta"]["ui"]["visibility"], json!(["app"]));
        client
            .call_tool("flip", json!({"id": 3}))
            .await
            .assert_tool_text("flipped card 3");
        assert!(tool(&list, "count").get("_meta").is_none());
    }
}

#[tokio::test]
async fn the_view_is_an_app_resource_with_its_policy_in_list_and_contents() {
    for mut client in clients(ui_ext()).await {
        let era = format!("{:?}", client.era());
        let list = client.list_resources(None).await;
        let entry = &list.result()["resources"][0];
        assert_eq!(entry["uri"], "ui://cards/card", "{era}: {entry}");
        assert_eq!(entry["mimeType"], "text/html;profile=mcp-app");
        assert_eq!(entry["_meta"]["ui"], expected_ui(), "{era}");
        let read = client.read_resource("ui://cards/card").await;
        let contents = &read.result()["contents"][0];
        assert_eq!(contents["mimeType"], "text/html;profile=mcp-app", "{era}");
        assert_eq!(contents["text"], VIEW);
        assert_eq!(contents["_meta"]["ui"], expected_ui(), "{era}");
    }
}

#[tokio::test]
async fn the_extension_is_advertised_in_both_eras() {
    let mut legacy = Client::builder(Cards).uninitialized();
    let mut modern = Client::modern(Cards);
    let init = legacy.initialize("2025-11-25").await;
    let discover = modern.request("server/discover", json!({})).await;
    for caps in [
        &init.result()["capabilities"],
        &discover.result()["capabilities"],
    ] {
        assert_eq!(
            caps["extensions"]["io.modelcontextprotocol/ui"],
            json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
            "{caps}"
        );
    }
}

#[tokio::test]
async fn a_client_is_asked_what_it_renders_in_each_era() {
    for mut client in clients(ui_ext()).await {
        client
            .call_tool("show", json!({"id": 1}))
            .await
            .assert_tool_text("showing card 1");
    }
    // Without the extension (or without the app MIME type) the same tool answers in words.
    let text_only =
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}});
    for caps in [json!({}), text_only] {
        for mut client in clients(caps.clone()).await {
            client
                .call_tool("show", json!({"id": 1}))
                .await
                .assert_tool_text("card 1: the ace of spades");
        }
    }
}
