//! Human output of results on stdout, and of the server's notifications on stderr.

use serde_json::{Map, Value};

/// Prints `value` as pretty JSON on stdout (`--json`).
pub(crate) fn json(value: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
    );
}

/// Prints a notification the server sent (progress, a log message, a change) on stderr.
pub(crate) fn notification(method: &str, params: &Value) {
    match method {
        "notifications/progress" => {
            let done = number(&params["progress"]);
            let total = params
                .get("total")
                .map(|t| format!("/{}", number(t)))
                .unwrap_or_default();
            let message = params["message"]
                .as_str()
                .map(|m| format!(" {m}"))
                .unwrap_or_default();
            eprintln!("progress: {done}{total}{message}");
        }
        "notifications/message" => {
            let level = params["level"].as_str().unwrap_or("info");
            let logger = params["logger"]
                .as_str()
                .map(|l| format!(" {l}:"))
                .unwrap_or_default();
            let data = match &params["data"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            eprintln!("log [{level}]{logger} {data}");
        }
        // The 2026-07-28 listen stream's opening: nothing to tell.
        "notifications/subscriptions/acknowledged" => {}
        other => eprintln!("notification: {other}"),
    }
}

/// A JSON number as a person writes it: `3`, not `3.0`.
fn number(value: &Value) -> String {
    match value.as_f64() {
        Some(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{}", n as i64),
        Some(n) => n.to_string(),
        None => value.to_string(),
    }
}

/// The first line of an item's description, after a dash.
fn about(item: &Value) -> String {
    item["description"]
        .as_str()
        .and_then(|d| d.lines().next())
        .map(|d| format!(" — {d}"))
        .unwrap_or_default()
}

/// A tool's arguments as `name: type`, required ones first, optional ones with `?`.
pub(crate) fn signature(schema: &Value) -> String {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema["properties"].as_object() else {
        return String::new();
    };
    let mut parts: Vec<(bool, String)> = props
        .iter()
        .map(|(name, prop)| {
            let optional = !required.contains(&name.as_str());
            let mark = if optional { "?" } else { "" };
            (optional, format!("{name}{mark}: {}", type_name(prop)))
        })
        .collect();
    parts.sort_by_key(|(optional, _)| *optional);
    let parts: Vec<String> = parts.into_iter().map(|(_, p)| p).collect();
    parts.join(", ")
}

fn type_name(schema: &Value) -> String {
    match &schema["type"] {
        Value::String(t) => t.clone(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ if schema.get("anyOf").is_some() => schema["anyOf"]
            .as_array()
            .map(|branches| {
                branches
                    .iter()
                    .map(type_name)
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
            .unwrap_or_default(),
        _ if schema.get("$ref").is_some() => schema["$ref"]
            .as_str()
            .and_then(|r| r.rsplit('/').next())
            .unwrap_or("object")
            .to_owned(),
        _ => "any".into(),
    }
}

/// `list`: one section per kind the server offers.
pub(crate) fn listing(listing: &Map<String, Value>) {
    let sections = [
        ("tools", "tools"),
        ("resources", "resources"),
        ("resourceTemplates", "resource templates"),
        ("prompts", "prompts"),
    ];
    for (key, title) in sections {
        let Some(items) = listing.get(key).and_then(Value::as_array) else {
            continue;
        };
        println!("{title} ({})", items.len());
        for item in items {
            println!("  {}{}", line(key, item), about(item));
        }
    }
}

/// One item of a list, as `list` prints it.
pub(crate) fn line(kind: &str, item: &Value) -> String {
    let name = item["name"].as_str().unwrap_or("?");
    match kind {
        "tools" => format!("{name}({})", signature(&item["inputSchema"])),
        "resources" => format!("{} ({name})", item["uri"].as_str().unwrap_or("?")),
        "resourceTemplates" => format!("{} ({name})", item["uriTemplate"].as_str().unwrap_or("?")),
        "prompts" => {
            let args: Vec<String> = item["arguments"]
                .as_array()
                .map(|args| {
                    args.iter()
                        .map(|a| {
                            let mark = if a["required"] == true { "" } else { "?" };
                            format!("{}{mark}", a["name"].as_str().unwrap_or("?"))
                        })
                        .collect()
                })
                .unwrap_or_default();
            format!("{name}({})", args.join(", "))
        }
        _ => name.to_owned(),
    }
}

/// A content block (of a tool result or a prompt message) as text.
fn block(content: &Value) -> String {
    match content["type"].as_str() {
        Some("text") => content["text"].as_str().unwrap_or_default().to_owned(),
        Some("resource_link") => {
            format!("[resource link {}]", content["uri"].as_str().unwrap_or("?"))
        }
        Some("resource") => {
            let inner = &content["resource"];
            inner["text"].as_str().map_or_else(
                || format!("[resource {}]", inner["uri"].as_str().unwrap_or("?")),
                str::to_owned,
            )
        }
        Some(kind) => format!(
            "[{kind} {}, {} bytes of base64]",
            content["mimeType"].as_str().unwrap_or("?"),
            content["data"].as_str().map_or(0, str::len)
        ),
        None => content.to_string(),
    }
}

/// `call`: the text of the result's content, else its structured content.
pub(crate) fn tool_result(result: &Value) {
    let blocks = result["content"].as_array().cloned().unwrap_or_default();
    for content in &blocks {
        println!("{}", block(content));
    }
    if blocks.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        json(structured);
    }
}

/// `read`: each content's text, or what a blob is.
pub(crate) fn contents(contents: &Value) {
    for content in contents.as_array().into_iter().flatten() {
        match content["text"].as_str() {
            Some(text) => println!("{text}"),
            None => println!(
                "[blob {} of {}, {} bytes of base64]",
                content["uri"].as_str().unwrap_or("?"),
                content["mimeType"].as_str().unwrap_or("?"),
                content["blob"].as_str().map_or(0, str::len)
            ),
        }
    }
}

/// `prompt`: each message as `role: text`.
pub(crate) fn prompt(result: &Value) {
    if let Some(description) = result["description"].as_str() {
        println!("# {description}");
    }
    for message in result["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or("?");
        println!("{role}: {}", block(&message["content"]));
    }
}
