//! Without keys, the name and version come from the package; several handler kinds and plain
//! helpers live in one block.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct S {
    prefix: String,
}

#[mcp_router]
impl S {
    #[tool]
    async fn echo(&self, text: String) -> String {
        self.prefixed(&text)
    }

    #[prompt]
    async fn ask(&self, text: String) -> String {
        self.prefixed(&text)
    }

    #[resource("s:///prefix")]
    async fn prefix(&self) -> String {
        self.prefix.clone()
    }

    fn prefixed(&self, text: &str) -> String {
        format!("{}{text}", self.prefix)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = S {
        prefix: "> ".to_owned(),
    };
    let mut c = Client::uninitialized(server.clone(), phantom::Config::default());
    let init = c.initialize("2025-11-25").await;
    assert!(
        !init.result()["serverInfo"]["name"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    let mut c = Client::legacy(server).await;
    c.call_tool("echo", json!({"text": "hi"}))
        .await
        .assert_tool_text("> hi");
    c.get_prompt("ask", json!({"text": "hi"}))
        .await
        .assert_prompt_message(0, "user", "> hi");
    c.read_resource("s:///prefix")
        .await
        .assert_resource_text("> ");
}
