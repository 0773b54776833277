//! Server capabilities, computed from what the router serves.

use phantom::testing::Client;
use serde_json::json;

use serde_json::Value;

use crate::fixture::{Calc, Lab, Many, all_keys};

/// A list that announces its changes (a `Notifier` may send them).
fn list() -> Value {
    json!({"listChanged": true})
}

/// Resources that announce changes and can be subscribed to.
fn subscribe() -> Value {
    json!({"subscribe": true, "listChanged": true})
}

#[tokio::test]
async fn a_tools_only_router_advertises_only_tools() {
    let mut legacy = Client::uninitialized(Calc, phantom::Config::default());
    let init = legacy.initialize("2025-11-25").await;
    assert_eq!(
        init.result()["capabilities"],
        json!({"tools": {"listChanged": true}, "logging": {}})
    );
    assert_eq!(
        init.result()["serverInfo"],
        json!({"name": "calc", "version": "1.0.0"})
    );
    assert!(
        init.result().get("instructions").is_none(),
        "no instructions declared: {}",
        init.json
    );

    let mut modern = Client::modern(Calc);
    let discover = modern.request("server/discover", json!({})).await;
    assert_eq!(
        discover.result()["capabilities"],
        json!({"tools": {"listChanged": true}})
    );
    assert!(discover.result().get("instructions").is_none());
}

#[tokio::test]
async fn a_full_router_advertises_every_feature() {
    let mut legacy = Client::uninitialized(Lab, phantom::Config::default());
    let init = legacy.initialize("2025-11-25").await;
    assert_eq!(
        init.result()["capabilities"],
        json!({"tools": list(), "prompts": list(), "resources": subscribe(), "completions": {}, "logging": {}})
    );
    let mut legacy = Client::uninitialized(Many, phantom::Config::default());
    let init = legacy.initialize("2025-11-25").await;
    assert_eq!(
        init.result()["capabilities"],
        json!({"tools": list(), "prompts": list(), "resources": subscribe(), "logging": {}})
    );
}

#[tokio::test]
async fn every_list_announces_changes_and_resources_can_be_subscribed_in_both_eras() {
    for version in ["2024-11-05", "2025-11-25"] {
        let mut legacy = Client::uninitialized(Lab, phantom::Config::default());
        let init = legacy.initialize(version).await;
        let caps = &init.result()["capabilities"];
        assert_eq!(caps["tools"], list());
        assert_eq!(caps["prompts"], list());
        assert_eq!(caps["resources"], subscribe());
    }
    let discover = Client::modern(Lab)
        .request("server/discover", json!({}))
        .await;
    let caps = &discover.result()["capabilities"];
    assert_eq!(caps["resources"], subscribe());
    let keys = all_keys(caps);
    assert!(!keys.iter().any(|k| k == "logging"), "{keys:?}");
}

#[tokio::test]
async fn unadvertised_features_have_empty_lists_or_unknown_names() {
    let mut client = Client::legacy(Calc).await;
    assert_eq!(
        client.list_prompts(None).await.result(),
        &json!({"prompts": []})
    );
    assert_eq!(
        client.list_resources(None).await.result(),
        &json!({"resources": []})
    );
    assert_eq!(
        client.list_resource_templates(None).await.result(),
        &json!({"resourceTemplates": []})
    );
    client
        .get_prompt("any", json!({}))
        .await
        .assert_error(-32602);
    client
        .read_resource("calc://x/y")
        .await
        .assert_error(-32002);
}

#[tokio::test]
async fn an_overridden_list_resources_advertises_resources() {
    use crate::fixture::Listed;
    let mut legacy = Client::uninitialized(Listed, phantom::Config::default());
    let init = legacy.initialize("2025-11-25").await;
    assert_eq!(
        init.result()["capabilities"],
        json!({"tools": list(), "resources": subscribe(), "logging": {}})
    );
    let discover = Client::modern(Listed)
        .request("server/discover", json!({}))
        .await;
    assert_eq!(
        discover.result()["capabilities"],
        json!({"tools": list(), "resources": subscribe()})
    );
}

#[tokio::test]
async fn overridden_instructions_and_server_info_see_the_session() {
    use crate::fixture::Listed;
    let mut legacy = Client::uninitialized(Listed, phantom::Config::default());
    let init = legacy.initialize("2025-06-18").await;
    assert_eq!(init.result()["instructions"], "hello stranger");
    assert_eq!(
        init.result()["serverInfo"],
        json!({"name": "listed", "version": "2.0.0", "title": "listed at 2025-06-18"})
    );

    let mut modern = Client::modern(Listed);
    let discover = modern.request("server/discover", json!({})).await;
    let expected = json!({"name": "listed", "version": "2.0.0", "title": "listed at 2026-07-28"});
    assert_eq!(discover.result()["instructions"], "hello stranger");
    assert_eq!(
        discover.result()["_meta"]["io.modelcontextprotocol/serverInfo"],
        expected
    );
    let call = modern.call_tool("pong", json!({})).await;
    assert_eq!(
        call.result()["_meta"]["io.modelcontextprotocol/serverInfo"],
        expected
    );
}
