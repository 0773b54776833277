//! Session allow-lists, set by `connect` (from a header) or directly on the session.

use phantom::Session;
use phantom::testing::Client;
use serde_json::{Value, json};

use crate::fixture::{Lab, legacy_lab_with};

fn field(list: &Value, key: &str, field: &str) -> Vec<String> {
    list[key]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|i| i[field].as_str().map(str::to_owned))
        .collect()
}

/// Asserts what the `guest` role of `Lab` sees: tool `echo`, no prompts, resources `readme` and `item`.
async fn assert_guest_view(client: &mut Client<Lab>, not_found: i64) {
    assert_eq!(
        field(client.list_tools(None).await.result(), "tools", "name"),
        ["echo"]
    );
    client
        .call_tool("echo", json!({"text": "ok"}))
        .await
        .assert_tool_text("ok");
    let response = client.call_tool("add", json!({"a": 1, "b": 2})).await;
    response.assert_error(-32602);
    assert_eq!(
        response.error()["message"],
        "Unknown tool: add",
        "a hidden tool looks unknown"
    );

    assert!(field(client.list_prompts(None).await.result(), "prompts", "name").is_empty());
    let response = client.get_prompt("haiku", json!({})).await;
    response.assert_error(-32602);
    assert_eq!(response.error()["message"], "Unknown prompt: haiku");

    assert_eq!(
        field(
            client.list_resources(None).await.result(),
            "resources",
            "uri"
        ),
        ["lab://info/readme"]
    );
    let templates = client.list_resource_templates(None).await;
    assert_eq!(
        field(templates.result(), "resourceTemplates", "uriTemplate"),
        ["lab:///items/{id}"]
    );
    client
        .read_resource("lab://info/readme")
        .await
        .assert_resource_text("# Lab");
    client.read_resource("lab:///items/1").await.result();
    for uri in [
        "lab://info/logo",
        "lab:///files/a.md",
        "lab:///runs/67e55044-10b1-426f-9247-bb680e5fe0c8",
    ] {
        let response = client.read_resource(uri).await;
        response.assert_error(not_found);
        assert_eq!(
            response.error()["data"],
            json!({"uri": uri}),
            "a hidden resource looks missing"
        );
    }

    client
        .complete_prompt("welcome", "name", "a")
        .await
        .assert_error(-32602);
    client
        .complete_resource("lab:///files/{+path}", "path", "")
        .await
        .assert_error(-32602);
    let allowed = client
        .complete_resource("lab:///items/{id}", "id", "")
        .await;
    assert_eq!(
        allowed.result()["completion"]["values"],
        json!(["1", "2", "3", "12"])
    );
}

#[tokio::test]
async fn connect_allow_lists_apply_in_the_legacy_era() {
    let mut client = legacy_lab_with("x-role", "guest").await;
    assert_guest_view(&mut client, -32002).await;
}

#[tokio::test]
async fn connect_allow_lists_apply_in_the_modern_era() {
    let mut client = Client::modern(Lab).header("x-role", "guest");
    assert_guest_view(&mut client, -32602).await;
}

#[tokio::test]
async fn allow_lists_set_on_the_session_apply() {
    let mut client = Client::legacy(Lab).await;
    let session = client.session_mut().expect("session");
    session.allowed_tools = Session::allow(["echo"]);
    session.allowed_prompts = Session::allow(Vec::<String>::new());
    session.allowed_resource_templates = Session::allow(["readme", "item"]);
    assert_guest_view(&mut client, -32002).await;
}

#[tokio::test]
async fn allow_lists_can_be_lifted() {
    let mut client = legacy_lab_with("x-role", "guest").await;
    client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .assert_error(-32602);
    let session = client.session_mut().expect("session");
    session.allowed_tools = None;
    client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .assert_tool_text("3");
    assert_eq!(
        field(client.list_tools(None).await.result(), "tools", "name").len(),
        15
    );
}

#[tokio::test]
async fn allow_lists_and_pagination_combine() {
    let mut client = crate::fixture::legacy_paged(Lab, 2).await;
    let session = client.session_mut().expect("session");
    session.allowed_tools = Session::allow(["echo", "words", "clock.now"]);
    let first = client.list_tools(None).await;
    assert_eq!(field(first.result(), "tools", "name"), ["echo", "words"]);
    let cursor = first.result()["nextCursor"]
        .as_str()
        .expect("a second page")
        .to_owned();
    let second = client.list_tools(Some(&cursor)).await;
    assert_eq!(field(second.result(), "tools", "name"), ["clock.now"]);
    assert!(
        second.result().get("nextCursor").is_none(),
        "{}",
        second.json
    );
}

#[tokio::test]
async fn no_header_means_no_allow_list() {
    let mut client = legacy_lab_with("x-role", "staff").await;
    assert_eq!(
        field(client.list_tools(None).await.result(), "tools", "name").len(),
        15
    );
    assert_eq!(
        field(client.list_prompts(None).await.result(), "prompts", "name"),
        ["welcome", "haiku"]
    );
    let session = client.session_mut().expect("session");
    assert!(session.allowed_tools.is_none() && session.allowed_prompts.is_none());
}
