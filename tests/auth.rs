//! The `auth` example (`examples/auth.rs`): bearer tokens checked in `connect`, a principal and
//! allow-lists per role, and the token of a stdio session taken from the environment. Each case
//! runs in both eras, with the test client sending the headers from the first message on.

// The example is a binary; its router is compiled here as a module so the tests drive exactly
// that code. Its `main` and argument parsing serve the binary only.
#[path = "../examples/auth.rs"]
#[allow(dead_code)]
mod example;

use example::{ADMIN_TOKEN, Bookmarks, READER_TOKEN};
use phantom::dispatch::Status;
use phantom::prelude::*;
use phantom::protocol::Era;
use phantom::testing::{Builder, Client};
use serde_json::json;

/// A client of each era, set up by `setup` before it sends anything.
async fn both_eras(
    setup: impl Fn(Builder<Bookmarks>) -> Builder<Bookmarks>,
) -> [Client<Bookmarks>; 2] {
    let legacy = setup(Client::builder(Bookmarks::new(None))).legacy().await;
    let modern = setup(Client::builder(Bookmarks::new(None))).modern();
    [legacy, modern]
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// Sends the first message of an era: `initialize` (legacy) or `tools/list` (modern).
async fn first_message(client: &mut Client<Bookmarks>) -> phantom::testing::Response {
    match client.era() {
        Era::Legacy => client.initialize("2025-11-25").await,
        Era::Modern => client.list_tools(None).await,
    }
}

#[tokio::test]
async fn no_token_is_a_bare_challenge_and_an_unknown_one_is_invalid_token() {
    for (header, challenge) in [
        (None, WwwAuthenticate::bearer()),
        (
            Some("Bearer guessed"),
            WwwAuthenticate::bearer().error("invalid_token"),
        ),
        (Some("Basic YWRtaW46YWRtaW4="), WwwAuthenticate::bearer()),
    ] {
        for era in [Era::Legacy, Era::Modern] {
            let mut builder = Client::builder(Bookmarks::new(None));
            if let Some(value) = header {
                builder = builder.header("authorization", value);
            }
            let mut client = match era {
                Era::Legacy => builder.uninitialized(),
                Era::Modern => builder.modern(),
            };
            let refused = first_message(&mut client).await;
            assert_eq!(
                refused.status(),
                &Status::Unauthorized(Box::new(challenge.clone())),
                "{header:?} {era:?}"
            );
            refused.assert_error(-32001);
            assert_eq!(refused.error()["message"], "Unauthorized");
            assert!(client.session_mut().is_none(), "no session for {header:?}");
        }
    }
}

#[tokio::test]
async fn a_reader_sees_and_calls_search_only() {
    for mut client in both_eras(|b| b.header("authorization", &bearer(READER_TOKEN))).await {
        let era = client.era();
        assert_eq!(
            client.list_tools(None).await.tool_names(),
            ["search"],
            "{era:?}"
        );
        assert!(client.list_prompts(None).await.prompt_names().is_empty());
        assert!(client.list_resources(None).await.resource_uris().is_empty());
        assert!(
            client
                .list_resource_templates(None)
                .await
                .template_uris()
                .is_empty()
        );

        let hits = client.call_tool("search", json!({"query": "rust"})).await;
        assert_eq!(
            hits.result()["structuredContent"]["result"][0]["id"],
            2,
            "{}",
            hits.json
        );

        // What a reader may not use answers like a name that does not exist.
        for tool in ["add", "whoami"] {
            let hidden = client
                .call_tool(tool, json!({"url": "https://x", "title": "x"}))
                .await;
            hidden.assert_error(-32602);
            assert_eq!(hidden.error()["message"], format!("Unknown tool: {tool}"));
        }
        client
            .get_prompt("summarize", json!({"id": "1"}))
            .await
            .assert_error(-32602);
        let not_found = if era == Era::Legacy { -32002 } else { -32602 };
        client
            .read_resource("bookmarks:///bookmarks/1")
            .await
            .assert_error(not_found);
    }
}

#[tokio::test]
async fn an_admin_sees_everything_and_is_named_as_the_principal() {
    for mut client in both_eras(|b| b.header("authorization", &bearer(ADMIN_TOKEN))).await {
        assert_eq!(
            client.list_tools(None).await.tool_names(),
            ["search", "add", "whoami"]
        );
        assert_eq!(
            client.list_prompts(None).await.prompt_names(),
            ["summarize"]
        );
        assert_eq!(
            client.list_resource_templates(None).await.template_uris(),
            ["bookmarks:///bookmarks/{id}"]
        );
        client
            .call_tool("whoami", json!({}))
            .await
            .assert_tool_text("admin");
        client
            .call_tool("add", json!({"url": "https://tokio.rs", "title": "Tokio"}))
            .await
            .assert_tool_text("added bookmark 3");
        client
            .read_resource("bookmarks:///bookmarks/3")
            .await
            .assert_resource_text(r#"{"id":3,"url":"https://tokio.rs","title":"Tokio"}"#);
        client
            .get_prompt("summarize", json!({"id": "1"}))
            .await
            .assert_prompt_message(
                0,
                "user",
                "Summarize Model Context Protocol (https://modelcontextprotocol.io).",
            );
    }
}

#[tokio::test]
async fn a_legacy_session_keeps_its_principal() {
    let mut client = Client::builder(Bookmarks::new(None))
        .header("authorization", &bearer(READER_TOKEN))
        .legacy()
        .await;
    let session = client.session_mut().expect("initialized");
    assert_eq!(session.principal.as_deref(), Some("reader"));
    assert!(
        session
            .allowed_prompts
            .as_ref()
            .is_some_and(|l| l.is_empty())
    );
}

#[tokio::test]
async fn over_stdio_the_token_comes_from_the_environment_not_a_header() {
    // The process was started with BOOKMARKS_TOKEN=admin-token; a header (which stdio cannot
    // carry) does not change who the client is.
    let mut client = Client::builder(Bookmarks::new(Some(ADMIN_TOKEN.into())))
        .transport(Transport::Stdio)
        .header("authorization", &bearer(READER_TOKEN))
        .legacy()
        .await;
    client
        .call_tool("whoami", json!({}))
        .await
        .assert_tool_text("admin");

    let mut reader = Client::builder(Bookmarks::new(Some(READER_TOKEN.into())))
        .transport(Transport::Stdio)
        .legacy()
        .await;
    assert_eq!(reader.list_tools(None).await.tool_names(), ["search"]);

    // Without BOOKMARKS_TOKEN, initialize is refused with the JSON-RPC error.
    let mut anonymous = Client::builder(Bookmarks::new(None))
        .transport(Transport::Stdio)
        .uninitialized();
    anonymous
        .initialize("2025-11-25")
        .await
        .assert_error(-32001);
}

#[tokio::test]
async fn a_bad_argument_is_a_tool_error_for_an_admin() {
    let mut client = Client::builder(Bookmarks::new(None))
        .header("authorization", &bearer(ADMIN_TOKEN))
        .modern();
    client
        .call_tool("add", json!({"url": "http://plain", "title": "x"}))
        .await
        .assert_tool_error("`url` must start with https://");
    let missing = client.get_prompt("summarize", json!({"id": "9"})).await;
    missing.assert_error(-32602);
    assert_eq!(missing.error()["message"], "no bookmark 9");
}
