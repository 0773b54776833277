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
            .map(|e| (e.instance_path.to_string(), e.to_string()))
    }

    #[cfg(not(feature = "validation"))]
    pub(crate) fn first_error(&self, value: &Value) -> Option<(String, String)> {
        let _ = value;
        match *self {}
    }
}
