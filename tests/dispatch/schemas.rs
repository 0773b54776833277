//! The schemas `tools/list` publishes: schemars' integer formats as `minimum`/`maximum`, `type`
//! arrays as `anyOf` branches, in input and output schemas and their `$defs`; hand-written
//! `Arguments<T>` schemas untouched; and `Config::with_portable_schemas(false)` keeping schemars' spelling.

use std::borrow::Cow;

use phantom::Config;
use phantom::prelude::*;
use phantom::testing::Client;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Integers of every width, in arguments and in a structured output.
#[derive(Clone)]
struct Widths;

/// A page of readings.
#[derive(Serialize, JsonSchema)]
struct Readings {
    count: u32,
    offset: Option<i64>,
    items: Vec<Reading>,
}

/// One reading (a `$defs` entry of the output schema).
#[derive(Serialize, JsonSchema)]
struct Reading {
    id: u64,
    delta: i16,
}

/// Arguments described by a hand-written schema with standard formats only.
#[derive(Deserialize)]
struct Contact(#[allow(dead_code)] Map<String, Value>);

fn contact_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email"},
            "account": {"type": "string", "format": "int64"},
        },
        "required": ["email"],
        "additionalProperties": false,
    })
}

/// `Contact`'s schema as listed: verbatim, plus the `title` schemars gives every root schema.
fn listed_contact_schema() -> Value {
    let mut schema = contact_schema();
    schema["title"] = "Contact".into();
    schema
}

impl JsonSchema for Contact {
    fn schema_name() -> Cow<'static, str> {
        "Contact".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::try_from(contact_schema()).expect("an object schema")
    }
}

#[mcp_router(name = "widths", version = "1.0.0")]
impl Widths {
    /// Integer arguments.
    #[tool]
    async fn sizes(&self, count: u32, total: u64, small: i8, level: Option<i32>) -> String {
        format!("{count} {total} {small} {level:?}")
    }

    /// Integer outputs, `offset` null when there are no items.
    #[tool]
    async fn readings(&self, empty: bool) -> Json<Readings> {
        let items = if empty {
            Vec::new()
        } else {
            vec![Reading { id: 7, delta: -3 }]
        };
        Json(Readings {
            count: 1,
            offset: (!empty).then_some(40),
            items,
        })
    }

    /// Hand-written schema.
    #[tool]
    async fn contact(&self, args: Arguments<Contact>) -> String {
        format!("{} fields", (args.0).0.len())
    }
}

async fn tools(config: Config) -> Vec<Value> {
    let mut client = Client::modern_with_config(Widths, config);
    let list = client.list_tools(None).await;
    list.result()["tools"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("no tools in {}", list.json))
}

fn find<'t>(tools: &'t [Value], name: &str) -> &'t Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool `{name}`"))
}

/// Every `format` value under `value`, with where it is.
fn formats(value: &Value, path: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                if let ("format", Some(format)) = (key.as_str(), v.as_str()) {
                    out.push((path.to_owned(), format.to_owned()));
                }
                formats(v, &format!("{path}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                formats(v, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[tokio::test]
async fn integer_arguments_have_ranges_and_no_format() {
    let tools = tools(Config::default()).await;
    let props = &find(&tools, "sizes")["inputSchema"]["properties"];
    assert_eq!(
        props["count"],
        json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64})
    );
    assert_eq!(
        props["total"],
        json!({"type": "integer", "minimum": 0, "maximum": u64::MAX})
    );
    assert_eq!(
        props["small"],
        json!({"type": "integer", "minimum": -128, "maximum": 127})
    );
    assert_eq!(
        props["level"],
        json!({"anyOf": [
            {"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX},
            {"type": "null"},
        ]})
    );
}

#[tokio::test]
async fn output_schemas_and_their_defs_have_ranges_and_keep_null() {
    let tools = tools(Config::default()).await;
    let out = &find(&tools, "readings")["outputSchema"];
    assert_eq!(
        out["properties"]["count"],
        json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64})
    );
    assert_eq!(
        out["properties"]["offset"],
        json!({"anyOf": [
            {"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX},
            {"type": "null"},
        ]})
    );
    assert_eq!(
        out["$defs"]["Reading"]["properties"],
        json!({
            "id": {"type": "integer", "minimum": 0, "maximum": u64::MAX},
            "delta": {"type": "integer", "minimum": -32768, "maximum": 32767},
        })
    );
    // The null the output carries is one the published schema allows.
    let mut client = Client::modern(Widths);
    client
        .call_tool("readings", json!({"empty": true}))
        .await
        .assert_tool_structured(&json!({"count": 1, "offset": null, "items": []}));
}

#[tokio::test]
async fn only_the_hand_written_standard_formats_remain() {
    let tools = tools(Config::default()).await;
    let mut found = Vec::new();
    for tool in &tools {
        formats(tool, tool["name"].as_str().unwrap_or_default(), &mut found);
    }
    assert_eq!(
        found,
        [
            (
                "contact/inputSchema/properties/account".into(),
                "int64".into()
            ),
            (
                "contact/inputSchema/properties/email".into(),
                "email".into()
            ),
        ] as [(String, String); 2]
    );
    assert_eq!(
        find(&tools, "contact")["inputSchema"],
        listed_contact_schema()
    );
}

#[tokio::test]
async fn the_switch_keeps_schemars_spelling() {
    let tools = tools(Config::default().with_portable_schemas(false)).await;
    let props = &find(&tools, "sizes")["inputSchema"]["properties"];
    assert_eq!(
        props["count"],
        json!({"type": "integer", "format": "uint32", "minimum": 0})
    );
    assert_eq!(
        props["level"],
        json!({"type": ["integer", "null"], "format": "int32"})
    );
    let out = &find(&tools, "readings")["outputSchema"];
    assert_eq!(
        out["$defs"]["Reading"]["properties"]["id"]["format"],
        "uint64"
    );
    assert_eq!(
        find(&tools, "contact")["inputSchema"],
        listed_contact_schema()
    );
}

#[tokio::test]
async fn what_the_server_accepts_is_what_the_schema_says() {
    let mut client = Client::modern(Widths);
    client
        .call_tool(
            "sizes",
            json!({"count": u32::MAX, "total": u64::MAX, "small": -128, "level": null}),
        )
        .await
        .assert_tool_text(&format!("{} {} -128 None", u32::MAX, u64::MAX));
    for (name, value) in [
        ("count", json!(u64::from(u32::MAX) + 1)),
        ("small", json!(128)),
    ] {
        let mut args = json!({"count": 0, "total": 0, "small": 0});
        args[name] = value;
        client
            .call_tool("sizes", args)
            .await
            .assert_tool_error(&format!("invalid argument `{name}`"));
    }
}
