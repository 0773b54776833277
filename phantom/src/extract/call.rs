//! A tool's or prompt's call as its parameters are read from it ([`CallParts`]), and described
//! once per router ([`ArgsBuilder`]): what [`CallParam`](super::CallParam) is sealed by. Generated
//! code names these through `phantom::__private`; they are no public path.

use std::borrow::Cow;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::de::value::BorrowedStrDeserializer;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use smallvec::SmallVec;

use super::{Arguments, Context, Ctx, FromContext};
use crate::protocol::Key;
use crate::protocol::scan::{Kind, Scan};
use crate::session::{Request, Session};

/// The raw arguments of one call, borrowed from the request body, in the order they were sent.
#[derive(Debug, Default)]
pub(crate) struct Args<'a> {
    pairs: Pairs<'a>,
    raw: Option<&'a RawValue>,
    /// Prompt arguments: every value arrives as a string, so a typed argument is read from the
    /// string's text when the string itself does not fit.
    pub(crate) strings: bool,
}

impl<'a> Args<'a> {
    pub(crate) fn parse(raw: Option<&'a RawValue>) -> Result<Self, String> {
        let Some(raw) = raw else {
            return Ok(Self::default());
        };
        if raw.get() == "null" {
            return Ok(Self::default());
        }
        // Scanned where it stands; serde_json reads what the scan does not take (keys with
        // escapes, errors), with the same result.
        let mut pairs = Pairs::new();
        let mut at = Scan::new(raw.get());
        let scanned = at.kind().is_some_and(|k| matches!(k, Kind::Object))
            && at
                .members(|at, name| {
                    pairs.push((Cow::Borrowed(name), at.value()?));
                    Some(())
                })
                .is_some()
            && at.finished();
        if !scanned {
            pairs = serde_json::from_str::<ArgsVisitorOut<'a>>(raw.get())
                .map(|o| o.0)
                .map_err(|_| "`arguments` must be an object".to_owned())?;
        }
        Ok(Self {
            pairs,
            raw: Some(raw),
            strings: false,
        })
    }

    /// The raw value of one argument.
    pub(crate) fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.pairs.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }

    /// The whole `arguments` object, as sent.
    pub(crate) fn raw(&self) -> Option<&'a RawValue> {
        self.raw
    }

    /// Argument names, in the order sent.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.pairs.iter().map(|(k, _)| k.as_ref())
    }
}

/// Arguments by name, in the order sent: up to four held inline (most tools take no more).
type Pairs<'a> = SmallVec<[(Cow<'a, str>, &'a RawValue); 4]>;

struct ArgsVisitorOut<'a>(Pairs<'a>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for ArgsVisitorOut<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = ArgsVisitorOut<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut m: M,
            ) -> Result<Self::Value, M::Error> {
                let mut out = Pairs::new();
                while let Some((Key(k), v)) = m.next_entry::<Key<'de>, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(ArgsVisitorOut(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// Everything a tool or prompt handler can take its parameters from.
#[derive(Debug)]
pub struct CallParts<'a> {
    /// The request's context.
    pub(crate) cx: Context<'a>,
    /// The call's arguments.
    pub(crate) args: Args<'a>,
}

/// One argument as it appears in a tool's input schema or a prompt's argument list.
#[derive(Debug, Clone)]
pub(crate) struct ArgSpec {
    /// The wire name.
    pub name: &'static str,
    /// The description from `#[arg(description = "…")]` or the schema.
    pub description: Option<&'static str>,
    /// Whether the argument may be left out (its type accepts `null`, e.g. `Option<T>`).
    pub required: bool,
    /// The argument's JSON Schema.
    pub schema: Schema,
    /// `#[arg(header = "Region")]`: over HTTP, the 2026-07-28 client mirrors the argument in an
    /// `Mcp-Param-Region` header, which phantom checks against the body.
    pub header: Option<&'static str>,
}

/// Collects the arguments of one handler while its schema is built (once per router).
#[derive(Debug)]
pub struct ArgsBuilder<'g> {
    generator: &'g mut SchemaGenerator,
    pub(crate) specs: Vec<ArgSpec>,
    /// The whole input schema, when an [`Arguments`](super::Arguments) parameter takes every argument.
    pub(crate) root: Option<Schema>,
}

impl<'g> ArgsBuilder<'g> {
    pub(crate) fn new(generator: &'g mut SchemaGenerator) -> Self {
        Self {
            generator,
            specs: Vec::new(),
            root: None,
        }
    }

    /// Describes the parameter of type `T` named `name`.
    pub fn param<'a, T: ReadParam<'a>>(
        &mut self,
        name: &'static str,
        description: Option<&'static str>,
    ) {
        T::describe(self, name, description);
    }

    /// Describes an argument mirrored in the `Mcp-Param-<header>` HTTP header (`x-mcp-header`).
    pub fn param_header<'a, T: ReadParam<'a>>(
        &mut self,
        name: &'static str,
        description: Option<&'static str>,
        header: &'static str,
    ) {
        T::describe(self, name, description);
        if let Some(spec) = self.specs.last_mut().filter(|s| s.name == name) {
            spec.header = Some(header);
            if let Some(obj) = spec.schema.as_object_mut() {
                obj.insert("x-mcp-header".into(), header.into());
            }
        }
    }

    /// Adds one argument with the schema of `T`.
    pub fn arg<T: JsonSchema + DeserializeOwned>(
        &mut self,
        name: &'static str,
        description: Option<&'static str>,
    ) {
        let mut schema = self.generator.subschema_for::<T>();
        if let Some(desc) = description
            && let Some(obj) = schema.as_object_mut()
        {
            obj.insert("description".into(), desc.into());
        }
        let required = serde_json::from_str::<T>("null").is_err();
        self.specs.push(ArgSpec {
            header: None,
            name,
            description,
            required,
            schema,
        });
    }
}

/// How a [`CallParam`](super::CallParam) is read and described: the sealing supertrait, which
/// only this crate implements (for arguments, [`Arguments`] and the context types). Generated
/// code calls it.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a `#[tool]` or `#[prompt]` handler",
    label = "not an argument type nor a context type",
    note = "arguments need `serde::Deserialize` and `schemars::JsonSchema`; context parameters are `&Session`, `&Request`, `Bearer`, `&AuthInfo`, `Ctx` and `Notifier`"
)]
pub trait ReadParam<'a>: Sized {
    /// Reads the parameter; `Err` is the message of the `isError` result (or `-32602` for prompts).
    fn from_call(parts: &CallParts<'a>, name: &'static str) -> Result<Self, String>;

    /// Adds the parameter to the handler's argument list, if it is an argument.
    fn describe(
        builder: &mut ArgsBuilder<'_>,
        name: &'static str,
        description: Option<&'static str>,
    );
}

impl<'a, T: DeserializeOwned + JsonSchema> ReadParam<'a> for T {
    fn from_call(parts: &CallParts<'a>, name: &'static str) -> Result<Self, String> {
        let raw = parts.args.get(name).map_or("null", RawValue::get);
        let direct = read_arg::<T>(raw);
        if direct.is_err()
            && parts.args.strings
            && raw.starts_with('"')
            && let Ok(text) = serde_json::from_str::<Cow<'_, str>>(raw)
            && let Ok(value) = serde_json::from_str(&text)
        {
            // `"5"` for a `u32`, `"true"` for a `bool`: MCP sends prompt arguments as strings.
            return Ok(value);
        }
        direct.map_err(|e| {
            if raw == "null" {
                format!("missing required argument `{name}`")
            } else {
                let e = e.to_string();
                let e = e.split(" at line ").next().unwrap_or(&e);
                format!("invalid argument `{name}`: {e}")
            }
        })
    }

    fn describe(
        builder: &mut ArgsBuilder<'_>,
        name: &'static str,
        description: Option<&'static str>,
    ) {
        builder.arg::<T>(name, description);
    }
}

/// An argument's value read as `T`, as serde_json reads it. A string without escapes is handed
/// over as the text it is (serde_json would scan it again); a type that does not take a string
/// is left to serde_json, which says why.
fn read_arg<T: DeserializeOwned>(raw: &str) -> serde_json::Result<T> {
    if let Some(text) = raw.strip_prefix('"').and_then(|t| t.strip_suffix('"'))
        && !text.bytes().any(|b| b == b'\\')
        && let Ok(value) = T::deserialize(BorrowedStrDeserializer::<serde_json::Error>::new(text))
    {
        return Ok(value);
    }
    serde_json::from_str(raw)
}

/// The context types are parameters of tools and prompts too (a blanket impl over
/// [`FromContext`] would overlap the one over arguments, so they are listed).
macro_rules! context_params {
    ($($ty:ty),*) => {$(
        impl<'a> ReadParam<'a> for $ty {
            fn from_call(parts: &CallParts<'a>, _: &'static str) -> Result<Self, String> {
                <$ty as FromContext<'a>>::from_context(&parts.cx)
            }

            fn describe(_: &mut ArgsBuilder<'_>, _: &'static str, _: Option<&'static str>) {}
        }
    )*};
}

context_params!(
    &'a Session,
    &'a Request,
    crate::auth::Bearer,
    &'a crate::auth::AuthInfo,
    Ctx,
    crate::Notifier
);

impl<'a, T: DeserializeOwned + JsonSchema> ReadParam<'a> for Arguments<T> {
    fn from_call(parts: &CallParts<'a>, _: &'static str) -> Result<Self, String> {
        let raw = parts.args.raw.map_or("{}", RawValue::get);
        serde_json::from_str(raw).map(Arguments).map_err(|e| {
            let e = e.to_string();
            format!(
                "invalid arguments: {}",
                e.split(" at line ").next().unwrap_or(&e)
            )
        })
    }

    fn describe(builder: &mut ArgsBuilder<'_>, _: &'static str, _: Option<&'static str>) {
        builder.root = Some(builder.generator.root_schema_for::<T>());
    }
}

/// The schema generator of handler arguments and outputs (JSON Schema 2020-12).
pub(crate) fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().into_generator()
}

/// The arguments of a `#[tool]` or `#[prompt]` handler: each one's spec, the `$defs` they share,
/// and the whole input schema when an [`Arguments`] parameter takes every argument.
pub(crate) fn describe_args(
    args: fn(&mut ArgsBuilder<'_>),
) -> (Vec<ArgSpec>, Map<String, Value>, Option<Value>) {
    let mut generator = generator();
    let mut builder = ArgsBuilder::new(&mut generator);
    args(&mut builder);
    let (specs, root) = (builder.specs, builder.root);
    let defs = generator.take_definitions(true);
    let root = root.map(|schema| {
        let mut value = schema.to_value();
        if let (Some(obj), false) = (value.as_object_mut(), defs.is_empty()) {
            let existing = obj
                .entry("$defs")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(existing) = existing.as_object_mut() {
                existing.extend(defs.clone());
            }
        }
        value
    });
    (specs, defs, root)
}

#[cfg(test)]
mod tests {
    use serde_json::value::RawValue;

    use super::{Args, ArgsVisitorOut};

    /// The arguments as `Args::parse` holds them, and as serde_json alone reads them.
    fn both(text: &str) -> (Result<String, String>, Result<String, String>) {
        let raw: &RawValue = serde_json::from_str(text).expect("JSON");
        let pairs = |pairs: &[(std::borrow::Cow<'_, str>, &RawValue)]| {
            pairs
                .iter()
                .map(|(k, v)| format!("{k}={}", v.get()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let parsed = Args::parse(Some(raw)).map(|a| pairs(&a.pairs));
        let serde = serde_json::from_str::<ArgsVisitorOut<'_>>(raw.get())
            .map(|o| pairs(&o.0))
            .map_err(|_| "`arguments` must be an object".to_owned());
        (parsed, serde)
    }

    #[test]
    fn an_argument_handed_over_as_text_reads_as_serde_json_reads_it() {
        use std::collections::BTreeMap;
        use std::fmt::Debug;

        use serde::de::DeserializeOwned;

        #[derive(Debug, serde::Deserialize)]
        enum Unit {
            A,
        }
        // Their fields are read through `Debug`, which dead-code analysis does not count.
        #[allow(dead_code)]
        #[derive(Debug, serde::Deserialize)]
        struct Wrapped(String);
        #[allow(dead_code)]
        #[derive(Debug, serde::Deserialize)]
        #[serde(untagged)]
        enum Either {
            N(u32),
            S(String),
        }
        fn same<T: DeserializeOwned + Debug>(raw: &str) {
            let ours = super::read_arg::<T>(raw).map_err(|e| e.to_string());
            let serde = serde_json::from_str::<T>(raw).map_err(|e| e.to_string());
            assert_eq!(format!("{ours:?}"), format!("{serde:?}"), "{raw}");
        }
        for raw in [
            r#""hello""#,
            r#""""#,
            r#""a""#,
            r#""A""#,
            r#""5""#,
            r#""é\n""#,
            "5",
            "null",
        ] {
            same::<String>(raw);
            same::<char>(raw);
            same::<Unit>(raw);
            same::<Wrapped>(raw);
            same::<Either>(raw);
            same::<Option<String>>(raw);
            same::<u32>(raw);
            same::<bool>(raw);
            same::<serde_json::Value>(raw);
            same::<Vec<u8>>(raw);
            same::<BTreeMap<String, u32>>(raw);
            same::<std::path::PathBuf>(raw);
        }
    }

    #[test]
    fn arguments_scanned_read_as_serde_json_reads_them() {
        for text in [
            r#"{"text":"hello"}"#,
            r#"{ "a" : 1 , "b" : [ {"c": null} ], "a": "again", "d": null }"#,
            r#"{"a\u0062":1,"n":2}"#,
            r#"{"1":1,"2":2,"3":3,"4":4,"5":5,"6":{"x":"\n"}}"#,
            "{}",
            "[1]",
            r#""text""#,
            "7",
        ] {
            let (parsed, serde) = both(text);
            assert_eq!(parsed, serde, "{text}");
        }
    }
}
