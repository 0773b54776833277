//! [`Answer`]: what the rest of the chain answered — a result or a JSON-RPC error — for a
//! middleware to inspect, keep or replace.

use serde_json::Value;

use super::Outcome;
use crate::error::Error;
use crate::kernel::{Body, Failure, Status};
use crate::protocol::ErrorObject;

/// The answer of a feature request: its result (an `isError` tool result included) or its
/// JSON-RPC error. An answer passed on unchanged keeps everything the method set (an HTTP
/// status such as `403 insufficient_scope`, a task or `input_required` result).
pub struct Answer(pub(crate) Result<Body, Failure>);

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Ok(_) => f.write_str("Answer::Result"),
            Err(e) => write!(f, "Answer::Error({})", e.error),
        }
    }
}

impl Answer {
    /// A result (a JSON object: `{"content": [...]}` for a tool, `{"contents": [...]}` for a
    /// read, …) sent in place of the method's.
    pub fn result(result: Value) -> Self {
        match result {
            Value::Object(map) => Self(Ok(Body::Map(map))),
            other => Self::error(Error::internal(format!(
                "Internal error: a middleware's result is not an object: {other}"
            ))),
        }
    }

    /// A JSON-RPC error sent in place of the method's result.
    pub fn error(error: impl Into<Error>) -> Self {
        Self(Err(Failure::from(error.into())))
    }

    /// A JSON-RPC error answered over HTTP with `429 Too Many Requests` and
    /// `Retry-After: <retry_after_secs>` (stdio has no status: the error alone).
    pub fn too_many_requests(error: impl Into<Error>, retry_after_secs: u64) -> Self {
        Self(Err(
            Failure::from(error.into()).with_status(Status::TooManyRequests(retry_after_secs))
        ))
    }

    /// Whether it is a result (`isError` tool results included).
    pub fn is_result(&self) -> bool {
        self.0.is_ok()
    }

    /// Whether it is a final result: not an error, an `input_required` round or a task.
    pub(crate) fn is_final_result(&self) -> bool {
        matches!(
            self.0,
            Ok(Body::Map(_) | Body::Members(_) | Body::Object(_) | Body::Text { .. })
        )
    }

    /// The JSON-RPC error, when it is one.
    pub fn as_error(&self) -> Option<&ErrorObject> {
        self.0.as_ref().err().map(|f| &f.error)
    }

    /// The result as JSON (a copy), when it is one.
    pub fn to_json(&self) -> Option<Value> {
        let body = self.0.as_ref().ok()?;
        Some(match body {
            Body::Map(map) | Body::InputRequired(map) | Body::Task(map) => {
                Value::Object(map.clone())
            }
            Body::Members(text) => serde_json::from_str(&format!("{{{text}}}")).ok()?,
            Body::Object(text) => serde_json::from_str(text).ok()?,
            Body::Text { text, is_error } => {
                serde_json::from_str(&crate::kernel::text_object(text, *is_error)).ok()?
            }
        })
    }

    /// Whether it is a tool result with `isError: true`.
    pub fn is_tool_error(&self) -> bool {
        #[derive(serde::Deserialize)]
        struct Flag {
            #[serde(rename = "isError", default)]
            is_error: bool,
        }
        // Read without building the result: only its `isError` member is decoded.
        let flag = |text: &str| serde_json::from_str::<Flag>(text).is_ok_and(|f| f.is_error);
        match self.0.as_ref() {
            Ok(Body::Map(map)) => map.get("isError") == Some(&Value::Bool(true)),
            Ok(Body::Text { is_error, .. }) => *is_error,
            Ok(Body::Object(text)) => text.contains("\"isError\"") && flag(text),
            Ok(Body::Members(text)) => text.contains("\"isError\"") && flag(&format!("{{{text}}}")),
            _ => false,
        }
    }

    /// The size of the result's JSON, in bytes (an error: 0).
    pub fn size(&self) -> usize {
        match self.0.as_ref() {
            Ok(Body::Members(text)) => text.len() + 2,
            Ok(Body::Object(text)) => text.len(),
            Ok(Body::Text { text, is_error }) => {
                crate::kernel::text_members_len(text, *is_error) + 2
            }
            Ok(Body::Map(map) | Body::InputRequired(map) | Body::Task(map)) => {
                serde_json::to_string(map).map_or(0, |t| t.len())
            }
            Err(_) => 0,
        }
    }

    /// How [`Middleware::after`](super::Middleware::after) hears it.
    pub fn outcome(&self) -> Outcome<'_> {
        match &self.0 {
            Ok(_) => Outcome::Ok,
            Err(f) => Outcome::Error(&f.error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Answer;
    use crate::kernel::Body;

    #[test]
    fn a_text_block_reads_as_the_tool_result_it_stands_for() {
        for is_error in [false, true] {
            let text = "a \"quoted\"\nline".to_owned();
            let result = crate::tools::ToolResult {
                is_error,
                ..crate::tools::ToolResult::text(text.clone())
            };
            let written = serde_json::to_string(&result).expect("serializes");
            let answer = Answer(Ok(Body::Text { text, is_error }));
            assert_eq!(
                answer.to_json(),
                Some(serde_json::from_str(&written).expect("JSON"))
            );
            assert_eq!(answer.is_tool_error(), is_error);
            assert_eq!(answer.size(), written.len());
            assert!(answer.is_final_result());
        }
    }
}
