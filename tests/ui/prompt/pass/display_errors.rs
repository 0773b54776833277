//! A prompt (and a completion function) may fail with any `Display` error, `String` included; a
//! `phantom::Error` keeps its code.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[prompt]
    async fn string(
        &self,
        #[complete(with = "Self::topics")] topic: String,
    ) -> Result<String, String> {
        if topic.is_empty() {
            Err("`topic` must not be empty".into())
        } else {
            Ok(topic)
        }
    }

    #[prompt]
    fn coded(&self) -> Result<PromptReply, Error> {
        Err(Error::invalid_params("not today"))
    }

    async fn topics(&self, value: &str, _cx: &CompleteContext<'_>) -> Result<Vec<String>, String> {
        if value == "?" {
            Err("no topics for `?`".into())
        } else {
            Ok(vec![format!("{value}s")])
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::modern(S);
    c.get_prompt("string", json!({"topic": "owl"}))
        .await
        .assert_prompt_message(0, "user", "owl");
    let failed = c.get_prompt("string", json!({"topic": ""})).await;
    failed.assert_error(-32603);
    assert_eq!(failed.error()["message"], "`topic` must not be empty");
    c.get_prompt("coded", json!({})).await.assert_error(-32602);

    let done = c.complete_prompt("string", "topic", "owl").await;
    assert_eq!(done.result()["completion"]["values"], json!(["owls"]));
    let failed = c.complete_prompt("string", "topic", "?").await;
    failed.assert_error(-32603);
    assert_eq!(failed.error()["message"], "no topics for `?`");
}
