//! What a [`Client`](super::Client)'s typed calls return: the results of the MCP methods, with
//! the members every client reads typed and the rest kept as JSON.

use serde::Deserialize;
use serde_json::{Map, Value};

/// A tool as `tools/list` describes it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// The name to call it by.
    pub name: String,
    /// A human-readable title.
    #[serde(default)]
    pub title: Option<String>,
    /// What it does.
    #[serde(default)]
    pub description: Option<String>,
    /// The JSON Schema of its arguments.
    #[serde(default)]
    pub input_schema: Value,
    /// The JSON Schema of its structured result, if it declares one.
    #[serde(default)]
    pub output_schema: Option<Value>,
    /// Its hints (`readOnlyHint`, `destructiveHint`, …).
    #[serde(default)]
    pub annotations: Option<Value>,
    /// Every member as sent (`_meta`, `icons`, extensions' members).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A prompt as `prompts/list` describes it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Prompt {
    /// The name to get it by.
    pub name: String,
    /// What it is for.
    #[serde(default)]
    pub description: Option<String>,
    /// Its arguments (`name`, `description`, `required`).
    #[serde(default)]
    pub arguments: Vec<Value>,
    /// The other members as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A resource (`resources/list`) or a resource template (`resources/templates/list`): `uri` or
/// `uri_template` is set.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resource {
    /// The resource's URI (`resources/list`).
    #[serde(default)]
    pub uri: Option<String>,
    /// The template's URI template (`resources/templates/list`).
    #[serde(default)]
    pub uri_template: Option<String>,
    /// Its name.
    pub name: String,
    /// Its MIME type, if declared.
    #[serde(default)]
    pub mime_type: Option<String>,
    /// The other members as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// One page of a list: its items and the cursor of the next page (`None` on the last).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Page<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// Pass it to the next call for the next page.
    pub next_cursor: Option<String>,
}

/// What `tools/call` returns. A tool that failed is a result with `is_error`, not an error.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// The content blocks (`{"type": "text", "text": …}`, images, resource links, …).
    #[serde(default)]
    pub content: Vec<Value>,
    /// The structured result, for tools with an output schema.
    #[serde(default)]
    pub structured_content: Option<Value>,
    /// Whether the tool reported a failure.
    #[serde(default)]
    pub is_error: bool,
}

impl CallToolResult {
    /// The text of every `text` content block, joined by newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter(|c| c["type"] == "text")
            .filter_map(|c| c["text"].as_str())
            .collect();
        texts.join("\n")
    }
}
