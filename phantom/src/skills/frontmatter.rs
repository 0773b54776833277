//! The frontmatter of a `SKILL.md`, read as JSON: what a client compares with the frontmatter a
//! skill's listing gives (SEP-2640).
//!
//! The frontmatter is the `key: value` lines between an opening `---` line and the next `---`.
//! A value is read as JSON when it is JSON (`true`, `3`, `"quoted"`, `[1, 2]`: what phantom
//! writes), unquoted from single quotes, and taken as a plain string otherwise; a key with no
//! value followed by indented `key: value` lines is a map of those. This is the flat YAML skill
//! files use, not YAML in full.

use serde_json::{Map, Value};

/// The frontmatter of `text`, or what is wrong with it.
pub(crate) fn read(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("no frontmatter: the file does not start with a `---` line")?;
    let end = body
        .lines()
        .position(|l| l.trim_end() == "---")
        .ok_or("the frontmatter has no closing `---` line")?;
    let mut out = Map::new();
    let mut open: Option<String> = None;
    for (i, line) in body.lines().take(end).enumerate() {
        let line = line.trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        let (key, value) = line
            .trim()
            .split_once(':')
            .ok_or_else(|| format!("frontmatter line {} is not `key: value`", i + 2))?;
        let (key, value) = (key.trim().to_owned(), value.trim());
        if indented {
            let parent = open
                .as_ref()
                .and_then(|k| out.get_mut(k))
                .and_then(Value::as_object_mut)
                .ok_or_else(|| format!("frontmatter line {} is indented under no key", i + 2))?;
            parent.insert(key, scalar(value));
        } else if value.is_empty() {
            out.insert(key.clone(), Value::Object(Map::new()));
            open = Some(key);
        } else {
            out.insert(key, scalar(value));
            open = None;
        }
    }
    Ok(out)
}

/// One value: JSON when it reads as JSON, unquoted from single quotes, else the text itself.
fn scalar(value: &str) -> Value {
    if let Ok(json) = serde_json::from_str::<Value>(value) {
        return json;
    }
    if value.len() >= 2 && value.starts_with('\'') && value.ends_with('\'') {
        return Value::String(value[1..value.len() - 1].replace("''", "'"));
    }
    Value::String(value.to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn flat_yaml_reads_as_json() {
        let text = "---\nname: study-review\ndescription: Review a study: carefully.\nlicense: 'MIT'\nversion: 2\ntags: [\"a\", \"b\"]\nquoted: \"x \\\"y\\\"\"\nmetadata:\n  audience: reviewers\n  level: 3\n---\n\n# Body\nname: not frontmatter\n";
        assert_eq!(
            Value::Object(read(text).expect("reads")),
            json!({
                "name": "study-review",
                "description": "Review a study: carefully.",
                "license": "MIT",
                "version": 2,
                "tags": ["a", "b"],
                "quoted": "x \"y\"",
                "metadata": {"audience": "reviewers", "level": 3}
            })
        );
    }

    #[test]
    fn a_file_without_frontmatter_is_refused() {
        assert!(read("# no frontmatter\n").is_err());
        assert!(read("---\nname: x\n").is_err());
        assert!(read("---\n  indented: x\n---\n").is_err());
    }
}
