//! Markers written with their full path (`#[phantom::tool]`) are recognised; other items of the
//! impl block are kept as they are.

use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct S;

#[phantom::mcp_router(name = "s", version = "1.0.0")]
impl S {
    const GREETING: &'static str = "hello";

    #[phantom::tool]
    async fn greet(&self, name: String) -> String {
        self.helper(&name)
    }

    fn helper(&self, name: &str) -> String {
        format!("{} {name}", Self::GREETING)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    c.call_tool("greet", json!({"name": "ada"}))
        .await
        .assert_tool_text("hello ada");
}
