//! [`Validator`]: a compiled JSON Schema checking the arguments whose schemas declare constraints
//! (ranges, patterns, enums, …). It needs the `validation` feature (on by default); without it
//! schemas still advertise their constraints, phantom only checks types (through `Deserialize`),
//! and no validator is ever compiled.

use serde_json::Value;

/// A compiled argument schema.
#[cfg(feature = "validation")]
pub(crate) struct Validator(jsonschema::Validator);

/// No validators without the `validation` feature.
#[cfg(not(feature = "validation"))]
pub(crate) enum Validator {}

impl Validator {
    /// Compiles `schema`; `None` when it does not compile (or without the feature).
    #[cfg(feature = "validation")]
    pub(crate) fn compile(schema: &Value) -> Option<Self> {
        jsonschema::validator_for(schema).ok().map(Self)
    }

    #[cfg(not(feature = "validation"))]
    pub(crate) fn compile(schema: &Value) -> Option<Self> {
        let _ = schema;
        None
    }

    /// The first error of `value`: where (a JSON pointer) and what.
    #[cfg(feature = "validation")]
    pub(crate) fn first_error(&self, value: &Value) -> Option<(String, String)> {
        self.0
            .iter_errors(value)
            .next()
            .map(|e| (e.instance_path.to_string(), message(&e)))
    }

    #[cfg(not(feature = "validation"))]
    pub(crate) fn first_error(&self, value: &Value) -> Option<(String, String)> {
        let _ = value;
        match *self {}
    }
}

/// How many allowed values a message lists before it says how many more there are.
#[cfg(feature = "validation")]
const LISTED: usize = 50;

/// The message for `error`. A value outside a list of allowed ones (an `enum`, or an
/// `anyOf`/`oneOf` of `const`s, as schemars writes an enum whose variants have docs) lists them
/// all, up to [`LISTED`]: `jsonschema`'s own text shows three and "N other candidates", which
/// leaves a model calling the tool without the values it needs. Other messages are
/// `jsonschema`'s, which list every item they name.
#[cfg(feature = "validation")]
fn message(error: &jsonschema::ValidationError<'_>) -> String {
    use jsonschema::error::ValidationErrorKind as Kind;
    let values = match &error.kind {
        Kind::Enum { .. } | Kind::AnyOf { .. } | Kind::OneOfNotValid { .. } => allowed(&error.kind),
        _ => None,
    };
    match values {
        Some(values) if !values.is_empty() => {
            format!("{} is not one of {}", error.instance, listed(&values))
        }
        _ => error.to_string(),
    }
}

/// The values `kind` allows when they are a list: an `enum`, a `const`, `null` (`type:
/// "null"`, the `None` of an `Option`) or `anyOf`/`oneOf` branches each of which is one of
/// these. `None` when a branch failed otherwise (its values are not the whole story).
#[cfg(feature = "validation")]
fn allowed(kind: &jsonschema::error::ValidationErrorKind) -> Option<Vec<&Value>> {
    use jsonschema::JsonType;
    use jsonschema::error::{TypeKind, ValidationErrorKind as Kind};
    static NULL: Value = Value::Null;
    match kind {
        Kind::Enum { options } => Some(options.as_array()?.iter().collect()),
        Kind::Constant { expected_value } => Some(vec![expected_value]),
        Kind::Type {
            kind: TypeKind::Single(JsonType::Null),
        } => Some(vec![&NULL]),
        Kind::AnyOf { context } | Kind::OneOfNotValid { context } => {
            let mut values: Vec<&Value> = Vec::new();
            for branch in context {
                let [error] = branch.as_slice() else {
                    return None;
                };
                for value in allowed(&error.kind)? {
                    if !values.contains(&value) {
                        values.push(value);
                    }
                }
            }
            Some(values)
        }
        _ => None,
    }
}

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`; past [`LISTED`] values, the first ones and
/// `and N more`.
#[cfg(feature = "validation")]
fn listed(values: &[&Value]) -> String {
    let shown = &values[..values.len().min(LISTED)];
    let mut text = String::new();
    for (i, value) in shown.iter().enumerate() {
        if i > 0 {
            text.push_str(if i + 1 == values.len() { " or " } else { ", " });
        }
        text.push_str(&value.to_string());
    }
    if values.len() > shown.len() {
        text.push_str(&format!(" and {} more", values.len() - shown.len()));
    }
    text
}

#[cfg(all(test, feature = "validation"))]
mod tests {
    use serde_json::{Value, json};

    use super::Validator;

    fn error(schema: &Value, value: &Value) -> String {
        let validator = Validator::compile(schema).expect("a schema");
        validator.first_error(value).expect("an error").1
    }

    #[test]
    fn an_enum_lists_every_value() {
        let schema = json!({"enum": ["sev1", "sev2", "sev3", "sev4"]});
        assert_eq!(
            error(&schema, &json!("critical")),
            r#""critical" is not one of "sev1", "sev2", "sev3" or "sev4""#
        );
        assert_eq!(
            error(&json!({"enum": ["only"]}), &json!("other")),
            r#""other" is not one of "only""#
        );
    }

    #[test]
    fn past_fifty_values_it_says_how_many_more() {
        let values: Vec<String> = (1..=60).map(|i| format!("v{i}")).collect();
        let text = error(&json!({"enum": values}), &json!("v0"));
        assert!(text.contains(r#""v1", "v2", "#), "{text}");
        assert!(text.ends_with(r#""v49", "v50" and 10 more"#), "{text}");
        assert!(!text.contains(r#""v51""#), "{text}");
    }

    #[test]
    fn consts_in_one_of_and_a_null_in_any_of_are_listed() {
        let documented = json!({"oneOf": [
            {"type": "string", "const": "sev1", "description": "down"},
            {"type": "string", "const": "sev2", "description": "degraded"},
            {"type": "string", "const": "sev3", "description": "slow"},
            {"type": "string", "const": "sev4", "description": "cosmetic"},
        ]});
        assert_eq!(
            error(&documented, &json!("critical")),
            r#""critical" is not one of "sev1", "sev2", "sev3" or "sev4""#
        );
        let optional = json!({"anyOf": [{"enum": ["a", "b", "c", "d"]}, {"type": "null"}]});
        assert_eq!(
            error(&optional, &json!("e")),
            r#""e" is not one of "a", "b", "c", "d" or null"#
        );
    }

    #[test]
    fn other_messages_are_left_alone() {
        let mixed = json!({"anyOf": [{"const": "a"}, {"type": "integer", "minimum": 3}]});
        assert!(
            error(&mixed, &json!(1)).contains("anyOf"),
            "a branch that is no list of values"
        );
        assert_eq!(
            error(&json!({"maxLength": 2}), &json!("abc")),
            r#""abc" is longer than 2 characters"#
        );
    }
}
