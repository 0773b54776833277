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
