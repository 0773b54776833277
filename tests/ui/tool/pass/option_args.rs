//! `Option<T>` arguments are optional in the schema and `None` when left out.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[tool]
    async fn greet(&self, name: String, greeting: Option<String>, times: Option<u8>) -> String {
        let greeting = greeting.unwrap_or_else(|| "hello".to_owned());
        vec![format!("{greeting} {name}"); usize::from(times.unwrap_or(1))].join(", ")
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    c.call_tool("greet", json!({"name": "ada"}))
        .await
        .assert_tool_text("hello ada");
    c.call_tool(
        "greet",
        json!({"name": "ada", "greeting": "hi", "times": 2}),
    )
    .await
    .assert_tool_text("hi ada, hi ada");
    c.call_tool("greet", json!({"name": "ada", "greeting": null}))
        .await
        .assert_tool_text("hello ada");

    let tools = c.list_tools(None).await;
    let schema = &tools.result()["tools"][0]["inputSchema"];
    assert_eq!(schema["required"], json!(["name"]));
}
