//! The answers to the server's requests (`elicitation/create`, `sampling/createMessage`,
//! `roots/list`, `ping`): one set per client, shared by every way a request arrives — inside a
//! request's stream, a 2026-07-28 `input_required` round, a legacy session's GET stream, a stdio
//! server's line with no request in flight.

use serde_json::{Value, json};

use super::Handler;
use crate::protocol::{ElicitRequest, Method};

/// The builder's handlers, kept by the client and the tasks it starts.
#[derive(Default)]
pub(super) struct Handlers {
    pub(super) elicit: Option<Handler>,
    pub(super) sample: Option<Handler>,
    pub(super) roots: Option<Handler>,
}

impl Handlers {
    /// Whether any server request can be answered (besides `ping`).
    pub(super) fn any(&self) -> bool {
        self.elicit.is_some() || self.sample.is_some() || self.roots.is_some()
    }

    /// The `result` for a server request, or the JSON-RPC error object: `-32601` for a method
    /// this client has no handler for.
    pub(super) async fn answer(&self, method: &str, params: Value) -> Result<Value, Value> {
        let kind = Method::parse(method);
        let handler = match kind {
            Some(Method::Ping) => return Ok(json!({})),
            Some(Method::ElicitationCreate) => self.elicit.as_ref(),
            Some(Method::SamplingCreateMessage) => self.sample.as_ref(),
            Some(Method::RootsList) => self.roots.as_ref(),
            _ => None,
        };
        let Some(handler) = handler else {
            return Err(json!({
                "code": -32601,
                "message": format!("Method not found: this client has no handler for `{method}`"),
            }));
        };
        let mut result = handler(params.clone()).await?;
        if kind == Some(Method::ElicitationCreate) {
            with_defaults(&params, &mut result);
        }
        Ok(result)
    }
}

/// SEP-1034: an accepted form elicitation carries every field of the form the user left out
/// that has a `default` in the requested schema, with that default
/// ([`ElicitRequest::defaults`]). Applied to the JSON, so that a raw handler's answer gets them
/// too.
fn with_defaults(request: &Value, result: &mut Value) {
    let Ok(request) = serde_json::from_value::<ElicitRequest>(request.clone()) else {
        return;
    };
    let defaults = request.defaults();
    if defaults.is_empty() || result["action"] != "accept" {
        return;
    }
    if !result["content"].is_object() {
        result["content"] = json!({});
    }
    if let Some(content) = result["content"].as_object_mut() {
        for (name, default) in defaults {
            content.entry(name).or_insert(default);
        }
    }
}
