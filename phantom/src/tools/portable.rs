//! Portable spelling of listed schemas: schemars' non-standard integer formats (`uint32`, …)
//! become `minimum`/`maximum`, and `type` arrays become `anyOf`, so that every client's JSON Schema
//! validator reads them without warnings. What validates stays the same.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value, json};

/// The tool descriptor with its `inputSchema` and `outputSchema` in portable spelling, or `None`
/// when schemars' spelling is portable already (see [`make_portable`]).
pub(crate) fn portable_descriptor(descriptor: &Map<String, Value>) -> Option<Map<String, Value>> {
    let mut portable = descriptor.clone();
    let mut changed = false;
    for key in ["inputSchema", "outputSchema"] {
        if let Some(schema) = portable.get_mut(key) {
            changed |= make_portable(schema);
        }
    }
    changed.then_some(portable)
}

/// Rewrites, in `schema` and every subschema (`properties`, `$defs`, `anyOf`, `items`, …), the two
/// spellings of schemars that clients trip over, without changing which values of the Rust type
/// validate:
///
/// 1. schemars' integer formats (`"format": "uint32"`, `"int64"`, `"uint"`, …) are not formats of
///    JSON Schema, and Ajv-based clients print "unknown format" for each. On an integer schema
///    the format is dropped and the range it implies goes into `minimum`/`maximum` (a tighter
///    bound already there is kept). Other formats (`email`, `date-time`, `double`, …) stay.
/// 2. A `type` array (`["integer", "null"]`, from `Option<T>`) becomes `anyOf` branches of one
///    `type` each, which clients mapping schemas onto a single-type dialect can read; keywords
///    that only constrain one type (`minimum`, `items`, `properties`, …) move into its branch.
///
/// Data positions (`enum`, `const`, `default`, `examples`) are never looked into. Returns whether
/// anything changed.
pub(crate) fn make_portable(schema: &mut Value) -> bool {
    let Value::Object(obj) = schema else {
        return false;
    };
    let mut changed = integer_format_to_range(obj);
    changed |= split_type_union(obj);
    for (key, value) in obj.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
            | "dependencies" => {
                if let Value::Object(map) = value {
                    for sub in map.values_mut() {
                        changed |= make_portable(sub);
                    }
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" | "items" => match value {
                Value::Array(subs) => {
                    for sub in subs {
                        changed |= make_portable(sub);
                    }
                }
                sub => changed |= make_portable(sub),
            },
            "additionalItems"
            | "unevaluatedItems"
            | "contains"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "propertyNames"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contentSchema" => changed |= make_portable(value),
            _ => {}
        }
    }
    changed
}

/// The range a schemars integer format stands for, as (`minimum`, `maximum`). 128-bit ranges do
/// not fit a JSON number serde_json writes, so they keep only their sign.
fn integer_range(format: &str) -> Option<(Option<Value>, Option<Value>)> {
    let range = |min: Value, max: Value| (Some(min), Some(max));
    Some(match format {
        "int8" => range(i8::MIN.into(), i8::MAX.into()),
        "int16" => range(i16::MIN.into(), i16::MAX.into()),
        "int32" => range(i32::MIN.into(), i32::MAX.into()),
        "int64" => range(i64::MIN.into(), i64::MAX.into()),
        "int" => range(isize::MIN.into(), isize::MAX.into()),
        "uint8" => range(0.into(), u8::MAX.into()),
        "uint16" => range(0.into(), u16::MAX.into()),
        "uint32" => range(0.into(), u32::MAX.into()),
        "uint64" => range(0.into(), u64::MAX.into()),
        "uint" => range(0.into(), usize::MAX.into()),
        "uint128" => (Some(0.into()), None),
        "int128" => (None, None),
        _ => return None,
    })
}

/// Step 1 of [`make_portable`]: a schemars integer format as `minimum`/`maximum`.
fn integer_format_to_range(obj: &mut Map<String, Value>) -> bool {
    let is_integer = match obj.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
        _ => false,
    };
    let range = obj
        .get("format")
        .and_then(Value::as_str)
        .and_then(integer_range);
    let (Some((min, max)), true) = (range, is_integer) else {
        return false;
    };
    obj.remove("format");
    if let Some(min) = min {
        tighten(obj, "minimum", min, Ordering::Greater);
    }
    if let Some(max) = max {
        tighten(obj, "maximum", max, Ordering::Less);
    }
    true
}

/// Sets `obj[key]` to `bound` unless a bound already there is as tight (compares `tighter` or
/// equal to it) or is not a number (left for the schema's author to explain).
fn tighten(obj: &mut Map<String, Value>, key: &str, bound: Value, tighter: Ordering) {
    let keep = obj
        .get(key)
        .is_some_and(|existing| match (existing, &bound) {
            (Value::Number(a), Value::Number(b)) => compare(a, b) != Some(tighter.reverse()),
            _ => true,
        });
    if !keep {
        obj.insert(key.into(), bound);
    }
}

/// Compares two JSON numbers exactly when both are integers (`u64::MAX` and `u64::MAX - 1` differ
/// though they are the same `f64`).
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    let int = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (int(a), int(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// The instance types a keyword constrains, for the keywords that constrain only some; `format`
/// is copied to every branch but `null`.
fn constrained_types(keyword: &str) -> Option<&'static [&'static str]> {
    Some(match keyword {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            &["integer", "number"]
        }
        "minLength" | "maxLength" | "pattern" | "contentEncoding" | "contentMediaType"
        | "contentSchema" => &["string"],
        "items" | "prefixItems" | "additionalItems" | "contains" | "minContains"
        | "maxContains" | "minItems" | "maxItems" | "uniqueItems" => &["array"],
        "properties"
        | "patternProperties"
        | "additionalProperties"
        | "propertyNames"
        | "required"
        | "dependentRequired"
        | "dependentSchemas"
        | "dependencies"
        | "minProperties"
        | "maxProperties" => &["object"],
        "format" => &["string", "integer", "number", "boolean", "array", "object"],
        _ => return None,
    })
}

/// Step 2 of [`make_portable`]: a `type` array as `anyOf` branches of one `type` each.
fn split_type_union(obj: &mut Map<String, Value>) -> bool {
    let Some(Value::Array(types)) = obj.get("type") else {
        return false;
    };
    let Some(types) = types
        .iter()
        .map(|t| t.as_str().map(str::to_owned))
        .collect::<Option<Vec<String>>>()
    else {
        return false;
    };
    if let [only] = types.as_slice() {
        obj.insert("type".into(), only.as_str().into());
        return true;
    }
    // Where to put the branches: `anyOf`, or inside `allOf` when `anyOf` is taken.
    let free = !obj.contains_key("anyOf");
    if types.is_empty() || !(free || obj.get("allOf").is_none_or(Value::is_array)) {
        return false;
    }
    obj.remove("type");
    let mut branches: Vec<Map<String, Value>> = types
        .iter()
        .map(|t| Map::from_iter([("type".to_owned(), Value::from(t.as_str()))]))
        .collect();
    // `unevaluated*` see what sibling keywords evaluated: moving those into a branch would change
    // what they see, so such a schema keeps its keywords where they are.
    if !obj.contains_key("unevaluatedProperties") && !obj.contains_key("unevaluatedItems") {
        let keywords: Vec<String> = obj.keys().cloned().collect();
        for keyword in keywords {
            let Some(applies) = constrained_types(&keyword) else {
                continue;
            };
            let mut targets = branches
                .iter_mut()
                .filter(|b| {
                    b.get("type")
                        .and_then(Value::as_str)
                        .is_some_and(|t| applies.contains(&t))
                })
                .peekable();
            if targets.peek().is_some()
                && let Some(value) = obj.remove(&keyword)
            {
                for branch in targets {
                    branch.insert(keyword.clone(), value.clone());
                }
            }
        }
    }
    let any_of = Value::Array(branches.into_iter().map(Value::Object).collect());
    if free {
        obj.insert("anyOf".into(), any_of);
    } else if let Value::Array(all_of) = obj
        .entry("allOf")
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        all_of.push(json!({ "anyOf": any_of }));
    }
    true
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{make_portable, portable_descriptor};

    fn portable(mut schema: Value) -> Value {
        make_portable(&mut schema);
        schema
    }

    #[test]
    fn every_integer_format_becomes_its_range() {
        let cases = [
            ("int8", json!(-128), json!(127)),
            ("int16", json!(-32768), json!(32767)),
            ("int32", json!(-2_147_483_648_i64), json!(2_147_483_647)),
            ("int64", json!(i64::MIN), json!(i64::MAX)),
            ("int", json!(isize::MIN), json!(isize::MAX)),
            ("uint8", json!(0), json!(255)),
            ("uint16", json!(0), json!(65535)),
            ("uint32", json!(0), json!(4_294_967_295_u64)),
            ("uint64", json!(0), json!(u64::MAX)),
            ("uint", json!(0), json!(usize::MAX)),
        ];
        for (format, min, max) in cases {
            assert_eq!(
                portable(json!({"type": "integer", "format": format})),
                json!({"type": "integer", "minimum": min, "maximum": max}),
                "{format}"
            );
        }
        assert_eq!(
            portable(json!({"type": "integer", "format": "uint128", "minimum": 0})),
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(
            portable(json!({"type": "integer", "format": "int128"})),
            json!({"type": "integer"})
        );
    }

    #[test]
    fn a_tighter_bound_is_kept_and_a_looser_one_tightened() {
        assert_eq!(
            portable(json!({"type": "integer", "format": "uint8", "minimum": 1, "maximum": 50})),
            json!({"type": "integer", "minimum": 1, "maximum": 50})
        );
        assert_eq!(
            portable(
                json!({"type": "integer", "format": "int8", "minimum": -1000, "maximum": 1.5e3})
            ),
            json!({"type": "integer", "minimum": -128, "maximum": 127})
        );
        // Exact beyond 2^53, where `f64` would call both bounds equal.
        assert_eq!(
            portable(json!({"type": "integer", "format": "uint64", "maximum": u64::MAX - 1})),
            json!({"type": "integer", "minimum": 0, "maximum": u64::MAX - 1})
        );
    }

    #[test]
    fn standard_and_non_integer_formats_pass_through() {
        for schema in [
            json!({"type": "string", "format": "email"}),
            json!({"type": "string", "format": "date-time"}),
            json!({"type": "string", "format": "int64"}),
            json!({"type": "number", "format": "double"}),
            json!({"format": "uint32"}),
        ] {
            let mut rewritten = schema.clone();
            assert!(!make_portable(&mut rewritten), "{schema}");
            assert_eq!(rewritten, schema);
        }
    }

    #[test]
    fn a_type_array_becomes_branches_holding_their_keywords() {
        assert_eq!(
            portable(json!({"type": ["integer", "null"], "format": "int32", "description": "d"})),
            json!({
                "description": "d",
                "anyOf": [
                    {"type": "integer", "minimum": -2_147_483_648_i64, "maximum": 2_147_483_647},
                    {"type": "null"},
                ],
            })
        );
        assert_eq!(
            portable(json!({
                "type": ["array", "null"],
                "items": {"type": "integer", "format": "uint16"},
                "minItems": 1,
            })),
            json!({"anyOf": [
                {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 65535}, "minItems": 1},
                {"type": "null"},
            ]})
        );
        assert_eq!(
            portable(
                json!({"type": ["string", "number"], "format": "email", "maxLength": 9, "enum": ["a", 1]})
            ),
            json!({
                "enum": ["a", 1],
                "anyOf": [
                    {"type": "string", "format": "email", "maxLength": 9},
                    {"type": "number", "format": "email"},
                ],
            })
        );
        assert_eq!(
            portable(json!({"type": ["integer"]})),
            json!({"type": "integer"})
        );
    }

    #[test]
    fn a_type_array_beside_any_of_or_unevaluated_keywords_keeps_their_meaning() {
        assert_eq!(
            portable(
                json!({"type": ["string", "null"], "anyOf": [{"minLength": 2}, {"type": "null"}]})
            ),
            json!({
                "anyOf": [{"minLength": 2}, {"type": "null"}],
                "allOf": [{"anyOf": [{"type": "string"}, {"type": "null"}]}],
            })
        );
        assert_eq!(
            portable(json!({
                "type": ["object", "null"],
                "properties": {"a": {"type": "string"}},
                "unevaluatedProperties": false,
            })),
            json!({
                "properties": {"a": {"type": "string"}},
                "unevaluatedProperties": false,
                "anyOf": [{"type": "object"}, {"type": "null"}],
            })
        );
    }

    #[test]
    fn subschemas_are_rewritten_and_data_is_not() {
        let data = json!({"type": ["integer", "null"], "format": "uint32"});
        let schema = json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "format": "uint8"}},
            "additionalProperties": {"type": "integer", "format": "uint8"},
            "$defs": {"D": {"type": "object", "properties": {"m": {"$ref": "#/$defs/E"}}}, "E": {"type": "integer", "format": "int16"}},
            "default": data,
            "examples": [data],
            "enum": [data],
            "const": data,
        });
        let byte = json!({"type": "integer", "minimum": 0, "maximum": 255});
        assert_eq!(
            portable(schema),
            json!({
                "type": "object",
                "properties": {"n": byte},
                "additionalProperties": byte,
                "$defs": {"D": {"type": "object", "properties": {"m": {"$ref": "#/$defs/E"}}}, "E": {"type": "integer", "minimum": -32768, "maximum": 32767}},
                "default": data,
                "examples": [data],
                "enum": [data],
                "const": data,
            })
        );
    }

    #[test]
    fn a_descriptor_is_rewritten_only_when_it_changes() {
        let plain = json!({"name": "t", "inputSchema": {"type": "object"}});
        assert!(portable_descriptor(plain.as_object().expect("object")).is_none());
        let wide = json!({
            "name": "t",
            "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "format": "uint8"}}},
            "outputSchema": {"type": "object", "properties": {"m": {"type": ["integer", "null"]}}},
        });
        let rewritten = portable_descriptor(wide.as_object().expect("object")).expect("changed");
        assert_eq!(
            Value::Object(rewritten),
            json!({
                "name": "t",
                "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 255}}},
                "outputSchema": {"type": "object", "properties": {"m": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}},
            })
        );
    }

    /// The same values validate before and after, for values of the Rust type the schema describes.
    #[cfg(feature = "validation")]
    #[test]
    fn the_same_values_validate() {
        let cases = [
            (
                json!({"type": ["integer", "null"], "format": "int8", "minimum": -128, "maximum": 127}),
                vec![
                    json!(null),
                    json!(-128),
                    json!(127),
                    json!(128),
                    json!(1.5),
                    json!("1"),
                ],
            ),
            (
                json!({"type": ["array", "null"], "items": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}, "maxItems": 2}),
                vec![
                    json!(null),
                    json!([]),
                    json!([1, 2]),
                    json!([1, 2, 3]),
                    json!([256]),
                    json!({}),
                ],
            ),
            (
                json!({"type": ["string", "null"], "minLength": 2, "anyOf": [{"pattern": "^a"}, {"type": "null"}]}),
                vec![json!(null), json!("ab"), json!("a"), json!("ba"), json!(3)],
            ),
            (
                json!({"type": "object", "properties": {"o": {"type": ["object", "null"], "properties": {"a": {"type": "string"}}, "unevaluatedProperties": false}}}),
                vec![
                    json!({"o": null}),
                    json!({"o": {"a": "x"}}),
                    json!({"o": {"b": 1}}),
                    json!({"o": {"a": 1}}),
                ],
            ),
        ];
        for (schema, values) in cases {
            let before = jsonschema::validator_for(&schema).expect("compiles");
            let rewritten = portable(schema.clone());
            let after = jsonschema::validator_for(&rewritten).expect("compiles");
            for value in values {
                assert_eq!(
                    before.is_valid(&value),
                    after.is_valid(&value),
                    "{value} against {schema} and {rewritten}"
                );
            }
        }
    }
}
