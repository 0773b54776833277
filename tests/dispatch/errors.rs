//! `connect` rejections and malformed messages.

use phantom::dispatch::Status;
use phantom::testing::Client;
use phantom::{Config, auth::WwwAuthenticate};
use serde_json::{Value, json};

use crate::fixture::Lab;

fn expected_challenge() -> WwwAuthenticate {
    WwwAuthenticate::bearer()
        .resource_metadata("https://lab.example/.well-known/oauth-protected-resource")
        .scope("lab:read")
}

/// (`x-role`, expected status, expected message)
fn rejections() -> [(&'static str, Status, &'static str); 5] {
    [
        (
            "anonymous",
            Status::Unauthorized(Box::new(expected_challenge())),
            "Unauthorized",
        ),
        ("banned", Status::Forbidden, "banned from the lab"),
        ("expired", Status::SessionNotFound, "session expired"),
        ("broken", Status::BadRequest, "broken credentials"),
        (
            "reader",
            Status::InsufficientScope(Box::new(
                WwwAuthenticate::insufficient_scope(["lab:write"])
                    .error_description("this request needs the scopes `lab:write`"),
            )),
            "Insufficient scope: this request needs `lab:write`",
        ),
    ]
}

#[tokio::test]
async fn connect_rejections_map_to_statuses_on_initialize() {
    for (role, status, message) in rejections() {
        let mut client = Client::uninitialized(Lab, Config::default()).header("x-role", role);
        let response = client.initialize("2025-11-25").await;
        assert_eq!(response.status(), &status, "{role}");
        response.assert_error(-32001);
        assert_eq!(response.error()["message"], message);
        assert!(
            client.session_mut().is_none(),
            "{role}: a rejected initialize creates no session"
        );
        // Still no session: the next request is refused as before `initialize`.
        client.list_tools(None).await.assert_error(-32600);
    }
}

#[tokio::test]
async fn connect_rejections_map_to_statuses_on_modern_requests() {
    for (role, status, message) in rejections() {
        let mut client = Client::modern(Lab).header("x-role", role);
        for method in ["server/discover", "tools/list", "tools/call"] {
            let response = client
                .request(method, json!({"name": "echo", "arguments": {"text": "x"}}))
                .await;
            assert_eq!(response.status(), &status, "{role} {method}");
            response.assert_error(-32001);
            assert_eq!(response.error()["message"], message);
            assert_eq!(response.reply.era, phantom::protocol::Era::Modern);
        }
    }
}

#[tokio::test]
async fn the_unauthorized_challenge_is_rfc_9728() {
    let challenge = expected_challenge().to_string();
    assert_eq!(
        challenge,
        r#"Bearer scope="lab:read", resource_metadata="https://lab.example/.well-known/oauth-protected-resource""#
    );
}

#[tokio::test]
async fn parse_error_is_32700_with_a_null_id() {
    let mut client = Client::legacy(Lab).await;
    let reply = client
        .send("{not json")
        .await
        .expect("a parse error gets a reply");
    assert_eq!(reply.status, Status::BadRequest);
    let json: Value = serde_json::from_str(&reply.body).expect("JSON");
    assert_eq!(json["error"]["code"], -32700);
    assert_eq!(json["id"], Value::Null);
    assert_eq!(json["jsonrpc"], "2.0");
}

#[tokio::test]
async fn malformed_requests_are_32600() {
    let mut client = Client::legacy(Lab).await;
    let cases = [
        (r#"{"id":1,"method":"ping"}"#, json!(1)),
        (r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#, json!(2)),
        (r#"{"jsonrpc":"2.0","id":3}"#, json!(3)),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}"#,
            json!(4),
        ),
        ("42", Value::Null),
    ];
    for (text, id) in cases {
        let reply = client
            .send(text)
            .await
            .expect("an invalid request gets a reply");
        let json: Value = serde_json::from_str(&reply.body).expect("JSON");
        assert_eq!(json["error"]["code"], -32600, "{text}: {json}");
        assert_eq!(json["id"], id, "{text}: {json}");
        assert_eq!(reply.status, Status::BadRequest);
    }
}

#[tokio::test]
async fn malformed_list_params_are_invalid_params() {
    let mut client = Client::legacy(Lab).await;
    client
        .request("tools/list", json!({"cursor": ["a"]}))
        .await
        .assert_error(-32602);
    client
        .request("tools/call", json!({"name": 5}))
        .await
        .assert_error(-32602);
    client
        .request("resources/read", json!({"uri": null}))
        .await
        .assert_error(-32602);
}
