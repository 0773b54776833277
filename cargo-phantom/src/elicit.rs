//! Elicitation answered on the terminal: the server's message on stderr, each field of its form
//! asked in turn on stdin; declined with `--no-input` or when stdin ends.

use std::io::{BufRead as _, Write as _};

use phantom::protocol::{ElicitRequest, ElicitResult};
use serde_json::{Map, Value};

/// The answer to the server's `elicitation/create`.
pub(crate) async fn answer(request: ElicitRequest, no_input: bool) -> ElicitResult {
    if no_input {
        eprintln!(
            "the server asks: {}\n(declined: --no-input)",
            request.message()
        );
        return ElicitResult::decline();
    }
    let asked = tokio::task::spawn_blocking(move || ask(&request)).await;
    asked.unwrap_or_else(|_| ElicitResult::cancel())
}

/// One line from stdin after `prompt` on stderr; `None` at the end of input.
fn read_line(prompt: &str) -> Option<String> {
    eprint!("{prompt}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_owned()),
    }
}

fn ask(request: &ElicitRequest) -> ElicitResult {
    eprintln!("the server asks: {}", request.message());
    let schema = match request {
        ElicitRequest::Url { url, .. } => {
            eprintln!("open {url}");
            return match read_line("done? [y = accept, n = decline, c = cancel] ") {
                Some(a) if a.eq_ignore_ascii_case("y") => ElicitResult::accept_url(),
                Some(a) if a.eq_ignore_ascii_case("c") => ElicitResult::cancel(),
                _ => ElicitResult::decline(),
            };
        }
        ElicitRequest::Form {
            requested_schema, ..
        } => requested_schema,
        _ => return ElicitResult::decline(),
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut content = Map::new();
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    if !properties.is_empty() {
        eprintln!("(an empty line skips an optional field; end of input declines)");
    }
    for (name, field) in properties {
        let is_required = required.contains(&name.as_str());
        loop {
            let prompt = field_prompt(name, field, is_required);
            let Some(line) = read_line(&prompt) else {
                return ElicitResult::decline();
            };
            if line.is_empty() {
                if let Some(default) = field.get("default") {
                    content.insert(name.clone(), default.clone());
                    break;
                }
                if !is_required {
                    break;
                }
                eprintln!("`{name}` is required");
                continue;
            }
            match parse(&line, field) {
                Ok(value) => {
                    content.insert(name.clone(), value);
                    break;
                }
                Err(problem) => eprintln!("{problem}"),
            }
        }
    }
    match read_line("send? [Y = accept, n = decline, c = cancel] ") {
        Some(a) if a.eq_ignore_ascii_case("n") => ElicitResult::decline(),
        Some(a) if a.eq_ignore_ascii_case("c") => ElicitResult::cancel(),
        Some(_) => ElicitResult::accept(content),
        None => ElicitResult::decline(),
    }
}

fn field_prompt(name: &str, field: &Value, required: bool) -> String {
    let kind = field["type"].as_str().unwrap_or("string");
    let mut prompt = format!("{name} ({kind}");
    if let Some(options) = field["enum"].as_array() {
        let options: Vec<String> = options.iter().map(ToString::to_string).collect();
        prompt.push_str(&format!(": one of {}", options.join(", ")));
    }
    prompt.push(')');
    if !required {
        prompt.push_str(" [optional]");
    }
    if let Some(description) = field["description"].as_str() {
        prompt.push_str(&format!(" — {description}"));
    }
    if let Some(default) = field.get("default") {
        prompt.push_str(&format!(" [default {default}]"));
    }
    prompt.push_str(": ");
    prompt
}

/// A typed answer to one field, or what is wrong with it.
fn parse(line: &str, field: &Value) -> Result<Value, String> {
    let value = match field["type"].as_str().unwrap_or("string") {
        "boolean" => match line.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Value::Bool(true),
            "n" | "no" | "false" => Value::Bool(false),
            _ => return Err("answer y or n".into()),
        },
        "integer" => line
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("`{line}` is not an integer"))?,
        "number" => line
            .parse::<f64>()
            .ok()
            .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number))
            .ok_or_else(|| format!("`{line}` is not a number"))?,
        "array" => Value::Array(
            line.split(',')
                .map(|item| Value::String(item.trim().to_owned()))
                .collect(),
        ),
        _ => Value::String(line.to_owned()),
    };
    if let Some(options) = field["enum"].as_array()
        && !options.contains(&value)
    {
        return Err(format!("`{line}` is not one of the options"));
    }
    Ok(value)
}
