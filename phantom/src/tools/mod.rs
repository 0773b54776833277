//! Tools: descriptors, results and the [`IntoToolResult`] trait.

mod added;
mod build;
mod call;
pub(crate) mod output;
mod portable;
pub(crate) mod schema;
pub(crate) mod table;
pub(crate) mod validator;

pub(crate) use added::{Added, AddedTool, Found, Table, TaskRelay};
pub(crate) use call::{Env, call, human, run_tool};
pub(crate) use output::{ToolFuture, ToolOutput};
pub(crate) use table::{Declared, TaskSupport, ToolDef, ToolEntry};

use std::fmt::Display;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::{Content, Json};
pub use crate::protocol::ToolAnnotations;

/// The result of `tools/call`, as a tool returns it and as a client reads it. Members it does
/// not name (`resultType`, `ttlMs`, …) are ignored when read; a content block of a `type`
/// [`Content`] does not know does not read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// Content blocks.
    #[serde(default)]
    pub content: Vec<Content>,
    /// Structured output, described by the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed (a tool execution error, not a protocol error).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
}

impl ToolResult {
    /// A successful result with these blocks.
    pub fn new(content: Vec<Content>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![Content::text(text)])
    }

    /// A tool execution error (`isError: true`) with one text block.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(message)
        }
    }

    /// The text of every text block, joined by newlines (what a client shows of a result).
    pub fn text_content(&self) -> String {
        let texts: Vec<&str> = self.content.iter().filter_map(Content::as_text).collect();
        texts.join("\n")
    }

    /// A successful result whose `structuredContent` is `value`, with a text copy.
    pub fn structured(value: Value) -> Self {
        let text = value.to_string();
        Self {
            structured_content: Some(value),
            ..Self::text(text)
        }
    }
}

/// What a `#[tool]` handler may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[tool]`",
    label = "unsupported tool return type",
    note = "return `String`, `Json<T>`, `Content`, `Vec<Content>`, `ToolResult`, `()`, or `Result<T, E>` of one of these where `E: Display`"
)]
pub trait IntoToolResult {
    /// Converts the handler's value into the wire result.
    fn into_tool_result(self) -> ToolResult;

    /// The tool's `outputSchema`, when the return type has one.
    fn output_schema(_generator: &mut SchemaGenerator) -> Option<Schema> {
        None
    }

    /// The value as the text of one block, when that is all its result is (what
    /// [`ToolResult::text`] holds: no other block, not an error, no structured content, no
    /// metadata); otherwise `Err(self)`, and [`into_tool_result`](Self::into_tool_result) is
    /// called. A text is written into the reply as it is, without the [`ToolResult`] around it
    /// (an allocation per call).
    ///
    /// The provided method answers `Err(self)`: implement it only for a type that is often one
    /// text. `String` and `&'static str` do, and a `Result` of one.
    fn into_text(self) -> Result<String, Self>
    where
        Self: Sized,
    {
        Err(self)
    }
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> ToolResult {
        self
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }

    fn into_text(self) -> Result<String, Self> {
        Ok(self)
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }

    fn into_text(self) -> Result<String, Self> {
        Ok(self.to_owned())
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::new(Vec::new())
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::new(vec![self])
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::new(self)
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolResult {
        match serde_json::to_value(&self.0) {
            Ok(value) => ToolResult::structured(value),
            Err(e) => ToolResult::error(format!("could not serialize the tool output: {e}")),
        }
    }

    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(generator.root_schema_for::<T>())
    }
}

impl<T: IntoToolResult, E: Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> ToolResult {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => ToolResult::error(e.to_string()),
        }
    }

    fn into_text(self) -> Result<String, Self> {
        match self {
            Ok(v) => v.into_text().map_err(Ok),
            Err(e) => Err(Err(e)),
        }
    }

    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        T::output_schema(generator)
    }
}
