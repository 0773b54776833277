//! Prompts: what `#[prompt]` handlers return ([`IntoPromptReply`]).

mod added;
mod get;
pub(crate) mod table;

pub(crate) use added::{Added, AddedPrompt, Declared, Found, Table};
pub(crate) use get::{Env, get, run_prompt};
pub(crate) use table::{PromptDef, PromptEntry};

use std::fmt::Display;

use serde::{Deserialize, Serialize};

use crate::content::Content;
use crate::error::Error;

/// Who speaks a prompt message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One message of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Speaker.
    pub role: Role,
    /// Content block.
    pub content: Content,
}

impl PromptMessage {
    /// A user message with text.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: Content::text(text),
        }
    }

    /// An assistant message with text.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: Content::text(text),
        }
    }
}

/// The result of `prompts/get`, as a prompt returns it and as a client reads it (members it
/// does not name are ignored).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptReply {
    /// Description of this rendering of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
}

impl PromptReply {
    /// A reply with these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            description: None,
            messages,
        }
    }

    /// Adds a user text message.
    #[must_use]
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push(PromptMessage::user(text));
        self
    }

    /// Adds an assistant text message.
    #[must_use]
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push(PromptMessage::assistant(text));
        self
    }

    /// Sets the description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// What a `#[prompt]` handler may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[prompt]`",
    label = "unsupported prompt return type",
    note = "return `PromptReply`, `Vec<PromptMessage>`, `String` (one user message) or `Result<T, E>` where `E: Display + 'static` (`String`, any error type; a `phantom::Error` keeps its code)"
)]
pub trait IntoPromptReply {
    /// Converts the handler's value.
    fn into_prompt_reply(self) -> Result<PromptReply, Error>;
}

impl IntoPromptReply for PromptReply {
    fn into_prompt_reply(self) -> Result<PromptReply, Error> {
        Ok(self)
    }
}

impl IntoPromptReply for Vec<PromptMessage> {
    fn into_prompt_reply(self) -> Result<PromptReply, Error> {
        Ok(PromptReply::new(self))
    }
}

impl IntoPromptReply for String {
    fn into_prompt_reply(self) -> Result<PromptReply, Error> {
        Ok(PromptReply::default().user(self))
    }
}

impl<T: IntoPromptReply, E: Display + 'static> IntoPromptReply for Result<T, E> {
    fn into_prompt_reply(self) -> Result<PromptReply, Error> {
        self.map_err(Error::from_handler)?.into_prompt_reply()
    }
}
