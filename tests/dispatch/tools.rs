//! `tools/list` and `tools/call`: return kinds, schemas, argument validation and failures.

use phantom::testing::{Client, Response};
use serde_json::{Value, json};

use crate::fixture::{Lab, modern_meta, with_meta};

/// `Lab`'s tool descriptor by name, from the first page of `tools/list`.
async fn tool(client: &mut Client<Lab>, name: &str) -> Value {
    let list = client.list_tools(None).await;
    list.result()["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == name))
        .cloned()
        .unwrap_or_else(|| panic!("no tool `{name}` in {}", list.json))
}

/// Calls a tool in both eras and returns both responses.
async fn both(name: &str, arguments: Value) -> [Response; 2] {
    let mut legacy = Client::legacy(Lab).await;
    let mut modern = Client::modern(Lab);
    [
        legacy.call_tool(name, arguments.clone()).await,
        modern.call_tool(name, arguments).await,
    ]
}

#[tokio::test]
async fn tools_list_in_declaration_order() {
    let mut client = Client::legacy(Lab).await;
    let list = client.list_tools(None).await;
    let names: Vec<&str> = list.result()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "echo",
            "add",
            "stats",
            "words",
            "divide",
            "boom",
            "paint",
            "page",
            "top",
            "register",
            "enrol",
            "hello",
            "whoami",
            "picture",
            "clock.now"
        ]
    );
    assert!(
        list.result().get("nextCursor").is_none(),
        "one page: {}",
        list.json
    );
    // The order is the same on every call and in both eras.
    let again = client.list_tools(None).await;
    assert_eq!(list.result()["tools"], again.result()["tools"]);
    let modern = Client::modern(Lab).list_tools(None).await;
    assert_eq!(list.result()["tools"], modern.result()["tools"]);
}

#[tokio::test]
async fn text_tool() {
    for response in both("echo", json!({"text": "héllo"})).await {
        response.assert_tool_text("héllo");
        assert_eq!(
            response.result()["content"],
            json!([{"type": "text", "text": "héllo"}])
        );
        assert!(
            response.result().get("isError").is_none(),
            "success omits isError: {}",
            response.json
        );
        assert!(response.result().get("structuredContent").is_none());
    }
    let mut client = Client::legacy(Lab).await;
    client
        .call_tool("add", json!({"a": 2, "b": -5}))
        .await
        .assert_tool_text("-3");
}

#[tokio::test]
async fn text_tool_descriptor() {
    let mut client = Client::legacy(Lab).await;
    assert_eq!(
        tool(&mut client, "echo").await,
        json!({
            "name": "echo",
            "description": "Say it back.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": false,
            },
        })
    );
    let hello = tool(&mut client, "hello").await;
    assert_eq!(
        hello["inputSchema"]["properties"]["name"]["description"],
        "who to greet"
    );
    assert!(
        hello["inputSchema"].get("required").is_none(),
        "an Option argument is not required: {hello}"
    );
}

#[tokio::test]
async fn json_object_output() {
    for response in both("stats", json!({"values": [1.5, 2.5, 4]})).await {
        let expected = json!({"count": 3, "sum": 8.0});
        response.assert_tool_structured(&expected);
        let text = response.result()["content"][0]["text"]
            .as_str()
            .expect("a text copy");
        assert_eq!(
            serde_json::from_str::<Value>(text).expect("the text copy is JSON"),
            expected
        );
    }
    let mut client = Client::legacy(Lab).await;
    let schema = &tool(&mut client, "stats").await["outputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["count"]["type"], "integer");
    assert_eq!(schema["properties"]["sum"]["type"], "number");
    let mut required: Vec<&str> = schema["required"]
        .as_array()
        .expect("required")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    required.sort_unstable();
    assert_eq!(required, ["count", "sum"]);
}

#[tokio::test]
async fn non_object_output_is_wrapped_in_result() {
    for response in both("words", json!({"text": "one two  three"})).await {
        response.assert_tool_structured(&json!({"result": 3}));
        let text = response.result()["content"][0]["text"]
            .as_str()
            .expect("a text copy");
        assert_eq!(text, "3");
    }
    let mut client = Client::legacy(Lab).await;
    let schema = tool(&mut client, "words").await["outputSchema"].clone();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["result"]));
    assert_eq!(schema["properties"]["result"]["type"], "integer");
    assert!(
        schema.get("title").is_none() && schema["properties"]["result"].get("title").is_none(),
        "{schema}"
    );
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

#[tokio::test]
async fn err_result_is_a_tool_error() {
    for response in both("divide", json!({"a": 1, "b": 0})).await {
        response.assert_tool_error("division by zero");
        assert_eq!(
            response.result()["content"],
            json!([{"type": "text", "text": "division by zero"}])
        );
    }
    let mut client = Client::legacy(Lab).await;
    client
        .call_tool("divide", json!({"a": 1, "b": 4}))
        .await
        .assert_tool_text("0.25");
    // `Result<T, E>` keeps `T`'s (absent) output schema.
    assert!(
        tool(&mut client, "divide")
            .await
            .get("outputSchema")
            .is_none()
    );
}

#[tokio::test]
async fn missing_required_argument_is_a_tool_error_naming_it() {
    for response in both("add", json!({"a": 1})).await {
        response.assert_tool_error("missing required argument `b`");
    }
    for response in both("add", json!({"a": 1, "b": null})).await {
        response.assert_tool_error("missing required argument `b`");
    }
    let mut client = Client::legacy(Lab).await;
    let response = client.request("tools/call", json!({"name": "echo"})).await;
    response.assert_tool_error("missing required argument `text`");
}

#[tokio::test]
async fn optional_arguments_may_be_left_out_or_null() {
    let mut client = Client::legacy(Lab).await;
    client
        .call_tool("hello", json!({}))
        .await
        .assert_tool_text("hello everyone");
    client
        .call_tool("hello", json!({"name": null}))
        .await
        .assert_tool_text("hello everyone");
    client
        .call_tool("hello", json!({"name": "ada"}))
        .await
        .assert_tool_text("hello ada");
    let response = client
        .raw_request(
            "tools/call",
            Some(json!({"name": "hello", "arguments": null})),
        )
        .await;
    response.assert_tool_text("hello everyone");
}

#[tokio::test]
async fn wrong_type_is_a_tool_error_naming_the_argument() {
    for response in both("add", json!({"a": "one", "b": 2})).await {
        response.assert_tool_error("invalid argument `a`");
        response.assert_tool_error("expected i64");
    }
    for response in both("echo", json!({"text": 5})).await {
        response.assert_tool_error("invalid argument `text`");
    }
}

#[tokio::test]
async fn unknown_argument_is_a_tool_error_naming_it() {
    for response in both("echo", json!({"text": "x", "loud": true})).await {
        response.assert_tool_error("unknown argument `loud`");
    }
}

#[tokio::test]
async fn newtype_range_constraint_is_a_tool_error_naming_the_argument() {
    let mut client = Client::legacy(Lab).await;
    client
        .call_tool("page", json!({"limit": 50}))
        .await
        .assert_tool_text("limit 50");
    client
        .call_tool("page", json!({"limit": 1}))
        .await
        .assert_tool_text("limit 1");
    for bad in [0, 51, 200] {
        let response = client.call_tool("page", json!({"limit": bad})).await;
        response.assert_tool_error("invalid argument `limit`");
    }
    let schema = tool(&mut client, "page").await["inputSchema"].clone();
    assert_eq!(
        schema["properties"]["limit"],
        json!({"$ref": "#/$defs/Limit"})
    );
    assert_eq!(schema["$defs"]["Limit"]["minimum"], 1);
    assert_eq!(schema["$defs"]["Limit"]["maximum"], 50);
}

#[tokio::test]
async fn struct_field_constraints_name_the_field() {
    let mut client = Client::modern(Lab);
    let ok = client
        .call_tool(
            "register",
            json!({"member": {"name": "ada", "code": "ABC"}}),
        )
        .await;
    ok.assert_tool_text("ada (ABC)");

    let short = client
        .call_tool("register", json!({"member": {"name": "a", "code": "ABC"}}))
        .await;
    short.assert_tool_error("invalid argument `member.name`");
    let long = client
        .call_tool(
            "register",
            json!({"member": {"name": "abcdefghi", "code": "ABC"}}),
        )
        .await;
    long.assert_tool_error("invalid argument `member.name`");
    let pattern = client
        .call_tool(
            "register",
            json!({"member": {"name": "ada", "code": "abc"}}),
        )
        .await;
    pattern.assert_tool_error("invalid argument `member.code`");
    let missing = client
        .call_tool("register", json!({"member": {"name": "ada"}}))
        .await;
    missing.assert_tool_error("invalid argument `member`");
    missing.assert_tool_error("code");
}

#[tokio::test]
async fn enum_argument_is_validated() {
    let mut client = Client::legacy(Lab).await;
    client
        .call_tool("paint", json!({"color": "green"}))
        .await
        .assert_tool_text("Green");
    let response = client.call_tool("paint", json!({"color": "mauve"})).await;
    response.assert_tool_error("invalid argument `color`");
    let schema = tool(&mut client, "paint").await["inputSchema"].clone();
    assert_eq!(schema["$defs"]["Color"]["enum"], json!(["red", "green"]));
}

#[tokio::test]
async fn arguments_not_an_object_is_invalid_params() {
    let mut legacy = Client::legacy(Lab).await;
    let mut modern = Client::modern(Lab);
    for arguments in [json!([1, 2]), json!("text"), json!(3)] {
        let params = json!({"name": "echo", "arguments": arguments});
        for response in [
            legacy.request("tools/call", params.clone()).await,
            modern.request("tools/call", params).await,
        ] {
            response.assert_error(-32602);
            let message = response.error()["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("`arguments` must be an object"),
                "{message}"
            );
        }
    }
}

#[tokio::test]
async fn missing_name_is_invalid_params() {
    let mut client = Client::legacy(Lab).await;
    let response = client.request("tools/call", json!({"arguments": {}})).await;
    response.assert_error(-32602);
    assert!(
        response.error()["message"]
            .as_str()
            .unwrap_or_default()
            .contains("name"),
        "{}",
        response.json
    );
}

#[tokio::test]
async fn unknown_tool_is_invalid_params() {
    for response in both("nope", json!({})).await {
        response.assert_error(-32602);
        assert_eq!(response.error()["message"], "Unknown tool: nope");
        assert_eq!(response.error()["data"], json!({"name": "nope"}));
    }
}

#[tokio::test]
async fn handler_panic_is_an_internal_error_without_the_panic_text() {
    for response in both("boom", json!({})).await {
        response.assert_error(-32603);
        assert!(
            !response.reply.body.contains("4242"),
            "the panic text leaks: {}",
            response.reply.body
        );
        assert!(
            !response.reply.body.contains("secret"),
            "the panic text leaks: {}",
            response.reply.body
        );
    }
    // The server keeps serving after a panic.
    let mut client = Client::legacy(Lab).await;
    client
        .call_tool("boom", json!({}))
        .await
        .assert_error(-32603);
    client
        .call_tool("echo", json!({"text": "still here"}))
        .await
        .assert_tool_text("still here");
}

#[tokio::test]
async fn annotations_title_meta_and_icons_in_tools_list() {
    let mut client = Client::legacy(Lab).await;
    assert_eq!(
        tool(&mut client, "clock.now").await,
        json!({
            "name": "clock.now",
            "title": "Current time",
            "description": "The current time.",
            "icons": [{"src": "https://example.com/clock.png"}],
            "inputSchema": {"type": "object", "additionalProperties": false},
            "annotations": {"readOnlyHint": true, "openWorldHint": false, "title": "Current time"},
            "_meta": {"owner": "team-time", "tier": 2},
        })
    );
    client
        .call_tool("clock.now", json!({}))
        .await
        .assert_tool_text("12:00");
    // A tool without annotations has no `annotations` key.
    assert!(tool(&mut client, "echo").await.get("annotations").is_none());
}

#[tokio::test]
async fn tools_without_arguments_have_the_recommended_empty_schema() {
    let mut client = Client::legacy(Lab).await;
    for name in ["boom", "picture", "clock.now", "whoami"] {
        let descriptor = tool(&mut client, name).await;
        assert_eq!(
            descriptor["inputSchema"],
            json!({"type": "object", "additionalProperties": false}),
            "{name}"
        );
    }
}

#[tokio::test]
async fn context_parameters_are_not_arguments() {
    let mut client = Client::uninitialized(Lab, phantom::Config::default()).header("x-user", "ada");
    client.initialize("2025-11-25").await.result();
    client
        .call_tool("whoami", json!({}))
        .await
        .assert_tool_text("ada");
    let mut modern = Client::modern(Lab).header("x-user", "grace");
    modern
        .call_tool("whoami", json!({}))
        .await
        .assert_tool_text("grace");
    modern
        .call_tool("whoami", json!({"session": 1}))
        .await
        .assert_tool_error("unknown argument `session`");
}

#[tokio::test]
async fn content_blocks() {
    let mut client = Client::legacy(Lab).await;
    let response = client.call_tool("picture", json!({})).await;
    let image = response.assert_tool_content("image");
    assert_eq!(
        image,
        &json!({"type": "image", "data": "AQID", "mimeType": "image/png"})
    );
}

#[tokio::test]
async fn modern_tool_error_results_are_complete() {
    let mut client = Client::modern(Lab);
    let params = with_meta(
        json!({"name": "divide", "arguments": {"a": 1, "b": 0}}),
        modern_meta(),
    );
    let response = client.raw_request("tools/call", Some(params)).await;
    response.assert_tool_error("division by zero");
    assert_eq!(response.result()["resultType"], "complete");
    assert_eq!(response.result()["isError"], true);
}

#[tokio::test]
async fn optional_constrained_and_renamed_arguments() {
    let mut client = Client::legacy(Lab).await;
    client
        .call_tool("top", json!({}))
        .await
        .assert_tool_text("top 10 (dry run: false)");
    client
        .call_tool("top", json!({"limit": null, "dryRun": true}))
        .await
        .assert_tool_text("top 10 (dry run: true)");
    client
        .call_tool("top", json!({"limit": 3}))
        .await
        .assert_tool_text("top 3 (dry run: false)");
    let response = client.call_tool("top", json!({"limit": 0})).await;
    response.assert_tool_error("invalid argument `limit`");
    response.assert_tool_error("minimum");
    client
        .call_tool("top", json!({"dry_run": true}))
        .await
        .assert_tool_error("unknown argument `dry_run`");
    let schema = tool(&mut client, "top").await["inputSchema"].clone();
    let mut properties: Vec<&String> = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    properties.sort();
    assert_eq!(properties, ["dryRun", "limit"]);
    assert!(schema.get("required").is_none(), "{schema}");
}

#[tokio::test]
async fn constraints_of_nested_structs_name_the_field() {
    let mut client = Client::legacy(Lab).await;
    let ok = client
        .call_tool(
            "enrol",
            json!({"team": {"lead": {"name": "ada", "code": "ABC"}}}),
        )
        .await;
    ok.assert_tool_text("led by ada");
    let short = client
        .call_tool(
            "enrol",
            json!({"team": {"lead": {"name": "a", "code": "ABC"}}}),
        )
        .await;
    short.assert_tool_error("invalid argument `team.lead.name`");
    let pattern = client
        .call_tool(
            "enrol",
            json!({"team": {"lead": {"name": "ada", "code": "abc"}}}),
        )
        .await;
    pattern.assert_tool_error("invalid argument `team.lead.code`");
}

/// How bad an incident is (plain variants: an `enum` schema).
#[derive(Debug, Clone, Copy, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Severity {
    Sev1,
    Sev2,
    Sev3,
    Sev4,
}

/// The same with documented variants: a `oneOf` of `const`s.
#[derive(Debug, Clone, Copy, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    /// Everyone, now.
    P1,
    /// Today.
    P2,
    /// This week.
    P3,
    /// When there is time.
    P4,
}

#[derive(Clone)]
struct Incidents;

#[phantom::mcp_router(name = "incidents", version = "1.0.0")]
impl Incidents {
    /// Opens an incident.
    #[phantom::tool]
    async fn open(&self, severity: Severity, priority: Priority, team: Option<Severity>) -> String {
        format!("{severity:?} {priority:?} {team:?}")
    }
}

#[tokio::test]
async fn an_enum_argument_error_lists_every_allowed_value() {
    let mut client = Client::modern(Incidents);
    let good = json!({"severity": "sev1", "priority": "p2", "team": "sev3"});
    client
        .call_tool("open", good.clone())
        .await
        .assert_tool_text("Sev1 P2 Some(Sev3)");
    for (name, expected) in [
        (
            "severity",
            r#"invalid argument `severity`: "critical" is not one of "sev1", "sev2", "sev3" or "sev4""#,
        ),
        (
            "priority",
            r#"invalid argument `priority`: "critical" is not one of "p1", "p2", "p3" or "p4""#,
        ),
        (
            "team",
            // An `Option` argument is checked against its type (a `null` is skipped first).
            r#"invalid argument `team`: "critical" is not one of "sev1", "sev2", "sev3" or "sev4""#,
        ),
    ] {
        let mut arguments = good.clone();
        arguments[name] = json!("critical");
        client
            .call_tool("open", arguments)
            .await
            .assert_tool_error(expected);
    }
}
