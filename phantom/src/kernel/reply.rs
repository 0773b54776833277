//! [`Reply`]: a serialized JSON-RPC response and the transport status it maps to; [`Body`]: a
//! result before the era's envelope fields are added (`dispatch/` adds them).

use std::fmt::Write as _;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::challenge::WwwAuthenticate;
use super::failure::Failure;
use crate::protocol::{Era, ErrorObject, codes};

/// How a transport should answer a reply (HTTP maps it to a status; stdio ignores it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// 200.
    Ok,
    /// 400: a modern envelope, version, header or capability error, or a legacy request without a
    /// session.
    BadRequest,
    /// 404: a modern request for a method the era (or this server) does not have.
    MethodNotFound,
    /// 401 from `connect`.
    Unauthorized(Box<WwwAuthenticate>),
    /// 403 from `connect`.
    Forbidden,
    /// 403 with this `insufficient_scope` challenge: the token lacks scopes the request needs.
    InsufficientScope(Box<WwwAuthenticate>),
    /// 404 from `connect`: the session is gone.
    SessionNotFound,
    /// 429 with `Retry-After: <seconds>`: a rate limit refused the request.
    TooManyRequests(u64),
}

/// One reply to send: a serialized JSON-RPC response and how to send it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The JSON-RPC response (or batch array) text.
    pub body: String,
    /// The transport status it maps to.
    pub status: Status,
    /// The era the request was served in.
    pub era: Era,
}

/// A result body before the era's envelope fields are added.
pub(crate) enum Body {
    Map(Map<String, Value>),
    /// Members of a JSON object, already serialized, without the braces.
    Members(String),
    /// A JSON object, already serialized, braces included (its members are sent).
    Object(String),
    /// A 2026-07-28 `input_required` result (`inputRequests`, `requestState`): never cached.
    InputRequired(Map<String, Value>),
    /// A 2026-07-28 `CreateTaskResult` (`resultType: "task"`): never cached.
    Task(Map<String, Value>),
    /// A tool result of one text block and nothing else (most tools' results): the reply is
    /// written around the text in one buffer of its own ([`write_text_members`]), as serde_json
    /// writes `ToolResult`.
    Text {
        text: String,
        is_error: bool,
    },
}

/// The `resultType` of a 2026-07-28 result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResultType {
    /// The request is answered.
    Complete,
    /// The request needs input first (`inputRequests`).
    InputRequired,
    /// The request goes on as a task (the Tasks extension's `CreateTaskResult`).
    Task,
}

impl ResultType {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::InputRequired => "input_required",
            Self::Task => "task",
        }
    }
}

/// A result's members as the result writes them: a span of a serialized object, or a text block
/// written around its text.
pub(crate) enum Written {
    /// `text[range]`.
    Span {
        text: String,
        range: std::ops::Range<usize>,
    },
    /// [`Body::Text`]'s members.
    TextBlock { text: String, is_error: bool },
}

impl Written {
    /// Their length, as [`write`](Self::write) writes them.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Span { range, .. } => range.len(),
            Self::TextBlock { text, is_error } => text_members_len(text, *is_error),
        }
    }

    /// Appends them to `out`.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        match self {
            Self::Span { text, range } => out.extend_from_slice(&text.as_bytes()[range.clone()]),
            Self::TextBlock { text, is_error } => write_text_members(out, text, *is_error),
        }
    }
}

/// Where the members of a serialized object stand in its text (inside its braces).
fn inside_braces(text: &str) -> std::ops::Range<usize> {
    if text.len() >= 2 {
        1..text.len() - 1
    } else {
        0..0
    }
}

impl Body {
    /// The `resultType` it is sent with in the 2026-07-28 era.
    pub(crate) fn result_type(&self) -> ResultType {
        match self {
            Self::InputRequired(_) => ResultType::InputRequired,
            Self::Task(_) => ResultType::Task,
            _ => ResultType::Complete,
        }
    }

    /// Whether it sets its own cache hints (`ttlMs`: a skill's `Skill::cache`, a response
    /// cache's remaining life), so that the envelope adds none.
    pub(crate) fn own_hints(&self) -> bool {
        matches!(self, Self::Map(map) if map.contains_key("ttlMs"))
    }

    /// Whether it has a `_meta` of its own, into which the envelope's `serverInfo` goes.
    pub(crate) fn own_meta(&self) -> bool {
        match self {
            Self::Map(map) | Self::InputRequired(map) | Self::Task(map) => {
                map.contains_key("_meta")
            }
            _ => false,
        }
    }

    /// Its members, written; `server_info` (JSON text), when given, merged into its own `_meta`.
    pub(crate) fn written(self, server_info: Option<&str>) -> Written {
        let text = match self {
            Self::Text { text, is_error } => return Written::TextBlock { text, is_error },
            Self::Members(text) => {
                let range = 0..text.len();
                return Written::Span { text, range };
            }
            Self::Object(text) => text,
            Self::Map(mut map) | Self::InputRequired(mut map) | Self::Task(mut map) => {
                if let (Some(info), Some(Value::Object(meta))) = (server_info, map.get_mut("_meta"))
                {
                    meta.insert(
                        crate::protocol::meta::SERVER_INFO.into(),
                        serde_json::from_str(info).unwrap_or_default(),
                    );
                }
                serde_json::to_string(&map).unwrap_or_else(|_| "{}".into())
            }
        };
        let range = inside_braces(&text);
        Written::Span { text, range }
    }
}

/// What [`Body::Text`]'s members are around its text.
const TEXT_HEAD: &str = "\"content\":[{\"type\":\"text\",\"text\":";
const TEXT_TAIL: &str = "}]";
const ERROR_TAIL: &str = ",\"isError\":true";

/// The length of [`Body::Text`]'s members, as [`write_text_members`] writes them.
pub(crate) fn text_members_len(text: &str, is_error: bool) -> usize {
    let error = if is_error { ERROR_TAIL.len() } else { 0 };
    TEXT_HEAD.len() + escaped_len(text) + TEXT_TAIL.len() + error
}

/// The length of `text` as a JSON string, its quotes included, escaped as serde_json escapes it
/// (a quote, a backslash and the control characters; those without a short escape as `\u00XX`).
fn escaped_len(text: &str) -> usize {
    let escapes: usize = text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | 0x08 | 0x09 | 0x0A | 0x0C | 0x0D => 1,
            0..=0x1F => 5,
            _ => 0,
        })
        .sum();
    text.len() + escapes + 2
}

/// [`Body::Text`]'s members: `"content":[{"type":"text","text":…}]`, then `"isError":true`
/// when it is one.
fn write_text_members(out: &mut Vec<u8>, text: &str, is_error: bool) {
    out.extend_from_slice(TEXT_HEAD.as_bytes());
    // Writing into a `Vec` does not fail.
    let _ = serde_json::to_writer(&mut *out, text);
    out.extend_from_slice(TEXT_TAIL.as_bytes());
    if is_error {
        out.extend_from_slice(ERROR_TAIL.as_bytes());
    }
}

/// [`Body::Text`] as the JSON object it stands for.
pub(crate) fn text_object(text: &str, is_error: bool) -> String {
    let mut out = Vec::with_capacity(text_members_len(text, is_error) + 2);
    out.push(b'{');
    write_text_members(&mut out, text, is_error);
    out.push(b'}');
    String::from_utf8(out).unwrap_or_default()
}

impl From<Map<String, Value>> for Body {
    fn from(map: Map<String, Value>) -> Self {
        Self::Map(map)
    }
}

pub(crate) fn members(key: &str, items: &[&RawValue], next_cursor: Option<&str>) -> String {
    let mut out =
        String::with_capacity(64 + items.iter().map(|i| i.get().len() + 1).sum::<usize>());
    let _ = write!(out, "\"{key}\":[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item.get());
    }
    out.push(']');
    if let Some(c) = next_cursor {
        let _ = write!(out, ",\"nextCursor\":{}", Value::from(c));
    }
    out
}

/// Serializes a result struct as object members (without the braces).
pub(crate) fn members_of(value: &impl serde::Serialize) -> Result<Body, Failure> {
    match serde_json::to_string(value) {
        Ok(text) if text.len() >= 2 => Ok(Body::Object(text)),
        _ => Err(Failure::from(ErrorObject::new(
            codes::INTERNAL_ERROR,
            "Internal error",
        ))),
    }
}
