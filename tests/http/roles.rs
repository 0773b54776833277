//! The `roles` example (`examples/roles.rs`) over real HTTP: opaque bearer tokens verified by
//! `BearerAuth` with a `StaticTokens` table, and `#[tool(scopes = […])]` giving a reader and an
//! admin different tools. Its stdio side runs as a binary in `examples/tests/roles_stdio.rs`.

use http::StatusCode;
use phantom::http::HttpConfig;
use serde_json::{Value, json};

use crate::support::{LEGACY, TestServer, initialize_request, notification, request};

// The example is a binary; its router and config are compiled here as a module so the tests
// drive exactly that code. Its `main` serves the binary only.
#[path = "../../examples/roles.rs"]
#[allow(dead_code)]
mod example;

async fn server() -> TestServer {
    TestServer::start_configured(
        example::Handbook::new(None),
        example::config(),
        HttpConfig::default(),
    )
    .await
}

use super::bearer::modern_call as call;

fn text(body: &Value) -> &str {
    body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn without_a_known_token_every_call_is_401() {
    let server = server().await;
    for tool in ["read_page", "write_page"] {
        let (status, challenge, body) = call(&server, None, tool, json!({})).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{tool}");
        assert_eq!(challenge.as_deref(), Some("Bearer"), "{tool}");
        assert_eq!(body["error"]["code"], -32001, "{body}");
        assert_eq!(body["error"]["message"], "Unauthorized");

        let (status, challenge, body) = call(&server, Some("guessed"), tool, json!({})).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{tool}");
        assert_eq!(
            challenge.as_deref(),
            Some("Bearer error=\"invalid_token\", error_description=\"the token is not known\"")
        );
        assert_eq!(body["error"]["code"], -32001, "{body}");
    }
    // A 2025-11-25 client gets no session without one either.
    let reply = server.post(&initialize_request(LEGACY)).send().await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert!(reply.session_id().is_none());
}

#[tokio::test]
async fn a_reader_reads_and_is_refused_writing_with_insufficient_scope() {
    let server = server().await;
    let reader = Some(example::READER_TOKEN);
    let (status, _, body) = call(&server, reader, "read_page", json!({"name": "welcome"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(text(&body), "Read the handbook before your first on-call.");

    let (status, challenge, body) = call(
        &server,
        reader,
        "write_page",
        json!({"name": "welcome", "text": "gone"}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        challenge.as_deref(),
        Some(
            "Bearer error=\"insufficient_scope\", error_description=\"tool `write_page` needs the scopes `handbook:write`\", scope=\"handbook:write\""
        )
    );
    assert_eq!(body["error"]["code"], -32001, "{body}");
    assert_eq!(
        body["error"]["data"]["requiredScopes"],
        json!(["handbook:write"])
    );

    // The page is unchanged.
    let (_, _, body) = call(&server, reader, "read_page", json!({"name": "welcome"})).await;
    assert_eq!(text(&body), "Read the handbook before your first on-call.");
}

#[tokio::test]
async fn an_admin_writes_and_reads_as_the_principal_of_its_token() {
    let server = server().await;
    let admin = Some(example::ADMIN_TOKEN);
    let (status, _, body) = call(
        &server,
        admin,
        "write_page",
        json!({"name": "on-call", "text": "Page the secondary after 15 minutes."}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(text(&body), "wrote `on-call`");
    let (status, _, body) = call(&server, admin, "read_page", json!({"name": "on-call"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        text(&body),
        "Page the secondary after 15 minutes. (admin)",
        "signed with the token's subject"
    );
}

#[tokio::test]
async fn a_legacy_reader_session_is_refused_writing_too() {
    let server = server().await;
    let bearer = format!("Bearer {}", example::READER_TOKEN);
    let session = {
        let reply = server
            .post(&initialize_request(LEGACY))
            .header("authorization", &bearer)
            .send()
            .await;
        assert_eq!(reply.status, StatusCode::OK, "initialize");
        reply.session_id().expect("a session id")
    };
    let initialized = server
        .post_in(&session, &notification("notifications/initialized"))
        .header("authorization", &bearer)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await;
    assert_eq!(initialized.status, StatusCode::ACCEPTED);
    let write = request(
        2,
        "tools/call",
        json!({"name": "write_page", "arguments": {"name": "x", "text": "y"}}),
    );
    let refused = server
        .post_in(&session, &write)
        .header("authorization", &bearer)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .expect_error(StatusCode::FORBIDDEN, -32001)
        .await;
    assert_eq!(refused["data"]["requiredScopes"], json!(["handbook:write"]));
}
