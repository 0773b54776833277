//! JSON Schemas of handler arguments and outputs (schemars, 2020-12), and the validators compiled
//! for the arguments whose schemas declare constraints.

use schemars::Schema;
use serde_json::{Map, Value, json};

use crate::extract::ArgSpec;
use crate::tools::validator::Validator;

const CONSTRAINTS: &[&str] = &[
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "enum",
    "const",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "not",
    "if",
    "oneOf",
    "minContains",
    "maxContains",
];

/// Whether a schema declares constraints, following `#/$defs/…` references to any depth (each
/// definition is looked at once, so recursive types terminate).
pub(crate) fn has_constraints<'d>(
    value: &Value,
    defs: &'d Map<String, Value>,
    seen: &mut Vec<&'d str>,
) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(k, v)| {
            CONSTRAINTS.contains(&k.as_str())
                || (k == "minimum" && v.as_f64().is_some_and(|m| m != 0.0))
                || (k == "$ref" && references_constraints(v, defs, seen))
                || has_constraints(v, defs, seen)
        }),
        Value::Array(items) => items.iter().any(|v| has_constraints(v, defs, seen)),
        _ => false,
    }
}

fn references_constraints<'d>(
    reference: &Value,
    defs: &'d Map<String, Value>,
    seen: &mut Vec<&'d str>,
) -> bool {
    let Some(name) = reference.as_str().and_then(|r| r.strip_prefix("#/$defs/")) else {
        return false;
    };
    let Some((name, def)) = defs.get_key_value(name) else {
        return false;
    };
    if seen.contains(&name.as_str()) {
        return false;
    }
    seen.push(name);
    has_constraints(def, defs, seen)
}

/// A validator for one argument, when its schema declares constraints. `Option<T>` arguments are
/// validated against `T`'s schema (a `null` value is skipped before validation), so messages name
/// the broken constraint instead of "not valid under any of the schemas listed in anyOf".
pub(crate) fn arg_validator(
    spec: &ArgSpec,
    defs: &Map<String, Value>,
) -> Option<(&'static str, Validator)> {
    let mut schema = spec.schema.clone().to_value();
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        let non_null: Vec<&Value> = branches
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if let [only] = non_null.as_slice() {
            schema = (*only).clone();
        }
    }
    let mut referenced = schema.clone();
    if let Some(obj) = referenced.as_object_mut() {
        if !defs.is_empty() {
            obj.insert("$defs".into(), Value::Object(defs.clone()));
        }
    } else {
        return None;
    }
    if !has_constraints(&schema, defs, &mut Vec::new()) {
        return None;
    }
    Validator::compile(&referenced).map(|v| (spec.name, v))
}

pub(crate) fn input_schema(specs: &[ArgSpec], defs: Map<String, Value>) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for spec in specs {
        props.insert(spec.name.into(), spec.schema.clone().to_value());
        if spec.required {
            required.push(Value::from(spec.name));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    if !props.is_empty() {
        schema.insert("properties".into(), props.into());
    }
    if !required.is_empty() {
        schema.insert("required".into(), required.into());
    }
    schema.insert("additionalProperties".into(), false.into());
    if !defs.is_empty() {
        schema.insert("$defs".into(), defs.into());
    }
    schema.into()
}

/// Wraps a non-object output schema as `{"result": …}` (legacy clients require an object).
pub(crate) fn output_schema(schema: Schema) -> (Value, bool) {
    let mut value = schema.to_value();
    if value.get("type").and_then(Value::as_str) == Some("object") {
        return (value, false);
    }
    let mut wrapper = Map::new();
    if let Some(obj) = value.as_object_mut() {
        for key in ["$schema", "$defs"] {
            if let Some(v) = obj.remove(key) {
                wrapper.insert(key.into(), v);
            }
        }
        obj.remove("title");
    }
    wrapper.insert("type".into(), "object".into());
    wrapper.insert("properties".into(), json!({ "result": value }));
    wrapper.insert("required".into(), json!(["result"]));
    (wrapper.into(), true)
}
