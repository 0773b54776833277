//! `name`, `title`, `description`, annotations, `icons` and `meta` reach `tools/list`; the doc
//! comment is the default description.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    /// Search the catalogue.
    #[tool(
        name = "catalogue.search",
        title = "Search",
        read_only,
        open_world = false,
        icons = ["https://example.com/search.png"],
        meta(owner = "team-a", weight = 3, beta = true)
    )]
    async fn search(&self, query: String) -> String {
        query
    }

    /// Ignored: `description` wins.
    #[tool(description = "Delete an entry", destructive, idempotent = true)]
    async fn delete(&self, id: u64) -> String {
        id.to_string()
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    c.call_tool("catalogue.search", json!({"query": "q"}))
        .await
        .assert_tool_text("q");
    let tools = c.list_tools(None).await;
    let tools = tools.result()["tools"].as_array().unwrap().clone();
    let search = tools
        .iter()
        .find(|t| t["name"] == "catalogue.search")
        .unwrap();
    assert_eq!(search["title"], "Search");
    assert_eq!(search["description"], "Search the catalogue.");
    assert_eq!(search["annotations"]["readOnlyHint"], true);
    assert_eq!(search["annotations"]["openWorldHint"], false);
    assert_eq!(search["icons"][0]["src"], "https://example.com/search.png");
    assert_eq!(search["_meta"]["owner"], "team-a");
    assert_eq!(search["_meta"]["weight"], 3);
    assert_eq!(search["_meta"]["beta"], true);
    let delete = tools.iter().find(|t| t["name"] == "delete").unwrap();
    assert_eq!(delete["description"], "Delete an entry");
    assert_eq!(delete["annotations"]["destructiveHint"], true);
    assert_eq!(delete["annotations"]["idempotentHint"], true);
}
