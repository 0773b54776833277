//! `inspect`: a report of a server (what it declares and serves) with the schema portability
//! findings a strict client would warn about.

use std::process::ExitCode;

use serde_json::{Map, Value, json};

use crate::cli::InspectArgs;
use crate::remote::{all_pages, connect, listing, target};
use crate::{Failure, Outcome, show};

/// The formats JSON Schema 2020-12 defines (its "Defined Formats" section); a validator may warn
/// on any other ("unknown format").
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// One portability finding: where (tool, schema, JSON pointer) and what.
fn finding(tool: &str, schema: &str, pointer: &str, kind: &str, message: &str) -> Value {
    json!({"tool": tool, "schema": schema, "pointer": pointer, "kind": kind, "message": message})
}

/// Walks `schema` and every subschema, pushing a finding for each non-standard `format` and each
/// `type` array. Data positions (`enum`, `const`, `default`, `examples`) are not schemas.
fn check(tool: &str, which: &str, schema: &Value, pointer: &str, out: &mut Vec<Value>) {
    match schema {
        Value::Object(obj) => {
            if let Some(Value::String(format)) = obj.get("format")
                && !STANDARD_FORMATS.contains(&format.as_str())
            {
                out.push(finding(
                    tool,
                    which,
                    pointer,
                    "format",
                    &format!("non-standard `format` `{format}`: JSON Schema defines no such format, and strict validators reject or warn on it"),
                ));
            }
            if let Some(Value::Array(types)) = obj.get("type") {
                out.push(finding(
                    tool,
                    which,
                    pointer,
                    "type-array",
                    &format!("`type` is an array ({}): clients that map schemas to one type each cannot read it; use `anyOf`", Value::Array(types.clone())),
                ));
            }
            for (key, value) in obj {
                if matches!(key.as_str(), "enum" | "const" | "default" | "examples") {
                    continue;
                }
                let escaped = key.replace('~', "~0").replace('/', "~1");
                check(tool, which, value, &format!("{pointer}/{escaped}"), out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check(tool, which, item, &format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The findings of every tool's input and output schemas, and of tool names outside what the
/// specification allows.
pub(crate) fn findings(tools: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap_or("?");
        let valid_name = (1..=128).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if !valid_name {
            out.push(finding(
                name,
                "name",
                "",
                "name",
                &format!("the tool name `{name}` is not 1–128 characters of `A-Za-z0-9_.-`"),
            ));
        }
        for which in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(which) {
                check(name, which, schema, "", &mut out);
            }
        }
    }
    out
}

/// `cargo phantom inspect`.
pub(crate) async fn run(args: &InspectArgs) -> Outcome {
    let target = target(args.url.as_deref(), &args.connection)?;
    let client = connect(&target, &args.connection).await?;
    let report = report(&client).await;
    client.close().await;
    let report = report?;
    let count = report["findings"].as_array().map_or(0, Vec::len);
    if args.connection.json {
        show::json(&report);
    } else {
        human(&report);
    }
    if args.strict && count > 0 {
        eprintln!("error: {count} portability finding(s) (--strict)");
        eprintln!(
            "       help: phantom lists portable schemas unless `Config::with_portable_schemas(false)`; otherwise spell integer ranges with `minimum`/`maximum` and unions with `anyOf`"
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

async fn report(client: &phantom::client::Client) -> Result<Value, Failure> {
    let mut report = Map::new();
    report.insert("serverInfo".into(), client.server_info().clone());
    report.insert("protocolVersion".into(), json!(client.protocol_version()));
    report.insert("capabilities".into(), client.server_capabilities().clone());
    report.append(&mut listing(client).await?);
    // The Skills extension has no capability of its own to look for: ask, and accept "unknown".
    let skills = all_pages(client, "skills/list", "skills")
        .await
        .unwrap_or(None);
    report.insert("skills".into(), skills.map_or(Value::Null, Value::Array));
    let tools = report["tools"].as_array().cloned().unwrap_or_default();
    report.insert("findings".into(), Value::Array(findings(&tools)));
    Ok(Value::Object(report))
}

fn human(report: &Value) {
    let info = &report["serverInfo"];
    println!(
        "server {} {} (protocol {})",
        info["name"].as_str().unwrap_or("?"),
        info["version"].as_str().unwrap_or("?"),
        report["protocolVersion"].as_str().unwrap_or("?")
    );
    if let Some(caps) = report["capabilities"].as_object() {
        let names: Vec<&str> = caps.keys().map(String::as_str).collect();
        println!("capabilities: {}", names.join(", "));
        if let Some(extensions) = caps.get("extensions").and_then(Value::as_object) {
            let names: Vec<&str> = extensions.keys().map(String::as_str).collect();
            println!("extensions: {}", names.join(", "));
        }
    }
    for (key, title) in [
        ("tools", "tools"),
        ("resources", "resources"),
        ("resourceTemplates", "resource templates"),
        ("prompts", "prompts"),
        ("skills", "skills"),
    ] {
        let Some(items) = report[key].as_array() else {
            continue;
        };
        println!("\n{title} ({})", items.len());
        for item in items {
            let line = if key == "skills" {
                item["uri"].as_str().unwrap_or("?").to_owned()
            } else {
                show::line(key, item)
            };
            println!("  {line}");
            if key == "tools" {
                tool_details(item);
            }
        }
    }
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    println!("\nportability findings ({})", findings.len());
    for f in &findings {
        println!(
            "  {} {}#{}: {}",
            f["tool"].as_str().unwrap_or("?"),
            f["schema"].as_str().unwrap_or("?"),
            f["pointer"].as_str().unwrap_or(""),
            f["message"].as_str().unwrap_or("")
        );
    }
}

fn tool_details(tool: &Value) {
    if let Some(annotations) = tool["annotations"].as_object() {
        let hints: Vec<String> = annotations
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!("    annotations: {}", hints.join(", "));
    }
    println!("    input: {}", tool["inputSchema"]);
    if let Some(output) = tool.get("outputSchema") {
        println!("    output: {output}");
    }
}
