//! Pieces of the list items every room builds for its entries: icons, `_meta` maps, optional
//! members, and the serialized item.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::Icon;

/// A `_meta` value written in an attribute: `meta(key = "text" | 1 | true)`. Generated code
/// names it through `phantom::__private`.
#[derive(Debug, Clone, Copy)]
pub enum MetaValue {
    /// A string.
    Str(&'static str),
    /// An integer.
    Int(i64),
    /// A number with a fraction or exponent.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

/// A `_meta` map from the `meta(…)` pairs of an attribute.
pub(crate) fn meta_map(meta: &[(&'static str, MetaValue)]) -> Map<String, Value> {
    meta.iter()
        .map(|(k, v)| {
            let v = match *v {
                MetaValue::Str(s) => Value::from(s),
                MetaValue::Int(i) => Value::from(i),
                MetaValue::Float(f) => Value::from(f),
                MetaValue::Bool(b) => Value::from(b),
            };
            ((*k).to_owned(), v)
        })
        .collect()
}

/// The icons of an `icons = […]` attribute (sources only).
pub(crate) fn icons(srcs: &[&'static str]) -> Vec<Icon> {
    srcs.iter()
        .map(|src| Icon {
            src: (*src).to_owned(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        })
        .collect()
}

/// The serialized form of a list item.
pub(crate) fn raw(value: &impl serde::Serialize) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).expect("descriptor serializes")
}

/// `icons` of a list item, when it has any.
pub(crate) fn put_icons(obj: &mut Map<String, Value>, srcs: &[&'static str]) {
    if !srcs.is_empty() {
        let icons = serde_json::to_value(icons(srcs)).unwrap_or_default();
        obj.insert("icons".into(), icons);
    }
}

/// `key: value` in a list item, when there is a value.
pub(crate) fn put(obj: &mut Map<String, Value>, key: &str, value: Option<impl Into<Value>>) {
    if let Some(v) = value {
        obj.insert(key.into(), v.into());
    }
}
