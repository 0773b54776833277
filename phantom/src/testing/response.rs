//! [`Response`]: one reply of the in-process client, decoded, with assertions.

use base64::Engine as _;
use serde_json::{Value, json};

use crate::kernel::{Reply, Status};

/// One reply, decoded, with assertions. Every assertion panics with the whole reply on failure.
#[derive(Debug, Clone)]
pub struct Response {
    /// The reply as the dispatcher produced it.
    pub reply: Reply,
    /// The decoded body.
    pub json: Value,
    /// What the handling sent before the reply (progress, log messages), decoded, in order.
    pub notifications: Vec<Value>,
    /// The input the handler asked for, in order, as `{"method", "params"}`: the server's
    /// requests on a legacy session, the `inputRequests` of every modern round.
    pub requests: Vec<Value>,
}

impl Response {
    pub(super) fn new(reply: Reply, notifications: Vec<Value>) -> Self {
        let json = serde_json::from_str(&reply.body).expect("the dispatcher writes valid JSON");
        Self {
            reply,
            json,
            notifications,
            requests: Vec::new(),
        }
    }

    pub(super) fn with_requests(mut self, requests: Vec<Value>) -> Self {
        self.requests = requests;
        self
    }

    /// The transport status.
    pub fn status(&self) -> &Status {
        &self.reply.status
    }

    /// The `result` object.
    ///
    /// # Panics
    ///
    /// If the reply is an error.
    #[track_caller]
    pub fn result(&self) -> &Value {
        self.json
            .get("result")
            .unwrap_or_else(|| panic!("expected a result, got {}", self.json))
    }

    /// The `error` object.
    ///
    /// # Panics
    ///
    /// If the reply is a result.
    #[track_caller]
    pub fn error(&self) -> &Value {
        self.json
            .get("error")
            .unwrap_or_else(|| panic!("expected an error, got {}", self.json))
    }

    /// The `name` of every tool of a `tools/list` result, in order.
    ///
    /// # Panics
    ///
    /// If the reply is not a `tools/list` result.
    #[track_caller]
    pub fn tool_names(&self) -> Vec<String> {
        self.list("tools", "name")
    }

    /// The `name` of every prompt of a `prompts/list` result, in order.
    ///
    /// # Panics
    ///
    /// If the reply is not a `prompts/list` result.
    #[track_caller]
    pub fn prompt_names(&self) -> Vec<String> {
        self.list("prompts", "name")
    }

    /// The `uri` of every resource of a `resources/list` result, in order.
    ///
    /// # Panics
    ///
    /// If the reply is not a `resources/list` result.
    #[track_caller]
    pub fn resource_uris(&self) -> Vec<String> {
        self.list("resources", "uri")
    }

    /// The `uriTemplate` of every template of a `resources/templates/list` result, in order.
    ///
    /// # Panics
    ///
    /// If the reply is not a `resources/templates/list` result.
    #[track_caller]
    pub fn template_uris(&self) -> Vec<String> {
        self.list("resourceTemplates", "uriTemplate")
    }

    #[track_caller]
    fn list(&self, key: &str, field: &str) -> Vec<String> {
        let items = self.result()[key]
            .as_array()
            .unwrap_or_else(|| panic!("expected a `{key}` list, got {}", self.json));
        items
            .iter()
            .map(|item| {
                item[field]
                    .as_str()
                    .unwrap_or_else(|| panic!("an item of `{key}` has no `{field}`: {item}"))
                    .to_owned()
            })
            .collect()
    }

    /// Asserts a JSON-RPC error with this code.
    #[track_caller]
    pub fn assert_error(&self, code: i64) -> &Self {
        let got = self.error()["code"].as_i64();
        assert_eq!(
            got,
            Some(code),
            "expected JSON-RPC error {code}, got {}",
            self.json
        );
        self
    }

    /// Asserts a successful tool result whose text blocks join to `expected`.
    #[track_caller]
    pub fn assert_tool_text(&self, expected: &str) -> &Self {
        let result = self.result();
        assert_ne!(
            result["isError"],
            json!(true),
            "expected a successful tool result, got {}",
            self.json
        );
        assert_eq!(
            texts(&result["content"]),
            expected,
            "tool text differs in {}",
            self.json
        );
        self
    }

    /// Asserts a successful tool result with this `structuredContent`.
    #[track_caller]
    pub fn assert_tool_structured(&self, expected: &Value) -> &Self {
        let result = self.result();
        assert_ne!(
            result["isError"],
            json!(true),
            "expected a successful tool result, got {}",
            self.json
        );
        assert_eq!(
            &result["structuredContent"], expected,
            "structuredContent differs in {}",
            self.json
        );
        self
    }

    /// Asserts an `isError: true` tool result whose text contains `fragment`.
    #[track_caller]
    pub fn assert_tool_error(&self, fragment: &str) -> &Self {
        let result = self.result();
        assert_eq!(
            result["isError"],
            json!(true),
            "expected isError: true, got {}",
            self.json
        );
        let text = texts(&result["content"]);
        assert!(
            text.contains(fragment),
            "tool error {text:?} does not contain {fragment:?}"
        );
        self
    }

    /// Asserts that the tool result has a block of this `type` (`image`, `audio`, `resource_link`,
    /// `resource`) and returns it.
    #[track_caller]
    pub fn assert_tool_content(&self, kind: &str) -> &Value {
        let content = &self.result()["content"];
        content
            .as_array()
            .and_then(|blocks| blocks.iter().find(|b| b["type"] == kind))
            .unwrap_or_else(|| panic!("no `{kind}` block in {}", self.json))
    }

    /// Asserts that the first resource contents are this text.
    #[track_caller]
    pub fn assert_resource_text(&self, expected: &str) -> &Self {
        let first = &self.result()["contents"][0];
        assert_eq!(
            first["text"].as_str(),
            Some(expected),
            "resource text differs in {}",
            self.json
        );
        self
    }

    /// Asserts that the first resource contents are these bytes.
    #[track_caller]
    pub fn assert_resource_blob(&self, expected: &[u8]) -> &Self {
        let first = &self.result()["contents"][0];
        let blob = first["blob"]
            .as_str()
            .unwrap_or_else(|| panic!("no blob in {}", self.json));
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob)
            .expect("blob is base64");
        assert_eq!(bytes, expected, "resource blob differs in {}", self.json);
        self
    }

    /// Asserts that prompt message `index` has this role and text.
    #[track_caller]
    pub fn assert_prompt_message(&self, index: usize, role: &str, text: &str) -> &Self {
        let msg = &self.result()["messages"][index];
        assert_eq!(
            msg["role"].as_str(),
            Some(role),
            "role differs in {}",
            self.json
        );
        assert_eq!(
            msg["content"]["text"].as_str(),
            Some(text),
            "text differs in {}",
            self.json
        );
        self
    }
}

fn texts(content: &Value) -> String {
    content
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}
