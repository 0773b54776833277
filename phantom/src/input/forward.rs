//! [`Forward`]: a request for input passed on as it came, for a handler that relays another
//! server's requests (a gateway's upstream).

use serde_json::{Map, Value};

use super::{Input, InputKind, InputRequest};

/// A request for input made by someone else — the server behind a gateway — asked of this
/// request's client as it came: its `method` and `params` go on the wire unchanged and the
/// client's answer comes back as it was sent. Ask it with [`Ctx::input`](crate::Ctx::input)
/// like any other input, in either era.
///
/// ```
/// use phantom::input::Forward;
/// let asked = Forward::new("confirm", "elicitation/create", serde_json::json!({
///     "message": "Go on?",
///     "requestedSchema": {"type": "object", "properties": {}},
/// }));
/// assert!(asked.is_some());
/// assert!(Forward::new("x", "tools/call", serde_json::json!({})).is_none());
/// ```
#[derive(Debug, Clone)]
pub struct Forward {
    key: String,
    kind: InputKind,
    params: Map<String, Value>,
    elicitation_id: Option<String>,
}

impl Forward {
    /// The request `method` with `params`, under `key`; `None` when `method` is not a request
    /// for input (`elicitation/create`, `sampling/createMessage`, `roots/list`).
    pub fn new(key: impl Into<String>, method: &str, params: Value) -> Option<Self> {
        let params = match params {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let kind = match method {
            "elicitation/create" if params.get("mode").and_then(Value::as_str) == Some("url") => {
                InputKind::Url
            }
            "elicitation/create" => InputKind::Form,
            "sampling/createMessage" if params.get("tools").is_some() => {
                InputKind::SamplingWithTools
            }
            "sampling/createMessage" => InputKind::Sampling,
            "roots/list" => InputKind::Roots,
            _ => return None,
        };
        let elicitation_id = params
            .get("elicitationId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Some(Self {
            key: key.into(),
            kind,
            params,
            elicitation_id,
        })
    }

    /// The key it is asked under.
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl Input for Forward {
    type Output = Value;

    fn request(&self) -> InputRequest {
        InputRequest {
            key: self.key.clone(),
            kind: self.kind,
            params: self.params.clone(),
            elicitation_id: self.elicitation_id.clone(),
        }
    }

    fn read(answer: Value) -> Result<Self::Output, String> {
        Ok(answer)
    }
}
