//! [`Form`]: the `requestedSchema` of a form elicitation, built from the primitives the spec
//! allows (strings with formats, numbers, integers, booleans, and the five enum forms of
//! SEP-1330), each with an optional default (SEP-1034).

use serde_json::{Map, Value, json};

/// A flat object schema of primitive fields, as `elicitation/create` requires.
///
/// ```
/// use phantom::{input::{Field, Form}};
///
/// let form = Form::new()
///     .required("name", Field::string().title("Your name").default("John Doe"))
///     .field("age", Field::integer().minimum(0.0).default(30))
///     .field("plan", Field::titled_choice([("free", "Free"), ("pro", "Pro")]));
/// assert_eq!(form.schema()["required"], serde_json::json!(["name"]));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Form {
    properties: Map<String, Value>,
    required: Vec<String>,
}

impl Form {
    /// An empty form.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an optional field.
    pub fn field(mut self, name: impl Into<String>, field: Field) -> Self {
        self.properties.insert(name.into(), Value::Object(field.0));
        self
    }

    /// Adds a field the user must fill in.
    pub fn required(mut self, name: impl Into<String>, field: Field) -> Self {
        let name = name.into();
        self.required.push(name.clone());
        self.field(name, field)
    }

    /// The schema: `{"type": "object", "properties": …, "required": […]}`.
    pub fn schema(&self) -> Value {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(self.properties.clone()));
        if !self.required.is_empty() {
            schema.insert("required".into(), json!(self.required));
        }
        Value::Object(schema)
    }
}

/// One field of a [`Form`]: a string (plain or with a format), a number, an integer, a boolean,
/// or one of the five choice forms, each with an optional title, description and default.
///
/// ```
/// use phantom::input::{Field, Form};
/// use serde_json::json;
///
/// let form = Form::new()
///     .required("name", Field::string().min_length(1).max_length(64).title("Name"))
///     .field("email", Field::email().description("Where we write"))
///     .field("site", Field::uri())
///     .field("born", Field::date())
///     .field("seen", Field::date_time())
///     .field("ratio", Field::number().minimum(0.0).maximum(1.0))
///     .field("count", Field::integer().default(1))
///     .field("subscribe", Field::boolean().default(false))
///     .field("status", Field::choice(["active", "paused"]).default("active"))
///     .field("plan", Field::titled_choice([("free", "Free"), ("pro", "Pro")]))
///     .field("tier", Field::legacy_choice(["a", "b"], ["Tier A", "Tier B"]))
///     .field("tags", Field::multi_choice(["red", "blue"]).min_items(1).max_items(2))
///     .field("zones", Field::titled_multi_choice([("eu", "Europe"), ("us", "Americas")]));
/// let status = &form.schema()["properties"]["status"];
/// assert_eq!(status["enum"], json!(["active", "paused"]));
/// assert_eq!(status["default"], "active");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Field(Map<String, Value>);

fn typed(ty: &str) -> Field {
    let mut map = Map::new();
    map.insert("type".into(), ty.into());
    Field(map)
}

fn strings<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Value {
    Value::Array(
        values
            .into_iter()
            .map(|v| Value::String(v.into()))
            .collect(),
    )
}

fn titled<I, V, T>(options: I) -> Value
where
    I: IntoIterator<Item = (V, T)>,
    V: Into<String>,
    T: Into<String>,
{
    Value::Array(
        options
            .into_iter()
            .map(|(v, t)| json!({ "const": v.into(), "title": t.into() }))
            .collect(),
    )
}

impl Field {
    /// A string.
    pub fn string() -> Self {
        typed("string")
    }

    /// A string in a format the spec allows: `email`, `uri`, `date` or `date-time`.
    fn formatted(format: &str) -> Self {
        Self::string().with("format", format.into())
    }

    /// An email address.
    pub fn email() -> Self {
        Self::formatted("email")
    }

    /// A URI.
    pub fn uri() -> Self {
        Self::formatted("uri")
    }

    /// A date (`2026-12-01`).
    pub fn date() -> Self {
        Self::formatted("date")
    }

    /// A date and time (RFC 3339).
    pub fn date_time() -> Self {
        Self::formatted("date-time")
    }

    /// A number.
    pub fn number() -> Self {
        typed("number")
    }

    /// An integer.
    pub fn integer() -> Self {
        typed("integer")
    }

    /// A boolean.
    pub fn boolean() -> Self {
        typed("boolean")
    }

    /// One of `values` (an untitled single-select: `enum`).
    pub fn choice<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Self {
        Self::string().with("enum", strings(values))
    }

    /// One of `(value, title)` options (a titled single-select: `oneOf` of `const`/`title`).
    pub fn titled_choice<I, V, T>(options: I) -> Self
    where
        I: IntoIterator<Item = (V, T)>,
        V: Into<String>,
        T: Into<String>,
    {
        Self::string().with("oneOf", titled(options))
    }

    /// One of `values`, shown with `names` (the deprecated `enumNames` form, for older clients).
    pub fn legacy_choice<I, S, J, N>(values: I, names: J) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
        J: IntoIterator<Item = N>,
        N: Into<String>,
    {
        Self::choice(values).with("enumNames", strings(names))
    }

    /// Any of `values` (an untitled multi-select: an array of `enum` items).
    pub fn multi_choice<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Self {
        typed("array").with(
            "items",
            json!({ "type": "string", "enum": strings(values) }),
        )
    }

    /// Any of `(value, title)` options (a titled multi-select: an array of `anyOf` items).
    pub fn titled_multi_choice<I, V, T>(options: I) -> Self
    where
        I: IntoIterator<Item = (V, T)>,
        V: Into<String>,
        T: Into<String>,
    {
        typed("array").with("items", json!({ "anyOf": titled(options) }))
    }

    fn with(mut self, key: &str, value: Value) -> Self {
        self.0.insert(key.into(), value);
        self
    }

    /// A title shown to the user.
    pub fn title(self, title: impl Into<String>) -> Self {
        self.with("title", title.into().into())
    }

    /// A description shown to the user.
    pub fn description(self, text: impl Into<String>) -> Self {
        self.with("description", text.into().into())
    }

    /// The value the form starts with (SEP-1034).
    pub fn default(self, value: impl Into<Value>) -> Self {
        self.with("default", value.into())
    }

    /// The shortest string allowed.
    pub fn min_length(self, n: u32) -> Self {
        self.with("minLength", n.into())
    }

    /// The longest string allowed.
    pub fn max_length(self, n: u32) -> Self {
        self.with("maxLength", n.into())
    }

    /// The smallest number allowed.
    pub fn minimum(self, n: f64) -> Self {
        self.with("minimum", n.into())
    }

    /// The largest number allowed.
    pub fn maximum(self, n: f64) -> Self {
        self.with("maximum", n.into())
    }

    /// The fewest items a multi-select allows.
    pub fn min_items(self, n: u32) -> Self {
        self.with("minItems", n.into())
    }

    /// The most items a multi-select allows.
    pub fn max_items(self, n: u32) -> Self {
        self.with("maxItems", n.into())
    }
}
