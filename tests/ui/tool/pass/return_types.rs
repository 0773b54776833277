//! Every supported tool return type, called through the in-process client.

use phantom::prelude::*;
use phantom::testing::Client;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

#[derive(Clone)]
struct S;

#[derive(Serialize, JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[tool]
    async fn owned(&self) -> String {
        "owned".to_owned()
    }

    #[tool]
    async fn borrowed(&self) -> &'static str {
        "borrowed"
    }

    #[tool]
    async fn unit(&self) {}

    #[tool]
    async fn explicit_unit(&self) -> () {}

    #[tool]
    async fn json(&self) -> Json<Point> {
        Json(Point { x: 1, y: 2 })
    }

    #[tool]
    async fn content(&self) -> Content {
        Content::text("content")
    }

    #[tool]
    async fn contents(&self) -> Vec<Content> {
        vec![Content::text("a"), Content::text("b")]
    }

    #[tool]
    async fn result(&self) -> ToolResult {
        ToolResult::text("result")
    }

    #[tool]
    async fn fallible(&self, fail: bool) -> Result<String, String> {
        if fail {
            Err("it failed".to_owned())
        } else {
            Ok("it worked".to_owned())
        }
    }

    #[tool]
    async fn fallible_json(&self) -> Result<Json<Point>, Error> {
        Ok(Json(Point { x: 3, y: 4 }))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    c.call_tool("owned", json!({}))
        .await
        .assert_tool_text("owned");
    c.call_tool("borrowed", json!({}))
        .await
        .assert_tool_text("borrowed");
    c.call_tool("unit", json!({})).await.assert_tool_text("");
    c.call_tool("explicit_unit", json!({}))
        .await
        .assert_tool_text("");
    c.call_tool("json", json!({}))
        .await
        .assert_tool_structured(&json!({"x": 1, "y": 2}));
    c.call_tool("content", json!({}))
        .await
        .assert_tool_text("content");
    c.call_tool("contents", json!({}))
        .await
        .assert_tool_text("ab");
    c.call_tool("result", json!({}))
        .await
        .assert_tool_text("result");
    c.call_tool("fallible", json!({"fail": false}))
        .await
        .assert_tool_text("it worked");
    c.call_tool("fallible", json!({"fail": true}))
        .await
        .assert_tool_error("it failed");
    c.call_tool("fallible_json", json!({}))
        .await
        .assert_tool_structured(&json!({"x": 3, "y": 4}));

    let tools = c.list_tools(None).await;
    let tools = tools.result()["tools"].as_array().unwrap().clone();
    let json_tool = tools.iter().find(|t| t["name"] == "json").unwrap();
    assert_eq!(json_tool["outputSchema"]["type"], "object");
    let owned_tool = tools.iter().find(|t| t["name"] == "owned").unwrap();
    assert!(owned_tool.get("outputSchema").is_none());
}
