//! Every supported prompt return type, sync and async, with optional arguments.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[prompt(title = "Review", description = "Review a text", icons = ["https://example.com/r.png"])]
    async fn reply(&self, text: String, tone: Option<String>) -> PromptReply {
        PromptReply::default()
            .user(format!("review {text}"))
            .assistant(tone.unwrap_or_else(|| "neutral".to_owned()))
    }

    #[prompt]
    async fn messages(&self) -> Vec<PromptMessage> {
        vec![PromptMessage::user("one"), PromptMessage::assistant("two")]
    }

    #[prompt(name = "plain")]
    fn plain_text(&self, topic: String) -> String {
        format!("tell me about {topic}")
    }

    #[prompt]
    async fn fallible(&self, n: u32) -> Result<String, Error> {
        if n == 0 {
            Err(Error::invalid_params("`n` must be positive"))
        } else {
            Ok(n.to_string())
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    c.get_prompt("reply", json!({"text": "x"}))
        .await
        .assert_prompt_message(0, "user", "review x")
        .assert_prompt_message(1, "assistant", "neutral");
    c.get_prompt("messages", json!({}))
        .await
        .assert_prompt_message(1, "assistant", "two");
    c.get_prompt("plain", json!({"topic": "rust"}))
        .await
        .assert_prompt_message(0, "user", "tell me about rust");
    c.get_prompt("fallible", json!({"n": 0}))
        .await
        .assert_error(-32602);
    c.get_prompt("fallible", json!({"n": 2}))
        .await
        .assert_prompt_message(0, "user", "2");
    c.get_prompt("reply", json!({})).await.assert_error(-32602);

    let list = c.list_prompts(None).await;
    let prompts = list.result()["prompts"].as_array().unwrap().clone();
    let reply = prompts.iter().find(|p| p["name"] == "reply").unwrap();
    assert_eq!(reply["title"], "Review");
    assert_eq!(reply["description"], "Review a text");
    assert_eq!(reply["icons"][0]["src"], "https://example.com/r.png");
    assert_eq!(reply["arguments"][0]["name"], "text");
    assert_eq!(reply["arguments"][0]["required"], true);
    assert_eq!(reply["arguments"][1]["required"], false);
}
