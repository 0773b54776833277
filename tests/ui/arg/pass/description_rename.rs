//! `#[arg(description, rename)]` on tool and prompt arguments.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[tool]
    async fn search(
        &self,
        #[arg(description = "words to look for")] query: String,
        #[arg(rename = "maxResults", description = "at most this many")] max_results: Option<u32>,
    ) -> String {
        format!("{query} {}", max_results.unwrap_or(10))
    }

    #[prompt]
    async fn review(
        &self,
        #[arg(rename = "studyId", description = "the study")] study_id: String,
    ) -> String {
        study_id
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    c.call_tool("search", json!({"query": "q", "maxResults": 3}))
        .await
        .assert_tool_text("q 3");
    let tools = c.list_tools(None).await;
    let props = &tools.result()["tools"][0]["inputSchema"]["properties"];
    assert_eq!(props["query"]["description"], "words to look for");
    assert_eq!(props["maxResults"]["description"], "at most this many");
    assert!(props.get("max_results").is_none());

    c.get_prompt("review", json!({"studyId": "7"}))
        .await
        .assert_prompt_message(0, "user", "7");
    let prompts = c.list_prompts(None).await;
    let arg = &prompts.result()["prompts"][0]["arguments"][0];
    assert_eq!(arg["name"], "studyId");
    assert_eq!(arg["description"], "the study");
}
