//! `completion/complete` of prompt arguments and resource template parameters.

use phantom::dispatch::Status;
use phantom::testing::Client;
use serde_json::json;

use crate::fixture::{Calc, Lab};

#[tokio::test]
async fn completes_a_prompt_argument() {
    for mut client in [Client::legacy(Lab).await, Client::modern(Lab)] {
        let response = client.complete_prompt("welcome", "name", "al").await;
        assert_eq!(
            response.result()["completion"],
            json!({"values": ["alice", "albert"], "total": 2, "hasMore": false})
        );
        let response = client.complete_prompt("welcome", "name", "z").await;
        assert_eq!(
            response.result()["completion"],
            json!({"values": [], "total": 0, "hasMore": false})
        );
    }
}

#[tokio::test]
async fn completes_a_resource_template_parameter_by_its_rfc_6570_template() {
    for mut client in [Client::legacy(Lab).await, Client::modern(Lab)] {
        let response = client
            .complete_resource("lab:///items/{id}", "id", "1")
            .await;
        assert_eq!(
            response.result()["completion"],
            json!({"values": ["1", "12"], "total": 2, "hasMore": false})
        );
    }
}

#[tokio::test]
async fn values_are_truncated_to_100() {
    let mut client = Client::legacy(Lab).await;
    let response = client.complete_prompt("welcome", "tone", "").await;
    let completion = &response.result()["completion"];
    let values = completion["values"].as_array().expect("values");
    assert_eq!(values.len(), 100);
    assert_eq!(values[0], "tone000");
    assert_eq!(values[99], "tone099");
    assert_eq!(completion["total"], 150);
    assert_eq!(completion["hasMore"], true);
}

#[tokio::test]
async fn a_declared_argument_without_a_completion_function_completes_to_nothing() {
    let mut client = Client::legacy(Lab).await;
    let response = client.complete_prompt("welcome", "style", "pl").await;
    assert_eq!(
        response.result()["completion"],
        json!({"values": [], "hasMore": false})
    );
    // A resource template parameter without one (`run`) likewise.
    let response = client
        .complete_resource("lab:///runs/{run}", "run", "6")
        .await;
    assert_eq!(
        response.result()["completion"],
        json!({"values": [], "hasMore": false})
    );
}

#[tokio::test]
async fn context_arguments_are_accepted() {
    let mut client = Client::legacy(Lab).await;
    let params = json!({
        "ref": {"type": "ref/prompt", "name": "welcome"},
        "argument": {"name": "name", "value": "b"},
        "context": {"arguments": {"tone": "dry"}},
    });
    let response = client.request("completion/complete", params).await;
    assert_eq!(response.result()["completion"]["values"], json!(["bob"]));
}

#[tokio::test]
async fn unknown_reference_is_invalid_params() {
    for mut client in [Client::legacy(Lab).await, Client::modern(Lab)] {
        let response = client.complete_prompt("farewell", "name", "").await;
        response.assert_error(-32602);
        assert_eq!(response.error()["data"], json!({"name": "farewell"}));
        let response = client
            .complete_resource("lab:///nothing/{id}", "id", "")
            .await;
        response.assert_error(-32602);
        assert_eq!(
            response.error()["data"],
            json!({"uri": "lab:///nothing/{id}"})
        );
        // A concrete URI is not a template reference.
        let response = client.complete_resource("lab:///items/1", "id", "").await;
        response.assert_error(-32602);
    }
}

#[tokio::test]
async fn unknown_argument_is_invalid_params() {
    for mut client in [Client::legacy(Lab).await, Client::modern(Lab)] {
        let response = client.complete_prompt("welcome", "mood", "").await;
        response.assert_error(-32602);
        assert_eq!(response.error()["data"], json!({"argument": "mood"}));
        assert!(
            response.error()["message"]
                .as_str()
                .unwrap_or_default()
                .contains("`mood`")
        );
        let response = client
            .complete_resource("lab:///items/{id}", "name", "")
            .await;
        response.assert_error(-32602);
        assert_eq!(response.error()["data"], json!({"argument": "name"}));
    }
}

#[tokio::test]
async fn malformed_reference_is_invalid_params() {
    let mut client = Client::legacy(Lab).await;
    for params in [
        json!({"ref": {"type": "ref/tool", "name": "echo"}, "argument": {"name": "text", "value": ""}}),
        json!({"ref": {"type": "ref/prompt", "name": "welcome"}}),
        json!({"argument": {"name": "name", "value": ""}}),
    ] {
        client
            .request("completion/complete", params)
            .await
            .assert_error(-32602);
    }
}

#[tokio::test]
async fn a_router_without_completions_answers_method_not_found() {
    let mut legacy = Client::legacy(Calc).await;
    let response = legacy.complete_prompt("any", "x", "").await;
    response.assert_error(-32601);
    assert_eq!(
        response.error()["data"],
        json!({"method": "completion/complete"})
    );
    assert_eq!(
        response.status(),
        &Status::Ok,
        "legacy errors travel with 200"
    );
    let mut modern = Client::modern(Calc);
    let response = modern.complete_resource("calc:///{x}", "x", "").await;
    response.assert_error(-32601);
    assert_eq!(
        response.status(),
        &Status::MethodNotFound,
        "modern -32601 is a 404"
    );
    let discover = modern.request("server/discover", json!({})).await;
    assert!(
        discover.result()["capabilities"]
            .get("completions")
            .is_none(),
        "{}",
        discover.json
    );
}
