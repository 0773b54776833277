//! What the streams hear, written once per change: a legacy stream's notification is shared by
//! every stream that hears it, and a listen's copy is its own text around the listen's tag.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::protocol::{Method, meta};

/// One message of an open stream: a notification written once for every legacy stream that
/// hears it (shared, not copied per stream), or one written for this stream.
#[derive(Debug, Clone)]
pub(crate) enum Note {
    Shared(Arc<str>),
    Own(String),
}

impl std::ops::Deref for Note {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Self::Shared(text) => text,
            Self::Own(text) => text,
        }
    }
}

impl From<Note> for String {
    fn from(note: Note) -> Self {
        match note {
            Note::Shared(text) => text.to_string(),
            Note::Own(text) => text,
        }
    }
}

/// A notification as JSON text, for a legacy stream.
pub(super) fn message(method: Method, params: Map<String, Value>) -> String {
    let mut message = json!({ "jsonrpc": "2.0", "method": method.as_str() });
    if !params.is_empty() {
        message["params"] = Value::Object(params);
    }
    message.to_string()
}

/// A notification for listens, written once per change: each listen's copy carries its own tag
/// (its request id) in `params._meta`, so the text is kept as what comes before the tag and what
/// comes after, and a copy is the two around the tag's text (no JSON written per stream).
pub(super) struct Tagged {
    before: String,
    after: String,
}

impl Tagged {
    /// `params` with `_meta` (any sent in them is replaced) holding only the tag.
    pub(super) fn new(method: Method, params: &Map<String, Value>) -> Self {
        let before = format!(
            r#"{{"jsonrpc":"2.0","method":{},"params":{{"_meta":{{{}:"#,
            json_text(method.as_str()),
            json_text(meta::SUBSCRIPTION_ID),
        );
        let mut after = String::from("}");
        for (key, value) in params.iter().filter(|(k, _)| *k != "_meta") {
            after.push(',');
            after.push_str(&json_text(key));
            after.push(':');
            after.push_str(&json_text(value));
        }
        after.push_str("}}");
        Self { before, after }
    }

    /// The notification with `tag`, the JSON text of a listen's id.
    pub(super) fn with(&self, tag: &str) -> String {
        let mut out = String::with_capacity(self.before.len() + tag.len() + self.after.len());
        out.push_str(&self.before);
        out.push_str(tag);
        out.push_str(&self.after);
        out
    }
}

/// A key or value as JSON text (escaped as serde_json escapes it).
fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    // Strings and `Value`s (whose map keys are strings) always serialize.
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::{Tagged, json_text};
    use crate::protocol::{Method, meta};

    #[test]
    fn a_tagged_notification_is_the_message_with_the_tag_in_meta() {
        let params = |v: Value| match v {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        for (method, sent) in [
            (Method::ToolsListChanged, Map::new()),
            (
                Method::ResourcesUpdated,
                params(json!({"uri": "users://4\"2\u{0}/é\\n"})),
            ),
            (
                Method::TaskNotification,
                params(
                    json!({"taskId": "t", "status": "working", "_meta": {"x": 1}, "n": [1, {"a": null}]}),
                ),
            ),
        ] {
            for tag in [json!(7), json!("sub-\"1\""), json!(-3)] {
                let text = Tagged::new(method, &sent).with(&json_text(&tag));
                let read: Value = serde_json::from_str(&text).expect("JSON");
                let mut expected = sent.clone();
                expected.insert("_meta".into(), json!({ meta::SUBSCRIPTION_ID: tag }));
                assert_eq!(
                    read,
                    json!({"jsonrpc": "2.0", "method": method.as_str(), "params": expected}),
                    "{text}"
                );
            }
        }
    }
}
