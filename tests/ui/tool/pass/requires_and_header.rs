//! `#[tool(requires = [...])]` refuses calls from clients without the capability (-32021), and
//! `#[arg(header = "…")]` marks the argument's schema with `x-mcp-header`.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[tool(requires = ["sampling", "elicitation.url"])]
    async fn forecast(
        &self,
        #[arg(header = "Region", description = "where")] region: String,
        #[arg(rename = "maxDays", header = "Days")] max_days: Option<u8>,
        #[arg(header = "Metric")] metric: bool,
        note: Option<String>,
    ) -> String {
        format!("{region} {} {metric} {}", max_days.unwrap_or(1), note.unwrap_or_default())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    let tools = c.list_tools(None).await;
    let props = &tools.result()["tools"][0]["inputSchema"]["properties"];
    assert_eq!(props["region"]["x-mcp-header"], "Region");
    assert_eq!(props["region"]["description"], "where");
    assert_eq!(props["maxDays"]["x-mcp-header"], "Days");
    assert_eq!(props["metric"]["x-mcp-header"], "Metric");
    assert!(props["note"].get("x-mcp-header").is_none());

    let refused = c
        .call_tool("forecast", json!({"region": "eu", "metric": true}))
        .await;
    refused.assert_error(-32021);
    assert_eq!(
        refused.error()["data"]["requiredCapabilities"],
        json!({"sampling": {}, "elicitation": {"url": {}}})
    );

    let mut c = Client::uninitialized(S, phantom::Config::default())
        .capabilities(json!({"sampling": {}, "elicitation": {"url": {}}}));
    c.initialize("2025-11-25").await.result();
    c.call_tool("forecast", json!({"region": "eu", "maxDays": 3, "metric": false}))
        .await
        .assert_tool_text("eu 3 false ");
}
