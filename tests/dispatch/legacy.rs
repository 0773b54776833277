//! The legacy (≤ 2025-11-25) era: `initialize`, sessions, `ping`, logging, batches.

use phantom::dispatch::Status;
use phantom::testing::Client;
use phantom::{
    Config,
    protocol::{LogLevel, ProtocolVersion},
};
use serde_json::{Value, json};

use crate::fixture::{LAB_INSTRUCTIONS, Lab, lab_info};

fn body(reply: &phantom::dispatch::Reply) -> Value {
    serde_json::from_str(&reply.body).expect("the dispatcher writes valid JSON")
}

#[tokio::test]
async fn initialize_echoes_every_supported_legacy_version() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut client = Client::uninitialized(Lab, Config::default());
        let response = client.initialize(version).await;
        let result = response.result();
        assert_eq!(result["protocolVersion"], version);
        assert_eq!(result["serverInfo"], lab_info());
        assert_eq!(result["instructions"], LAB_INSTRUCTIONS);
        assert!(
            result.get("resultType").is_none(),
            "legacy results carry no resultType: {result}"
        );
        assert!(
            result.get("_meta").is_none(),
            "legacy results carry no _meta: {result}"
        );
        assert_eq!(response.status(), &Status::Ok);
        assert_eq!(response.reply.era, phantom::protocol::Era::Legacy);
        let session = client
            .session_mut()
            .expect("initialize creates the session");
        assert_eq!(session.protocol_version.as_str(), version);
        assert_eq!(
            session.client_info.as_ref().map(|i| i.name.as_str()),
            Some("phantom-testing")
        );
    }
}

#[tokio::test]
async fn initialize_negotiates_an_unsupported_version_down() {
    let cases = [
        ("2099-01-01", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("2025-01-01", "2024-11-05"),
        ("2025-07-01", "2025-06-18"),
        ("not-a-version", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ];
    for (requested, expected) in cases {
        let mut client = Client::uninitialized(Lab, Config::default());
        let response = client.initialize(requested).await;
        assert_eq!(
            response.result()["protocolVersion"],
            expected,
            "requested {requested}"
        );
        let session = client.session_mut().expect("session");
        assert_eq!(session.protocol_version.as_str(), expected);
        assert!(!session.is_modern());
    }
}

#[tokio::test]
async fn initialize_without_protocol_version_is_invalid_params() {
    let mut client = Client::uninitialized(Lab, Config::default());
    let params = json!({"capabilities": {}, "clientInfo": {"name": "x", "version": "1"}});
    let response = client.raw_request("initialize", Some(params)).await;
    response.assert_error(-32602);
    let message = response.error()["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("protocolVersion"),
        "message names the field: {message}"
    );
    assert!(
        client.session_mut().is_none(),
        "a failed initialize creates no session"
    );
}

#[tokio::test]
async fn initialize_with_non_object_capabilities_is_invalid_params() {
    let mut client = Client::uninitialized(Lab, Config::default());
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": ["sampling"]});
    client
        .raw_request("initialize", Some(params))
        .await
        .assert_error(-32602);
    assert!(client.session_mut().is_none());
}

#[tokio::test]
async fn initialize_records_client_capabilities() {
    let mut client = Client::uninitialized(Lab, Config::default())
        .capabilities(json!({"sampling": {}, "roots": null}));
    client.initialize("2025-11-25").await.result();
    let session = client.session_mut().expect("session");
    assert_eq!(
        *session.client_capabilities,
        json!({"sampling": {}, "roots": null})
    );
    assert!(session.client_supports("sampling"));
    assert!(!session.client_supports("roots"));
    assert!(!session.client_supports("elicitation"));
}

#[tokio::test]
async fn second_initialize_is_an_invalid_request() {
    let mut client = Client::legacy(Lab).await;
    let response = client.initialize("2025-06-18").await;
    response.assert_error(-32600);
    assert_eq!(response.status(), &Status::BadRequest);
    let session = client.session_mut().expect("the first session survives");
    assert_eq!(session.protocol_version, ProtocolVersion::V2025_11_25);
}

#[tokio::test]
async fn notifications_get_no_reply() {
    let mut client = Client::uninitialized(Lab, Config::default());
    client.initialize("2025-11-25").await.result();
    assert!(
        client
            .notify("notifications/initialized", None)
            .await
            .is_none()
    );
    assert!(
        client
            .notify("notifications/cancelled", Some(json!({"requestId": 1})))
            .await
            .is_none()
    );
    assert!(client.notify("notifications/unknown", None).await.is_none());
    // A response to a request this server never sent is refused, with no id (HTTP 400).
    let response = r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#;
    let reply = client.send(response).await.expect("a refusal");
    assert_eq!(reply.status, Status::BadRequest);
    let body: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(body["id"], serde_json::Value::Null);
    assert_eq!(body["error"]["code"], -32600);
    assert!(
        body["error"]["message"].as_str().unwrap().contains("s1"),
        "{body}"
    );
}

#[tokio::test]
async fn ping_answers_an_empty_result_before_and_after_initialize() {
    let mut client = Client::uninitialized(Lab, Config::default());
    let response = client.raw_request("ping", None).await;
    assert_eq!(response.result(), &json!({}));
    assert_eq!(response.json["id"], 1);
    client.initialize("2025-11-25").await.result();
    let response = client.raw_request("ping", Some(json!({}))).await;
    assert_eq!(
        response.json,
        json!({"jsonrpc": "2.0", "id": 3, "result": {}})
    );
}

#[tokio::test]
async fn string_request_ids_are_echoed() {
    let mut client = Client::legacy(Lab).await;
    let reply = client
        .send(r#"{"jsonrpc":"2.0","id":"abc-1","method":"ping"}"#)
        .await
        .expect("reply");
    assert_eq!(
        body(&reply),
        json!({"jsonrpc": "2.0", "id": "abc-1", "result": {}})
    );
}

#[tokio::test]
async fn request_before_initialize_is_an_invalid_request() {
    let mut client = Client::uninitialized(Lab, Config::default());
    for method in [
        "tools/list",
        "tools/call",
        "resources/read",
        "logging/setLevel",
        "nope/nope",
    ] {
        let response = client.raw_request(method, Some(json!({}))).await;
        response.assert_error(-32600);
        assert_eq!(response.status(), &Status::BadRequest, "{method}");
        let message = response.error()["message"].as_str().unwrap_or_default();
        assert!(message.contains("initialize"), "{message}");
    }
}

#[tokio::test]
async fn unknown_method_is_method_not_found() {
    let mut client = Client::legacy(Lab).await;
    let response = client
        .raw_request("tools/frobnicate", Some(json!({})))
        .await;
    response.assert_error(-32601);
    assert_eq!(
        response.error()["data"],
        json!({"method": "tools/frobnicate"})
    );
    assert_eq!(response.status(), &Status::Ok);
    // Methods of the modern era only, or of client features, are unknown as well.
    for method in ["subscriptions/listen", "sampling/createMessage"] {
        client
            .raw_request(method, Some(json!({})))
            .await
            .assert_error(-32601);
    }
}

#[tokio::test]
async fn server_discover_without_the_envelope_is_invalid_params() {
    let mut client = Client::legacy(Lab).await;
    let response = client.raw_request("server/discover", Some(json!({}))).await;
    response.assert_error(-32602);
    assert_eq!(response.status(), &Status::BadRequest);
    let message = response.error()["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("io.modelcontextprotocol/protocolVersion"),
        "{message}"
    );
}

#[tokio::test]
async fn logging_set_level_sets_the_session_level() {
    let mut client = Client::legacy(Lab).await;
    assert_eq!(client.session_mut().expect("session").log_level, None);
    let response = client
        .raw_request("logging/setLevel", Some(json!({"level": "warning"})))
        .await;
    assert_eq!(response.result(), &json!({}));
    assert_eq!(
        client.session_mut().expect("session").log_level,
        Some(LogLevel::Warning)
    );
    client
        .raw_request("logging/setLevel", Some(json!({"level": "emergency"})))
        .await
        .result();
    assert_eq!(
        client.session_mut().expect("session").log_level,
        Some(LogLevel::Emergency)
    );
}

#[tokio::test]
async fn logging_set_level_rejects_an_invalid_level() {
    let mut client = Client::legacy(Lab).await;
    client
        .raw_request("logging/setLevel", Some(json!({"level": "info"})))
        .await
        .result();
    for params in [
        json!({"level": "verbose"}),
        json!({"level": 3}),
        json!({}),
        json!({"level": "INFO"}),
    ] {
        let response = client
            .raw_request("logging/setLevel", Some(params.clone()))
            .await;
        response.assert_error(-32602);
        let message = response.error()["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("`level`"),
            "message names `level` for {params}: {message}"
        );
        assert_eq!(response.error()["data"], json!({"field": "level"}));
    }
    assert_eq!(
        client.session_mut().expect("session").log_level,
        Some(LogLevel::Info),
        "level unchanged"
    );
}

#[tokio::test]
async fn legacy_results_carry_no_modern_fields() {
    let mut client = Client::legacy(Lab).await;
    let responses = [
        client.list_tools(None).await,
        client.list_prompts(None).await,
        client.list_resources(None).await,
        client.list_resource_templates(None).await,
        client.read_resource("lab://info/readme").await,
        client.call_tool("echo", json!({"text": "x"})).await,
        client.get_prompt("haiku", json!({})).await,
        client.complete_prompt("welcome", "name", "a").await,
    ];
    for response in responses {
        let result = response.result();
        for key in ["resultType", "ttlMs", "cacheScope", "_meta"] {
            assert!(
                result.get(key).is_none(),
                "legacy result has `{key}`: {result}"
            );
        }
        assert_eq!(response.reply.era, phantom::protocol::Era::Legacy);
    }
}

#[tokio::test]
async fn batches_are_rejected_for_2025_11_25_and_2025_06_18_sessions() {
    for version in ["2025-11-25", "2025-06-18"] {
        let mut client = Client::uninitialized(Lab, Config::default());
        client.initialize(version).await.result();
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]"#;
        let reply = client.send(batch).await.expect("a batch gets a reply");
        assert_eq!(reply.status, Status::BadRequest);
        let json = body(&reply);
        assert_eq!(json["error"]["code"], -32600, "{version}: {json}");
        assert_eq!(json["id"], Value::Null);
    }
}

#[tokio::test]
async fn batches_are_rejected_before_initialize() {
    let mut client = Client::uninitialized(Lab, Config::default());
    let reply = client
        .send(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
        .await
        .expect("reply");
    assert_eq!(body(&reply)["error"]["code"], -32600);
    assert_eq!(reply.status, Status::BadRequest);
}

#[tokio::test]
async fn batches_are_accepted_for_2025_03_26_sessions() {
    let mut client = Client::uninitialized(Lab, Config::default());
    client.initialize("2025-03-26").await.result();
    let batch = r#"[
        {"jsonrpc":"2.0","id":10,"method":"ping"},
        {"jsonrpc":"2.0","method":"notifications/initialized"},
        {"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"text":"batched"}}},
        {"jsonrpc":"2.0","id":12,"method":"nope"}
    ]"#;
    let reply = client
        .send(batch)
        .await
        .expect("a batch with requests gets a reply");
    assert_eq!(reply.status, Status::Ok);
    let json = body(&reply);
    let items = json.as_array().expect("a batch reply is an array");
    assert_eq!(items.len(), 3, "the notification gets no entry: {json}");
    assert_eq!(items[0], json!({"jsonrpc": "2.0", "id": 10, "result": {}}));
    assert_eq!(items[1]["id"], 11);
    assert_eq!(
        items[1]["result"]["content"],
        json!([{"type": "text", "text": "batched"}])
    );
    assert_eq!(items[2]["id"], 12);
    assert_eq!(items[2]["error"]["code"], -32601);

    let only_notifications = r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#;
    assert!(client.send(only_notifications).await.is_none());

    let empty = client.send("[]").await.expect("an empty batch is an error");
    assert_eq!(body(&empty)["error"]["code"], -32600);
}

#[tokio::test]
async fn a_batch_cannot_carry_a_modern_request() {
    let mut client = Client::uninitialized(Lab, Config::default());
    client.initialize("2025-03-26").await.result();
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{}}}}]"#;
    let reply = client.send(batch).await.expect("reply");
    assert_eq!(body(&reply)["error"]["code"], -32600);
    assert_eq!(reply.status, Status::BadRequest);
}
