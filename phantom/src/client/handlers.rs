//! The answers to the server's requests (`elicitation/create`, `sampling/createMessage`,
//! `roots/list`, `ping`): one set per client, shared by every way a request arrives — inside a
//! request's stream, a 2026-07-28 `input_required` round, a legacy session's GET stream, a stdio
//! server's line with no request in flight.

use serde_json::{Value, json};

use super::Handler;

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
        let handler = match method {
            "ping" => return Ok(json!({})),
            "elicitation/create" => self.elicit.as_ref(),
            "sampling/createMessage" => self.sample.as_ref(),
            "roots/list" => self.roots.as_ref(),
            _ => None,
        };
        let Some(handler) = handler else {
            return Err(json!({
                "code": -32601,
                "message": format!("Method not found: this client has no handler for `{method}`"),
            }));
        };
        let mut result = handler(params.clone()).await;
        if method == "elicitation/create" {
            with_defaults(&params, &mut result);
        }
        Ok(result)
    }
}

/// SEP-1034: an accepted form elicitation carries every field of the form the user left out
/// that has a `default` in the requested schema, with that default.
fn with_defaults(request: &Value, result: &mut Value) {
    let form = matches!(
        request.get("mode").and_then(Value::as_str),
        None | Some("form")
    );
    let Some(properties) = request["requestedSchema"]["properties"].as_object() else {
        return;
    };
    if !form || result["action"] != "accept" {
        return;
    }
    if !result["content"].is_object() {
        result["content"] = json!({});
    }
    let Some(content) = result["content"].as_object_mut() else {
        return;
    };
    for (name, schema) in properties {
        if let Some(default) = schema.get("default") {
            content
                .entry(name.clone())
                .or_insert_with(|| default.clone());
        }
    }
}
