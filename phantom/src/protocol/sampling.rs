//! `sampling/createMessage` from both sides: the request a server sends
//! ([`CreateMessageRequest`]) and the client's completion ([`Sampled`], also named
//! [`CreateMessageResult`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The params of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequest {
    /// The conversation to complete.
    pub messages: Vec<SamplingMessage>,
    /// At most this many tokens.
    pub max_tokens: u64,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Sequences that stop the completion.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// Model hints and priorities (`hints`, `costPriority`, …), as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<Value>,
    /// Tools the model may call, as sent (needs the `sampling.tools` capability).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
    /// `none`, `thisServer` or `allServers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Provider-specific metadata, as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// The members this type does not name (`_meta`, `toolChoice`, …), as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl CreateMessageRequest {
    /// A request for at most `max_tokens` tokens completing `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        Self {
            messages,
            max_tokens,
            system_prompt: None,
            temperature: None,
            stop_sequences: Vec::new(),
            model_preferences: None,
            tools: Vec::new(),
            include_context: None,
            metadata: None,
            other: Map::new(),
        }
    }
}

/// One message of a [`CreateMessageRequest`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// A content block (text, image, audio, tool use or result), or a list of them, as sent.
    pub content: Value,
    /// The members this type does not name, as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl SamplingMessage {
    /// A message of `role` (`user`, `assistant`) with one text block.
    pub fn text(role: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            role: role.into(),
            content: serde_json::json!({"type": "text", "text": text.into()}),
            other: Map::new(),
        }
    }

    /// The text of a single text block, if that is what the message is.
    pub fn as_text(&self) -> Option<&str> {
        text_of(&self.content)
    }
}

/// The client's completion: the result of `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sampled {
    /// `assistant`, normally.
    pub role: String,
    /// The content block (or blocks, with tools).
    pub content: Value,
    /// The model that answered.
    pub model: String,
    /// Why it stopped (`endTurn`, `maxTokens`, `toolUse`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

/// The result of `sampling/createMessage`, by the protocol's name.
pub type CreateMessageResult = Sampled;

impl Sampled {
    /// The text of a single text block, if that is what came back.
    pub fn text(&self) -> Option<&str> {
        text_of(&self.content)
    }
}

/// The text of a block, or of the first of a list of blocks, when it is a text block.
fn text_of(content: &Value) -> Option<&str> {
    let block = match content {
        Value::Array(blocks) => blocks.first()?,
        block => block,
    };
    (block.get("type")?.as_str()? == "text")
        .then(|| block.get("text")?.as_str())
        .flatten()
}
