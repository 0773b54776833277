use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// JSON-RPC and MCP error codes, in one place.
pub mod codes {
    /// The body is not JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// The body is JSON but not a JSON-RPC request.
    pub const INVALID_REQUEST: i32 = -32600;
    /// Unknown method, or a method the request's era does not have.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Bad params: unknown tool or prompt, missing envelope key, bad cursor, unknown resource (modern).
    pub const INVALID_PARAMS: i32 = -32602;
    /// The server failed (including handler panics).
    pub const INTERNAL_ERROR: i32 = -32603;
    /// `connect` rejected the request (the HTTP status says how: 400, 401, 403 or 404); also an
    /// unknown or terminated session.
    pub const CONNECT_REJECTED: i32 = -32001;
    /// Legacy era: resource not found.
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// Modern era: an HTTP header disagrees with the body.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// Modern era: the request lacks a client capability the server needs.
    pub const MISSING_CLIENT_CAPABILITY: i32 = -32021;
    /// Modern era: the requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
    /// Legacy era: the request cannot go on until the user completes a URL elicitation
    /// (`data.elicitations`).
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
}

/// A JSON-RPC request id: a string or an integer, never `null`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(Arc<str>),
}

/// Read straight from the value (an untagged derive would buffer it first and try each variant):
/// an integer that fits `i64`, or a string; anything else is refused.
impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_i64<E>(self, n: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(n))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<RequestId, E> {
                i64::try_from(n).map(RequestId::Number).map_err(|_| {
                    E::invalid_value(serde::de::Unexpected::Unsigned(n), &"an integer of 64 bits")
                })
            }
            fn visit_str<E>(self, s: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(Arc::from(s)))
            }
        }
        d.deserialize_any(V)
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // `itoa`, not `core::fmt`'s integer formatting (the same text as `IdText`'s).
            Self::Number(n) => f.write_str(itoa::Buffer::new().format(*n)),
            Self::String(s) => f.write_str(s),
        }
    }
}

/// A JSON-RPC error object: `{code, message, data?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// One of [`codes`] or an application code.
    pub code: i32,
    /// Short description.
    pub message: Cow<'static, str>,
    /// Structured detail, e.g. `{"uri": …}` or `{"supported": […], "requested": …}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message.
    pub fn new(code: i32, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Adds `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

#[derive(Deserialize)]
struct Wire<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<Cow<'a, str>>,
    /// Present (even as `null`) or absent: `null` must not be read as "no id". Read in this
    /// pass; `Err` for a present id that is neither a string nor an integer.
    #[serde(default, deserialize_with = "present")]
    id: Option<Result<RequestId, ()>>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// A message's members as read, before [`Incoming::from_members`] checks them.
pub(crate) struct Members<'a> {
    pub(crate) jsonrpc: Option<Cow<'a, str>>,
    pub(crate) id: Option<Result<RequestId, ()>>,
    pub(crate) method: Option<Cow<'a, str>>,
    pub(crate) params: Option<Params<'a>>,
    pub(crate) result: Option<&'a RawValue>,
    pub(crate) error: Option<&'a RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Result<RequestId, ()>>, D::Error> {
    /// Any JSON value: a valid id, or `Err` once the value is skipped.
    struct Lenient;
    impl<'de> serde::de::Visitor<'de> for Lenient {
        type Value = Result<RequestId, ()>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
            Ok(Ok(RequestId::Number(n)))
        }
        fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
            Ok(i64::try_from(n).map(RequestId::Number).map_err(drop))
        }
        fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
            Ok(Ok(RequestId::String(Arc::from(s))))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Err(()))
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Err(()))
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Err(()))
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut a: A,
        ) -> Result<Self::Value, A::Error> {
            while a.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            Ok(Err(()))
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut a: A,
        ) -> Result<Self::Value, A::Error> {
            while a
                .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                .is_some()
            {}
            Ok(Err(()))
        }
    }
    d.deserialize_any(Lenient).map(Some)
}

/// Whether a JSON text nests arrays and objects deeper than `limit`, counted on its brackets
/// outside strings. One pass, no allocation; it stops at the first bracket past the limit. A
/// text that is not JSON is left to the decoder to refuse.
pub(crate) fn nests_deeper_than(text: &[u8], limit: usize) -> bool {
    if text.len() <= limit {
        // Each level takes a byte: a text this short cannot be deeper.
        return false;
    }
    // Nor can a text with no more opening brackets than the limit (most messages). Counted the
    // way the compiler vectorizes: `[` and `{` are the two bytes `b | 0x20` maps to `{`, and a
    // byte-wide sum per 255-byte chunk cannot overflow.
    let opening: usize = text
        .chunks(255)
        .map(|chunk| {
            let n = chunk
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from((b | 0x20) == b'{')));
            usize::from(n)
        })
        .sum();
    if opening <= limit {
        return false;
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in text {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// A request's `params`: the text of a JSON object, validated when the message was read.
///
/// Read once with the envelope (`ParamsHead` in the same pass), it is handed around as text:
/// serde_json builds a `&RawValue` only by scanning its text again, and most requests never need
/// one (the rooms decode their params from [`Params::get`]).
#[derive(Debug, Clone, Copy)]
pub struct Params<'a>(&'a str);

impl<'a> Params<'a> {
    /// The JSON text, as sent.
    pub fn get(self) -> &'a str {
        self.0
    }

    /// Params that a JSON value's text already is (no scan).
    pub(crate) fn from_raw(raw: &'a RawValue) -> Self {
        Self(raw.get())
    }

    /// Params from text that the caller validated as one JSON object.
    pub(crate) fn validated(text: &'a str) -> Self {
        Self(text)
    }

    /// The params as a `RawValue`: the text scanned once more (for the middleware's `Call` and
    /// what embeds them in another message).
    pub(crate) fn raw(self) -> &'a RawValue {
        serde_json::from_str(self.0).unwrap_or_else(|_| empty_object())
    }
}

/// `{}`, as a `RawValue`.
pub(crate) fn empty_object() -> &'static RawValue {
    serde_json::from_str("{}").unwrap_or_else(|_| unreachable!("`{{}}` is JSON"))
}

impl<'a> From<&'a RawValue> for Params<'a> {
    fn from(raw: &'a RawValue) -> Self {
        Self::from_raw(raw)
    }
}

impl Serialize for Params<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw().serialize(s)
    }
}

/// One decoded JSON-RPC message, borrowing from the body it was read from.
#[derive(Debug)]
pub enum Incoming<'a> {
    /// A request: it has an id and a method.
    Request {
        /// The id to answer with.
        id: RequestId,
        /// The method name.
        method: Cow<'a, str>,
        /// Raw params, decoded later straight into their types.
        params: Option<Params<'a>>,
    },
    /// A notification: a method without an id.
    Notification {
        /// The method name.
        method: Cow<'a, str>,
        /// Raw params.
        params: Option<Params<'a>>,
    },
    /// A response from the client to a server-to-client request.
    Response {
        /// The id of the server's request.
        id: RequestId,
        /// The `result` (`Ok`) or the `error` (`Err`), as sent.
        outcome: Result<&'a RawValue, &'a RawValue>,
    },
}

impl<'a> Incoming<'a> {
    /// The raw params of a request or notification.
    pub fn params(&self) -> Option<Params<'a>> {
        match self {
            Self::Request { params, .. } | Self::Notification { params, .. } => *params,
            Self::Response { .. } => None,
        }
    }

    /// Decodes one message: serde_json's reading, which the dispatcher's one reader uses for
    /// what its scan does not take. On failure returns the error to send and, when it could be
    /// read, the id.
    pub(crate) fn parse(text: &'a str) -> Result<Self, (Option<RequestId>, ErrorObject)> {
        // One pass on the common path; a failure is then told apart: not JSON (-32700) or JSON
        // that is not a JSON-RPC object (-32600).
        match serde_json::from_str::<Wire<'a>>(text) {
            Ok(wire) => Self::from_wire(wire),
            Err(e) => match serde_json::from_str::<&RawValue>(text) {
                Err(_) => Err((
                    None,
                    ErrorObject::new(codes::PARSE_ERROR, format!("Parse error: {e}")),
                )),
                Ok(_) => Err((
                    None,
                    ErrorObject::new(
                        codes::INVALID_REQUEST,
                        format!("Invalid request: expected a JSON-RPC object ({e})"),
                    ),
                )),
            },
        }
    }

    fn from_wire(wire: Wire<'a>) -> Result<Self, (Option<RequestId>, ErrorObject)> {
        Self::from_members(Members {
            jsonrpc: wire.jsonrpc,
            id: wire.id,
            method: wire.method,
            params: wire.params.map(Params::from_raw),
            result: wire.result,
            error: wire.error,
        })
    }

    /// Checks a message's members, read by [`Incoming::parse`] or by the dispatcher's one pass
    /// over a message and its params.
    pub(crate) fn from_members(
        wire: Members<'a>,
    ) -> Result<Self, (Option<RequestId>, ErrorObject)> {
        let invalid = |id, msg: String| Err((id, ErrorObject::new(codes::INVALID_REQUEST, msg)));
        let id = match wire.id {
            None => None,
            Some(Ok(id)) => Some(id),
            Some(Err(())) => {
                return invalid(
                    None,
                    "Invalid request: `id` must be a string or an integer".to_owned(),
                );
            }
        };
        if wire.jsonrpc.as_deref() != Some("2.0") {
            return invalid(id, "Invalid request: `jsonrpc` must be \"2.0\"".to_owned());
        }
        if let Some(params) = wire.params {
            let first = params.get().trim_start().as_bytes().first().copied();
            // MCP's params are always an object (JSON-RPC's by-position arrays included).
            if first != Some(b'{') {
                return invalid(id, "Invalid request: `params` must be an object".to_owned());
            }
        }
        match (id, wire.method) {
            (Some(id), Some(method)) => Ok(Self::Request {
                id,
                method,
                params: wire.params,
            }),
            (None, Some(method)) => Ok(Self::Notification {
                method,
                params: wire.params,
            }),
            (Some(id), None) if wire.result.is_some() || wire.error.is_some() => {
                let outcome = match (wire.result, wire.error) {
                    (Some(result), None) => Ok(result),
                    (None, Some(error)) => Err(error),
                    _ => {
                        return invalid(
                            Some(id),
                            "Invalid request: a response has either `result` or `error`, not both"
                                .to_owned(),
                        );
                    }
                };
                Ok(Self::Response { id, outcome })
            }
            (id, None) => invalid(id, "Invalid request: missing `method`".to_owned()),
        }
    }
}

/// A JSON string's text, borrowed when it has no escapes.
pub(crate) fn raw_str(raw: &RawValue) -> Option<std::borrow::Cow<'_, str>> {
    let text = raw.get();
    // Valid JSON: a quoted run without a backslash is the string itself.
    // (A byte loop: these strings are short, and `str::contains` sets up a memchr first.)
    if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'))
        && !inner.bytes().any(|b| b == b'\\')
    {
        return Some(std::borrow::Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(text)
        .ok()
        .map(std::borrow::Cow::Owned)
}

/// An object key, borrowed unless it has escapes (serde's own `Cow<str>` always allocates).
pub(crate) struct Key<'de>(pub(crate) Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::nests_deeper_than;

    #[test]
    fn a_request_id_is_an_integer_of_64_bits_or_a_string() {
        use super::RequestId;
        let id = |text: &str| serde_json::from_str::<RequestId>(text).ok();
        assert_eq!(id("7"), Some(RequestId::Number(7)));
        assert_eq!(id("-7"), Some(RequestId::Number(-7)));
        assert_eq!(id(&i64::MAX.to_string()), Some(RequestId::Number(i64::MAX)));
        assert_eq!(id(r#""a\u0062""#), Some(RequestId::String("ab".into())));
        for refused in ["1.5", "null", "true", "[]", "{}", "9223372036854775808"] {
            assert_eq!(id(refused), None, "{refused}");
        }
        let from_value = serde_json::from_value::<RequestId>(serde_json::json!("x"));
        assert_eq!(from_value.ok(), Some(RequestId::String("x".into())));
    }

    #[test]
    fn a_key_is_borrowed_unless_it_has_escapes() {
        let keys: Vec<super::Key<'_>> =
            serde_json::from_str(r#"["text", "a\u0062"]"#).expect("two keys");
        assert!(matches!(&keys[0].0, Cow::Borrowed("text")));
        assert!(matches!(&keys[1].0, Cow::Owned(k) if k == "ab"));
    }

    #[test]
    fn depth_is_counted_on_brackets_outside_strings() {
        assert!(!nests_deeper_than(br#"{"a":[1,{"b":2}]}"#, 3));
        assert!(nests_deeper_than(br#"{"a":[1,{"b":[2]}]}"#, 3));
        // Brackets inside strings, escaped quotes included, do not count.
        assert!(!nests_deeper_than(br#"{"a":"[[[[\"[[[[","b":1}"#, 1));
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(nests_deeper_than(deep.as_bytes(), 64));
        let wide = format!("[{}1]", "[1],".repeat(10_000));
        assert!(!nests_deeper_than(wide.as_bytes(), 2));
    }

    mod properties {
        use proptest::prelude::*;
        use serde_json::Value;

        use super::super::nests_deeper_than;

        fn value() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<i64>().prop_map(Value::from),
                "[\\[\\]{}\"\\\\a-z]{0,6}".prop_map(Value::String),
            ];
            leaf.prop_recursive(12, 64, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                    prop::collection::btree_map("[a-z\\[{]{1,3}", inner, 0..4)
                        .prop_map(|m| Value::Object(m.into_iter().collect())),
                ]
            })
        }

        fn depth(v: &Value) -> usize {
            match v {
                Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
                Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
                _ => 0,
            }
        }

        proptest! {
            #[test]
            fn the_scan_counts_the_depth_serde_sees(v in value(), limit in 0usize..14) {
                let text = serde_json::to_string(&v).expect("serializes");
                prop_assert_eq!(nests_deeper_than(text.as_bytes(), limit), depth(&v) > limit, "{}", text);
            }
        }
    }
}
