//! The modern (2026-07-28) era: `server/discover`, the `_meta` envelope, `resultType`, caching
//! hints and the methods the era removed.

use phantom::dispatch::Status;
use phantom::testing::Client;
use phantom::{CacheScope, Config, protocol::ProtocolVersion};
use serde_json::{Value, json};

use crate::fixture::{LAB_INSTRUCTIONS, Lab, lab_info, modern_meta, with_meta};

const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

#[tokio::test]
async fn server_discover_describes_the_server() {
    let mut client = Client::modern(Lab);
    let response = client.request("server/discover", json!({})).await;
    assert_eq!(response.status(), &Status::Ok);
    assert_eq!(response.reply.era, phantom::protocol::Era::Modern);
    let result = response.result();
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
    assert_eq!(
        result["supportedVersions"],
        json!(ProtocolVersion::supported_strings())
    );
    assert_eq!(
        result["capabilities"],
        json!({
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "completions": {},
        })
    );
    assert!(
        result["capabilities"].get("logging").is_none(),
        "logging is legacy-only"
    );
    assert_eq!(result["ttlMs"], 0);
    assert_eq!(result["cacheScope"], "private");
    assert_eq!(result["instructions"], LAB_INSTRUCTIONS);
    assert_eq!(result["_meta"], json!({ SERVER_INFO: lab_info() }));
    assert!(
        client.session_mut().is_none(),
        "modern requests keep no session"
    );
}

#[tokio::test]
async fn server_discover_carries_configured_cache_hints() {
    let mut client = Client::modern_with_config(
        Lab,
        Config::default().with_cache(60_000, CacheScope::Public),
    );
    let result = client
        .request("server/discover", json!({}))
        .await
        .result()
        .clone();
    assert_eq!(result["ttlMs"], 60_000);
    assert_eq!(result["cacheScope"], "public");
    let list = client.list_tools(None).await.result().clone();
    assert_eq!(list["ttlMs"], 60_000);
    assert_eq!(list["cacheScope"], "public");
}

#[tokio::test]
async fn every_feature_method_is_complete_with_server_info() {
    let mut client = Client::modern(Lab);
    // (method, params, carries caching hints)
    let cases = [
        ("tools/list", json!({}), true),
        ("prompts/list", json!({}), true),
        ("resources/list", json!({}), true),
        ("resources/templates/list", json!({}), true),
        ("resources/read", json!({"uri": "lab://info/readme"}), true),
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
            false,
        ),
        ("prompts/get", json!({"name": "haiku"}), false),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "welcome"}, "argument": {"name": "name", "value": "a"}}),
            false,
        ),
    ];
    for (method, params, cacheable) in cases {
        let response = client.request(method, params).await;
        let result = response.result();
        assert_eq!(result["resultType"], "complete", "{method}: {result}");
        assert_eq!(
            result["_meta"][SERVER_INFO],
            lab_info(),
            "{method}: {result}"
        );
        assert_eq!(response.status(), &Status::Ok);
        assert_eq!(response.reply.era, phantom::protocol::Era::Modern);
        if cacheable {
            assert_eq!(result["ttlMs"], 0, "{method}: {result}");
            assert_eq!(result["cacheScope"], "private", "{method}: {result}");
        } else {
            assert!(
                result.get("ttlMs").is_none(),
                "{method} has no ttlMs: {result}"
            );
            assert!(
                result.get("cacheScope").is_none(),
                "{method} has no cacheScope: {result}"
            );
        }
    }
}

#[tokio::test]
async fn feature_results_keep_their_payload_next_to_the_envelope_fields() {
    let mut client = Client::modern(Lab);
    let result = client
        .call_tool("echo", json!({"text": "hi"}))
        .await
        .result()
        .clone();
    assert_eq!(result["content"], json!([{"type": "text", "text": "hi"}]));
    let result = client.list_tools(None).await.result().clone();
    assert!(
        result["tools"].as_array().is_some_and(|t| !t.is_empty()),
        "{result}"
    );
    let result = client
        .read_resource("lab://info/readme")
        .await
        .result()
        .clone();
    assert_eq!(
        result["contents"],
        json!([{"uri": "lab://info/readme", "mimeType": "text/plain", "text": "# Lab"}])
    );
}

#[tokio::test]
async fn missing_client_capabilities_is_invalid_params_naming_the_key() {
    let mut client = Client::modern(Lab);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    for method in ["server/discover", "tools/list", "tools/call"] {
        let response = client
            .raw_request(
                method,
                Some(with_meta(json!({"name": "echo"}), meta.clone())),
            )
            .await;
        response.assert_error(-32602);
        assert_eq!(response.status(), &Status::BadRequest);
        assert_eq!(response.reply.era, phantom::protocol::Era::Modern);
        let error = response.error();
        let message = error["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("io.modelcontextprotocol/clientCapabilities"),
            "{message}"
        );
        assert_eq!(
            error["data"],
            json!({"field": "_meta.io.modelcontextprotocol/clientCapabilities"})
        );
    }
}

#[tokio::test]
async fn non_object_client_capabilities_is_invalid_params() {
    let mut client = Client::modern(Lab);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": "all",
    });
    let response = client
        .raw_request("tools/list", Some(with_meta(json!({}), meta)))
        .await;
    response.assert_error(-32602);
    assert_eq!(response.status(), &Status::BadRequest);
    assert_eq!(
        response.error()["data"]["field"],
        "_meta.io.modelcontextprotocol/clientCapabilities"
    );
}

#[tokio::test]
async fn non_string_protocol_version_is_invalid_params() {
    let mut client = Client::modern(Lab);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": 20260728,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let response = client
        .raw_request("tools/list", Some(with_meta(json!({}), meta)))
        .await;
    response.assert_error(-32602);
    assert_eq!(response.status(), &Status::BadRequest);
    assert_eq!(
        response.error()["data"]["field"],
        "_meta.io.modelcontextprotocol/protocolVersion"
    );
}

#[tokio::test]
async fn unsupported_version_is_32022_with_supported_and_requested() {
    let mut client = Client::modern(Lab);
    for requested in ["2099-01-01", "2025-11-25", "banana"] {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": requested,
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let response = client
            .raw_request("tools/list", Some(with_meta(json!({}), meta)))
            .await;
        response.assert_error(-32022);
        assert_eq!(response.status(), &Status::BadRequest);
        let data = &response.error()["data"];
        assert_eq!(data["requested"], requested);
        let supported = data["supported"].as_array().expect("supported is an array");
        assert!(supported.contains(&json!("2026-07-28")), "{data}");
    }
}

#[tokio::test]
async fn client_info_is_not_required() {
    let mut client = Client::modern(Lab);
    let response = client
        .raw_request("server/discover", Some(json!({"_meta": modern_meta()})))
        .await;
    assert_eq!(response.result()["resultType"], "complete");
    let params = with_meta(
        json!({"name": "echo", "arguments": {"text": "no info"}}),
        modern_meta(),
    );
    client
        .raw_request("tools/call", Some(params))
        .await
        .assert_tool_text("no info");
}

#[tokio::test]
async fn malformed_client_info_is_invalid_params() {
    let mut client = Client::modern(Lab);
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/clientInfo"] = json!("me");
    let response = client
        .raw_request("tools/list", Some(with_meta(json!({}), meta)))
        .await;
    response.assert_error(-32602);
    assert_eq!(
        response.error()["data"]["field"],
        "_meta.io.modelcontextprotocol/clientInfo"
    );
}

#[tokio::test]
async fn log_level_is_validated() {
    let mut client = Client::modern(Lab);
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/logLevel"] = json!("debug");
    let response = client
        .raw_request("tools/list", Some(with_meta(json!({}), meta.clone())))
        .await;
    assert_eq!(response.result()["resultType"], "complete");

    meta["io.modelcontextprotocol/logLevel"] = json!("chatty");
    let response = client
        .raw_request("tools/list", Some(with_meta(json!({}), meta)))
        .await;
    response.assert_error(-32602);
    assert_eq!(response.status(), &Status::BadRequest);
    assert_eq!(
        response.error()["data"]["field"],
        "_meta.io.modelcontextprotocol/logLevel"
    );
}

#[tokio::test]
async fn removed_and_unknown_methods_are_method_not_found() {
    let mut client = Client::modern(Lab);
    let initialize = json!({"protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}});
    let cases = [
        ("initialize", initialize),
        ("ping", json!({})),
        ("logging/setLevel", json!({"level": "info"})),
        ("resources/subscribe", json!({"uri": "lab://info/readme"})),
        ("resources/unsubscribe", json!({"uri": "lab://info/readme"})),
        ("tools/frobnicate", json!({})),
    ];
    for (method, params) in cases {
        let response = client.request(method, params).await;
        response.assert_error(-32601);
        assert_eq!(response.status(), &Status::MethodNotFound, "{method}");
        assert_eq!(response.error()["data"], json!({"method": method}));
        assert_eq!(response.reply.era, phantom::protocol::Era::Modern);
    }
    assert!(
        client.session_mut().is_none(),
        "a modern `initialize` creates no session"
    );
}

#[tokio::test]
async fn envelope_errors_win_over_unknown_methods() {
    let mut client = Client::modern(Lab);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2099-01-01"});
    let response = client
        .raw_request("nope", Some(with_meta(json!({}), meta)))
        .await;
    response.assert_error(-32022);
    assert_eq!(response.status(), &Status::BadRequest);
}

#[tokio::test]
async fn modern_requests_are_served_on_a_legacy_session_statelessly() {
    let mut client = Client::legacy(Lab).await;
    client
        .raw_request("logging/setLevel", Some(json!({"level": "error"})))
        .await
        .result();
    let response = client
        .raw_request("tools/list", Some(with_meta(json!({}), modern_meta())))
        .await;
    assert_eq!(response.result()["resultType"], "complete");
    assert_eq!(response.reply.era, phantom::protocol::Era::Modern);
    let session = client.session_mut().expect("legacy session untouched");
    assert_eq!(session.protocol_version, ProtocolVersion::V2025_11_25);
    assert_eq!(session.log_level, Some(phantom::protocol::LogLevel::Error));
}

#[tokio::test]
async fn meta_without_a_version_is_legacy() {
    // `_meta` without `protocolVersion` does not claim the modern era: without a session it is
    // a legacy request before `initialize`.
    let mut client = Client::modern(Lab);
    let meta = json!({"io.modelcontextprotocol/clientCapabilities": {}, "progressToken": 1});
    let response = client
        .raw_request("tools/list", Some(with_meta(json!({}), meta)))
        .await;
    response.assert_error(-32600);
    assert_eq!(response.reply.era, phantom::protocol::Era::Legacy);
    let value: &Value = response.error();
    assert_eq!(value["code"], -32600);
}

#[tokio::test]
async fn a_success_reply_fills_its_buffer_exactly() {
    // The HTTP transport turns a reply's text into the response's `Bytes`: a buffer with room to
    // spare costs it an allocation. Both eras, a tool's result and a list (built another way).
    let mut modern = Client::modern(Lab);
    let mut legacy = Client::legacy(Lab).await;
    for client in [&mut modern, &mut legacy] {
        let call = client
            .request(
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "hi"}}),
            )
            .await;
        call.assert_tool_text("hi");
        let list = client.request("tools/list", json!({})).await;
        assert!(list.result()["tools"].is_array(), "{:?}", list.reply);
        for reply in [&call.reply, &list.reply] {
            assert_eq!(reply.body.len(), reply.body.capacity(), "{}", reply.body);
        }
    }
}
