//! `&Session` and `&Request` parameters are filled from the request, not the arguments.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[tool]
    async fn whoami(&self, request: &Request, text: String, session: &Session) -> String {
        let role = request.header("x-role").unwrap_or("none");
        format!("{text} as {role}, modern: {}", session.is_modern())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await.header("x-role", "admin");
    c.call_tool("whoami", json!({"text": "hi"}))
        .await
        .assert_tool_text("hi as admin, modern: false");

    let tools = c.list_tools(None).await;
    let schema = &tools.result()["tools"][0]["inputSchema"];
    assert_eq!(schema["required"], json!(["text"]));
    assert_eq!(schema["properties"].as_object().unwrap().len(), 1);
}
