//! `#[tool(requires = [...])]`: a call from a client that did not declare a capability is refused
//! with `-32021` and `data.requiredCapabilities` before the handler runs (HTTP 400 in 2026-07-28).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use phantom::dispatch::Status;
use phantom::prelude::*;
use phantom::testing::{Client, Response};
use phantom::{Config, protocol::ProtocolVersion};
use serde_json::{Value, json};

/// Tools that need client capabilities; `calls` counts handler runs.
#[derive(Clone, Default)]
struct Needy {
    calls: Arc<AtomicUsize>,
}

#[mcp_router(name = "needy", version = "1.0.0")]
impl Needy {
    /// Needs `sampling`.
    #[tool(requires = ["sampling"])]
    async fn summarize(&self, text: String) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        format!("summary of {text}")
    }

    /// Needs URL-mode elicitation.
    #[tool(requires = ["elicitation.url"])]
    async fn sign_in(&self) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        "signed in".to_owned()
    }

    /// Needs form-mode elicitation.
    #[tool(requires = ["elicitation.form"])]
    async fn ask(&self) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        "asked".to_owned()
    }

    /// Needs three capabilities.
    #[tool(requires = ["sampling", "elicitation.url", "roots"])]
    fn everything(&self) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        "everything".to_owned()
    }

    /// Needs nothing.
    #[tool]
    fn free(&self) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        "free".to_owned()
    }
}

impl Needy {
    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

/// A legacy client that declared `capabilities` in `initialize`.
async fn legacy(server: &Needy, capabilities: Value) -> Client<Needy> {
    let mut client =
        Client::uninitialized(server.clone(), Config::default()).capabilities(capabilities);
    client
        .initialize(ProtocolVersion::V2025_11_25.as_str())
        .await
        .result();
    client
}

/// A modern client whose envelope carries `capabilities`.
fn modern(server: &Needy, capabilities: Value) -> Client<Needy> {
    Client::modern(server.clone()).capabilities(capabilities)
}

/// Asserts a `-32021` refusal with this status and `requiredCapabilities`.
#[track_caller]
fn assert_refused(response: &Response, status: &Status, required: &Value) {
    response.assert_error(-32021);
    assert_eq!(response.status(), status, "{}", response.json);
    assert_eq!(
        &response.error()["data"]["requiredCapabilities"],
        required,
        "{}",
        response.json
    );
}

#[tokio::test]
async fn legacy_without_the_capability_is_refused_with_200() {
    let server = Needy::default();
    let mut client = legacy(&server, json!({"roots": {}})).await;
    let response = client.call_tool("summarize", json!({"text": "t"})).await;
    assert_refused(&response, &Status::Ok, &json!({"sampling": {}}));
    assert_eq!(response.json["id"], 2, "the refusal answers the request");
    let message = response.error()["message"].as_str().expect("a message");
    assert!(message.contains("summarize"), "{message}");
    assert_eq!(server.calls(), 0, "the handler must not run");
}

#[tokio::test]
async fn legacy_with_the_capability_runs_the_handler() {
    let server = Needy::default();
    let mut client = legacy(&server, json!({"sampling": {}})).await;
    let response = client.call_tool("summarize", json!({"text": "t"})).await;
    assert_eq!(response.status(), &Status::Ok);
    response.assert_tool_text("summary of t");
    assert_eq!(server.calls(), 1);
}

#[tokio::test]
async fn modern_without_the_capability_is_refused_with_400() {
    let server = Needy::default();
    let mut client = modern(&server, json!({}));
    let response = client.call_tool("summarize", json!({"text": "t"})).await;
    assert_refused(&response, &Status::BadRequest, &json!({"sampling": {}}));
    assert_eq!(response.reply.era, phantom::protocol::Era::Modern);
    assert_eq!(server.calls(), 0, "the handler must not run");
}

#[tokio::test]
async fn modern_with_the_capability_runs_the_handler() {
    let server = Needy::default();
    let mut client = modern(&server, json!({"sampling": {}}));
    let response = client.call_tool("summarize", json!({"text": "t"})).await;
    assert_eq!(response.status(), &Status::Ok);
    response.assert_tool_text("summary of t");
    assert_eq!(server.calls(), 1);
}

#[tokio::test]
async fn modern_capabilities_are_read_per_request() {
    let server = Needy::default();
    let mut client = modern(&server, json!({}));
    let with = phantom::testing::with_envelope(
        json!({"name": "summarize", "arguments": {"text": "t"}}),
        &json!({"sampling": {}}),
    );
    client
        .raw_request("tools/call", Some(with))
        .await
        .assert_tool_text("summary of t");
    let without = client.call_tool("summarize", json!({"text": "t"})).await;
    assert_refused(&without, &Status::BadRequest, &json!({"sampling": {}}));
    assert_eq!(server.calls(), 1);
}

#[tokio::test]
async fn a_dotted_requirement_needs_the_nested_capability() {
    let url = json!({"elicitation": {"url": {}}});
    for declared in [
        json!({}),
        json!({"elicitation": {}}),
        json!({"elicitation": {"form": {}}}),
        json!({"elicitation": null}),
        json!({"elicitation": {"url": null}}),
        json!({"url": {}}),
    ] {
        let server = Needy::default();
        let mut client = legacy(&server, declared.clone()).await;
        let response = client.call_tool("sign_in", json!({})).await;
        assert_refused(&response, &Status::Ok, &url);
        let mut client = modern(&server, declared.clone());
        let response = client.call_tool("sign_in", json!({})).await;
        assert_refused(&response, &Status::BadRequest, &url);
        assert_eq!(server.calls(), 0, "declared {declared}");
    }

    let server = Needy::default();
    let declared = json!({"elicitation": {"form": {}, "url": {}}});
    let mut client = legacy(&server, declared.clone()).await;
    client
        .call_tool("sign_in", json!({}))
        .await
        .assert_tool_text("signed in");
    let mut client = modern(&server, declared);
    client
        .call_tool("sign_in", json!({}))
        .await
        .assert_tool_text("signed in");
    assert_eq!(server.calls(), 2);
}

#[tokio::test]
async fn an_empty_elicitation_object_means_form_mode() {
    let server = Needy::default();
    for declared in [
        json!({"elicitation": {}}),
        json!({"elicitation": {"form": {}}}),
        json!({"elicitation": {"form": {}, "url": {}}}),
    ] {
        let mut client = legacy(&server, declared.clone()).await;
        client
            .call_tool("ask", json!({}))
            .await
            .assert_tool_text("asked");
        modern(&server, declared)
            .call_tool("ask", json!({}))
            .await
            .assert_tool_text("asked");
    }
    assert_eq!(server.calls(), 6);
    let form = json!({"elicitation": {"form": {}}});
    for declared in [json!({}), json!({"elicitation": {"url": {}}})] {
        let response = modern(&server, declared).call_tool("ask", json!({})).await;
        assert_refused(&response, &Status::BadRequest, &form);
    }
    assert_eq!(server.calls(), 6);
}

#[tokio::test]
async fn only_the_missing_capabilities_are_listed() {
    let server = Needy::default();
    let cases = [
        (
            json!({}),
            json!({"sampling": {}, "elicitation": {"url": {}}, "roots": {}}),
        ),
        (
            json!({"sampling": {}, "elicitation": {"form": {}}}),
            json!({"elicitation": {"url": {}}, "roots": {}}),
        ),
        (
            json!({"roots": {"listChanged": true}, "elicitation": {"url": {}}}),
            json!({"sampling": {}}),
        ),
    ];
    for (declared, missing) in cases {
        let mut client = modern(&server, declared.clone());
        let response = client.call_tool("everything", json!({})).await;
        assert_refused(&response, &Status::BadRequest, &missing);
        let mut client = legacy(&server, declared).await;
        let response = client.call_tool("everything", json!({})).await;
        assert_refused(&response, &Status::Ok, &missing);
    }
    assert_eq!(server.calls(), 0);

    let all = json!({"sampling": {}, "elicitation": {"url": {}}, "roots": {}});
    modern(&server, all)
        .call_tool("everything", json!({}))
        .await
        .assert_tool_text("everything");
    assert_eq!(server.calls(), 1);
}

#[tokio::test]
async fn a_null_capability_is_not_declared() {
    let server = Needy::default();
    let mut client = legacy(&server, json!({"sampling": null})).await;
    let response = client.call_tool("summarize", json!({"text": "t"})).await;
    assert_refused(&response, &Status::Ok, &json!({"sampling": {}}));
    assert_eq!(server.calls(), 0);
}

#[tokio::test]
async fn the_refusal_comes_before_argument_checks() {
    let server = Needy::default();
    let mut client = modern(&server, json!({}));
    let response = client.call_tool("summarize", json!({"text": 7})).await;
    assert_refused(&response, &Status::BadRequest, &json!({"sampling": {}}));
    let mut client = modern(&server, json!({"sampling": {}}));
    client
        .call_tool("summarize", json!({"text": 7}))
        .await
        .assert_tool_error("text");
    assert_eq!(server.calls(), 0);
}

#[tokio::test]
async fn tools_without_requirements_and_unknown_tools_are_unaffected() {
    let server = Needy::default();
    let mut client = modern(&server, json!({}));
    let response = client.call_tool("free", json!({})).await;
    assert_eq!(response.status(), &Status::Ok);
    response.assert_tool_text("free");
    client
        .call_tool("missing", json!({}))
        .await
        .assert_error(-32602);
    let mut client = legacy(&server, json!({})).await;
    client
        .call_tool("free", json!({}))
        .await
        .assert_tool_text("free");
    assert_eq!(server.calls(), 2);
}

#[tokio::test]
async fn tools_that_need_capabilities_are_still_listed() {
    let server = Needy::default();
    let mut client = modern(&server, json!({}));
    let tools = client.list_tools(None).await;
    let names: Vec<&str> = tools.result()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["summarize", "sign_in", "ask", "everything", "free"]);
}
