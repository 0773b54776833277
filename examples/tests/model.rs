//! One protocol model for both sides: every list item the `everything` example serves
//! (tools, prompts, resources, templates, skills; both eras) reads into
//! `phantom::protocol`'s type for it and writes back as the same JSON.

use phantom::protocol::{Prompt, Resource, ResourceTemplate, SkillEntry, Tool};
use phantom::testing::Client;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

// The example is a binary; its router is compiled here as a module so the test reads exactly
// what it serves. Its `main` serves the binary only.
#[path = "../everything.rs"]
#[allow(dead_code)]
mod everything;

/// Every item of a list, all pages.
async fn all_items(
    client: &mut Client<everything::Everything>,
    method: &str,
    key: &str,
) -> Vec<Value> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = cursor.map_or_else(|| json!({}), |c| json!({"cursor": c}));
        let response = client.request(method, params).await;
        let result = response.result();
        items.extend(
            result[key]
                .as_array()
                .unwrap_or_else(|| panic!("{method}: no `{key}`: {result}"))
                .iter()
                .cloned(),
        );
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return items,
        }
    }
}

/// Reads each item into `T` and writes it back: the JSON must be the one served.
fn round_trips<T: DeserializeOwned + Serialize>(what: &str, items: &[Value]) {
    assert!(!items.is_empty(), "{what}: the example lists none");
    for item in items {
        let typed: T = serde_json::from_value(item.clone())
            .unwrap_or_else(|e| panic!("{what}: {item} does not read: {e}"));
        let back = serde_json::to_value(&typed).expect("writes");
        assert_eq!(&back, item, "{what}: the item changed in a round trip");
    }
}

#[tokio::test]
async fn every_listed_item_reads_into_the_model_and_writes_back_the_same() {
    let modern = Client::modern(everything::Everything);
    let legacy = Client::legacy(everything::Everything).await;
    for mut client in [modern, legacy] {
        let era = client.era();
        let tools = all_items(&mut client, "tools/list", "tools").await;
        round_trips::<Tool>(&format!("{era:?} tools"), &tools);
        let prompts = all_items(&mut client, "prompts/list", "prompts").await;
        round_trips::<Prompt>(&format!("{era:?} prompts"), &prompts);
        let resources = all_items(&mut client, "resources/list", "resources").await;
        round_trips::<Resource>(&format!("{era:?} resources"), &resources);
        let templates =
            all_items(&mut client, "resources/templates/list", "resourceTemplates").await;
        round_trips::<ResourceTemplate>(&format!("{era:?} templates"), &templates);
        let skills = all_items(&mut client, "skills/list", "skills").await;
        round_trips::<SkillEntry>(&format!("{era:?} skills"), &skills);
    }
}

#[test]
fn a_tools_annotations_keep_their_title_and_hints() {
    let listed = json!({
        "name": "t",
        "inputSchema": {"type": "object", "$ref": "#/$defs/x"},
        "annotations": {"title": "T", "readOnlyHint": true, "x-extra": 1},
        "x-vendor": {"a": 1}
    });
    let tool: Tool = serde_json::from_value(listed.clone()).expect("reads");
    let hints = tool.annotations.as_ref().expect("annotations");
    assert_eq!(hints.hints.read_only, Some(true));
    assert_eq!(hints.title.as_deref(), Some("T"));
    assert_eq!(hints.other.get("x-extra"), Some(&json!(1)));
    assert!(!hints.other.contains_key("readOnlyHint"));
    assert_eq!(
        tool.input_schema, listed["inputSchema"],
        "the schema is kept verbatim"
    );
    assert_eq!(serde_json::to_value(&tool).expect("writes"), listed);
}
