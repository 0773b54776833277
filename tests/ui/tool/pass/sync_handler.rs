//! A handler without `async` is called inline.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[tool]
    fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }

    #[tool]
    fn check(&self, ok: bool) -> Result<&'static str, String> {
        if ok {
            Ok("fine")
        } else {
            Err("not fine".to_owned())
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    c.call_tool("add", json!({"a": 2, "b": 40}))
        .await
        .assert_tool_text("42");
    c.call_tool("check", json!({"ok": true}))
        .await
        .assert_tool_text("fine");
    c.call_tool("check", json!({"ok": false}))
        .await
        .assert_tool_error("not fine");
}
