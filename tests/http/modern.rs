//! The 2026-07-28 era over HTTP: stateless POSTs, the `_meta` envelope and the standard headers
//! (SEP-2243) with their `-32020` mismatches.

use http::StatusCode;
use phantom::http::HttpConfig;
use serde_json::json;

use crate::support::{MODERN, TestServer, first_text, modern_request};

fn echo_params() -> serde_json::Value {
    json!({"name": "echo", "arguments": {"text": "modern"}})
}

#[tokio::test]
async fn a_modern_tools_call_is_200_json_without_a_session() {
    let server = TestServer::start(HttpConfig::default()).await;
    let reply = server.post_modern("tools/call", echo_params()).send().await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(
        reply.session_id().is_none(),
        "modern requests never get a session"
    );
    let body = reply.json().await;
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(first_text(&body["result"]), "echo: modern");
}

#[tokio::test]
async fn a_modern_session_id_header_is_ignored() {
    let server = TestServer::start(HttpConfig::default()).await;
    let reply = server
        .post_modern("server/discover", json!({}))
        .header("mcp-session-id", "whatever")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.session_id().is_none());
    let body = reply.json().await;
    assert_eq!(body["result"]["supportedVersions"][0], MODERN, "{body}");
}

#[tokio::test]
async fn a_modern_notification_is_202() {
    let server = TestServer::start(HttpConfig::default()).await;
    let body = json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 1, "_meta": crate::support::modern_meta()},
    });
    let reply = server
        .post(&body)
        .header("mcp-protocol-version", MODERN)
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert!(reply.bytes().await.is_empty());
}

#[tokio::test]
async fn a_missing_client_capabilities_key_is_400_invalid_params() {
    let server = TestServer::start(HttpConfig::default()).await;
    let params = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}});
    let error = server
        .post_modern("server/discover", params)
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32602)
        .await;
    assert_eq!(
        error["data"]["field"],
        "_meta.io.modelcontextprotocol/clientCapabilities"
    );
}

#[tokio::test]
async fn an_unsupported_modern_version_is_400_with_32022() {
    let server = TestServer::start(HttpConfig::default()).await;
    let body = modern_request(
        4,
        "server/discover",
        json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "1900-01-01",
            "io.modelcontextprotocol/clientCapabilities": {},
        }}),
    );
    let reply = server
        .post(&body)
        .header("mcp-protocol-version", "1900-01-01")
        .header("mcp-method", "server/discover")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json().await;
    assert_eq!(body["id"], 4);
    assert_eq!(body["error"]["code"], -32022, "{body}");
    assert_eq!(body["error"]["data"]["requested"], "1900-01-01");
    assert_eq!(body["error"]["data"]["supported"], json!([MODERN]));
}

#[tokio::test]
async fn unknown_and_removed_methods_are_404_with_32601() {
    let server = TestServer::start(HttpConfig::default()).await;
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "no/such",
    ] {
        let error = server
            .post_modern(method, json!({}))
            .send()
            .await
            .expect_error(StatusCode::NOT_FOUND, -32601)
            .await;
        assert_eq!(error["data"]["method"], method);
    }
}

#[tokio::test]
async fn the_version_header_must_match_the_envelope() {
    let server = TestServer::start(HttpConfig::default()).await;
    let missing = server
        .post_modern("tools/list", json!({}))
        .set_header("mcp-protocol-version", None);
    let error = missing
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32020)
        .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("MCP-Protocol-Version"),
        "{error}"
    );

    let wrong = server
        .post_modern("tools/list", json!({}))
        .set_header("mcp-protocol-version", Some("2025-11-25"));
    let reply = wrong.send().await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json().await;
    assert_eq!(body["id"], 1, "the request id is kept");
    assert_eq!(body["error"]["code"], -32020);
}

#[tokio::test]
async fn the_method_header_must_match_the_body() {
    let server = TestServer::start(HttpConfig::default()).await;
    let missing = server
        .post_modern("tools/list", json!({}))
        .set_header("mcp-method", None);
    let error = missing
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32020)
        .await;
    assert_eq!(
        error["message"],
        "Header mismatch: missing Mcp-Method header; expected 'Mcp-Method: tools/list'"
    );

    let wrong = server
        .post_modern("tools/list", json!({}))
        .set_header("mcp-method", Some("prompts/list"));
    let error = wrong
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32020)
        .await;
    assert!(
        error["message"].as_str().unwrap().contains("prompts/list"),
        "{error}"
    );

    // Values are case-sensitive.
    let cased = server
        .post_modern("tools/list", json!({}))
        .set_header("mcp-method", Some("Tools/List"));
    cased
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32020)
        .await;
}

#[tokio::test]
async fn the_name_header_must_match_the_tool_prompt_or_uri() {
    let server = TestServer::start(HttpConfig::default()).await;
    // A missing header is refused with the value that was expected.
    for (method, params, expected) in [
        (
            "tools/call",
            echo_params(),
            "'Mcp-Name: echo' (the body's params.name)",
        ),
        (
            "resources/read",
            json!({"uri": "lab:///notes/1"}),
            "'Mcp-Name: lab:///notes/1' (the body's params.uri)",
        ),
    ] {
        let missing = server
            .post_modern(method, params)
            .set_header("mcp-name", None);
        let error = missing
            .send()
            .await
            .expect_error(StatusCode::BAD_REQUEST, -32020)
            .await;
        assert_eq!(
            error["message"],
            format!("Header mismatch: missing Mcp-Name header; expected {expected}")
        );
    }

    let wrong = server
        .post_modern("tools/call", echo_params())
        .set_header("mcp-name", Some("other"));
    let error = wrong
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32020)
        .await;
    assert!(
        error["message"].as_str().unwrap().contains("other"),
        "{error}"
    );

    let uri = json!({"uri": "lab:///notes/3"});
    let reply = server
        .post_modern("resources/read", uri.clone())
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.json().await["result"]["contents"][0]["text"],
        "note 3"
    );
    let wrong = server
        .post_modern("resources/read", uri)
        .set_header("mcp-name", Some("lab:///notes/4"));
    wrong
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32020)
        .await;
}

#[tokio::test]
async fn header_values_may_be_base64_encoded_and_padded_with_whitespace() {
    let server = TestServer::start(HttpConfig::default()).await;
    // "echo" and "tools/call" in the `=?base64?…?=` form.
    let encoded = server
        .post_modern("tools/call", echo_params())
        .set_header("mcp-name", Some("=?base64?ZWNobw==?="))
        .set_header("mcp-method", Some("=?base64?dG9vbHMvY2FsbA==?="));
    let reply = encoded.send().await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(first_text(&reply.json().await["result"]), "echo: modern");

    let padded = server
        .post_modern("tools/call", echo_params())
        .set_header("mcp-name", Some("  echo\t"))
        .set_header("mcp-method", Some(" tools/call "))
        .set_header("mcp-protocol-version", Some(&format!("  {MODERN} ")));
    assert_eq!(padded.send().await.status, StatusCode::OK);

    // "other", encoded: decoded before comparing, so still a mismatch.
    let wrong = server
        .post_modern("tools/call", echo_params())
        .set_header("mcp-name", Some("=?base64?b3RoZXI=?="));
    wrong
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32020)
        .await;

    let invalid = server
        .post_modern("tools/call", echo_params())
        .set_header("mcp-name", Some("=?base64?***?="));
    let error = invalid
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32020)
        .await;
    assert!(
        error["message"].as_str().unwrap().contains("invalid"),
        "{error}"
    );
}

#[tokio::test]
async fn a_non_ascii_uri_is_matched_through_base64() {
    let server = TestServer::start(HttpConfig::default()).await;
    // The URI does not resolve (the id is not a number), but the headers agree, so the request
    // reaches the dispatcher: a JSON-RPC error with 200, not a -32020 with 400.
    let uri = "lab:///notes/é";
    let reply = server
        .post(&modern_request(1, "resources/read", json!({"uri": uri})))
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "resources/read")
        .header("mcp-name", "=?base64?bGFiOi8vL25vdGVzL8Op?=")
        .send()
        .await;
    let status = reply.status;
    let body = reply.json().await;
    assert_ne!(body["error"]["code"], -32020, "{body}");
    assert_ne!(status, StatusCode::BAD_REQUEST, "{body}");
}

#[tokio::test]
async fn a_modern_batch_is_rejected() {
    let server = TestServer::start(HttpConfig::default()).await;
    let batch = json!([modern_request(1, "tools/list", json!({}))]);
    let reply = server
        .post(&batch)
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/list")
        .send()
        .await;
    // An array carries no `_meta` claim, so the modern version header has nothing to agree with.
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json().await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
}
