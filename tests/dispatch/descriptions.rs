//! Descriptions taken from doc comments: the hard wraps of each paragraph joined, as rustdoc
//! renders them, with paragraph breaks, list items and code blocks kept.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::Value;

#[derive(Clone)]
struct Documented;

#[mcp_router(name = "documented", version = "1.0.0")]
impl Documented {
    /// Searches the notes for a word and returns the ones that mention it, newest first, for the
    /// model to follow it.
    ///
    /// Modes:
    /// - `exact`: the word as written, which is
    ///   the default
    /// - `stem`: any form of the word
    ///
    /// ```text
    /// search(word: "plan")
    ///   -> ["2024-05-01 plan"]
    /// ```
    #[tool]
    async fn search(&self, word: String) -> String {
        word
    }

    /// Reviews a study before it is
    /// published.
    #[prompt]
    async fn review(&self) -> String {
        "Review it.".into()
    }

    /// One study, by the numeric id the
    /// studies list gives.
    #[resource("lab:///studies/<id>")]
    async fn study(&self, id: u64) -> String {
        id.to_string()
    }
}

/// The `description` of the only entry of a list.
fn only_description(list: &Value, key: &str) -> Value {
    list[key][0]["description"].clone()
}

#[tokio::test]
async fn doc_comments_are_listed_with_their_paragraphs_on_one_line() {
    let mut client = Client::legacy(Documented).await;
    let tools = client.list_tools(None).await;
    assert_eq!(
        only_description(tools.result(), "tools"),
        "Searches the notes for a word and returns the ones that mention it, newest first, for the model to follow it.\n\
         \n\
         Modes:\n\
         - `exact`: the word as written, which is the default\n\
         - `stem`: any form of the word\n\
         \n\
         ```text\n\
         search(word: \"plan\")\n  \
         -> [\"2024-05-01 plan\"]\n\
         ```"
    );
    let prompts = client.list_prompts(None).await;
    assert_eq!(
        only_description(prompts.result(), "prompts"),
        "Reviews a study before it is published."
    );
    let templates = client.list_resource_templates(None).await;
    assert_eq!(
        only_description(templates.result(), "resourceTemplates"),
        "One study, by the numeric id the studies list gives."
    );
}
