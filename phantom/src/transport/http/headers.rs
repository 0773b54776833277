//! The request headers of Streamable HTTP: `Accept`, and the 2026-07-28 standard headers
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) checked against the body.

use std::borrow::Cow;

use axum::response::Response;
use base64::Engine as _;
use http::StatusCode;
use http::header::{self, HeaderMap, HeaderValue};
use serde_json::Value;
use serde_json::value::RawValue;

use super::message::Inspected;
use super::response::error_for;
use crate::dispatch::Dispatcher;
use crate::protocol::{Method, NameField, ProtocolVersion, Target, codes, raw_str};
use crate::server::Server;

pub(super) const SESSION_HEADER: header::HeaderName =
    header::HeaderName::from_static("mcp-session-id");
pub(super) const VERSION_HEADER: header::HeaderName =
    header::HeaderName::from_static("mcp-protocol-version");
pub(super) const METHOD_HEADER: header::HeaderName = header::HeaderName::from_static("mcp-method");
const NAME_HEADER: header::HeaderName = header::HeaderName::from_static("mcp-name");
pub(super) const LAST_EVENT_ID: header::HeaderName =
    header::HeaderName::from_static("last-event-id");

pub(super) fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    value_str(headers.get(name))
}

/// A header's value as text, trimmed: `None` when absent or not visible ASCII.
pub(super) fn value_str(value: Option<&HeaderValue>) -> Option<&str> {
    // `to_str` leaves visible ASCII, spaces and tabs only: an ASCII trim is the whole trim.
    value.and_then(|v| v.to_str().ok()).map(str::trim_ascii)
}

/// A header's value trimmed, as a value of its own: the one sent (shared, not copied) when it
/// needed no trimming. `None` when absent or not visible ASCII.
pub(super) fn trimmed_value(sent: Option<&HeaderValue>) -> Option<HeaderValue> {
    let sent = sent?;
    let text = value_str(Some(sent))?;
    if text.len() == sent.len() {
        Some(sent.clone())
    } else {
        HeaderValue::from_str(text).ok()
    }
}

/// The request headers a POST reads, found in one pass over the map rather than one hashed
/// lookup each. Each is the first value sent, as `HeaderMap::get` gives it.
#[derive(Default)]
pub(super) struct PostHeaders<'a> {
    pub(super) accept: Option<&'a HeaderValue>,
    /// Whether `Accept` came more than once (then every value is read from the map).
    accept_again: bool,
    pub(super) content_type: Option<&'a HeaderValue>,
    pub(super) content_length: Option<&'a HeaderValue>,
    pub(super) expect: Option<&'a HeaderValue>,
    pub(super) version: Option<&'a HeaderValue>,
    pub(super) method: Option<&'a HeaderValue>,
    pub(super) name: Option<&'a HeaderValue>,
    pub(super) session: Option<&'a HeaderValue>,
}

impl<'a> PostHeaders<'a> {
    pub(super) fn of(headers: &'a HeaderMap) -> Self {
        let mut seen = Self::default();
        for (name, value) in headers {
            // A standard name compares as one byte, another by its length, then its bytes.
            let slot = if name == header::ACCEPT {
                if seen.accept.is_some() {
                    seen.accept_again = true;
                    continue;
                }
                &mut seen.accept
            } else if name == header::CONTENT_TYPE {
                &mut seen.content_type
            } else if name == header::CONTENT_LENGTH {
                &mut seen.content_length
            } else if name == header::EXPECT {
                &mut seen.expect
            } else if name == VERSION_HEADER {
                &mut seen.version
            } else if name == METHOD_HEADER {
                &mut seen.method
            } else if name == NAME_HEADER {
                &mut seen.name
            } else if name == SESSION_HEADER {
                &mut seen.session
            } else {
                continue;
            };
            if slot.is_none() {
                *slot = Some(value);
            }
        }
        seen
    }

    /// Whether `Accept` covers every one of `mimes` (`headers` is the map these were read from).
    pub(super) fn accepts_all(&self, headers: &HeaderMap, mimes: &[&str]) -> bool {
        if self.accept_again {
            accepts_all(headers, mimes)
        } else {
            accepts_values(self.accept.into_iter(), mimes)
        }
    }
}

/// What routing reads of a request's headers: `Host`, `Origin` and `Mcp-Method` (their first
/// values), in one pass over the headers.
pub(super) struct Routing<'a> {
    pub(super) host: Option<&'a HeaderValue>,
    pub(super) origin: Option<&'a HeaderValue>,
    pub(super) method: Option<&'a HeaderValue>,
}

impl<'a> Routing<'a> {
    pub(super) fn of(headers: &'a HeaderMap) -> Self {
        let mut seen = Self {
            host: None,
            origin: None,
            method: None,
        };
        for (name, value) in headers {
            let slot = if name == header::HOST {
                &mut seen.host
            } else if name == header::ORIGIN {
                &mut seen.origin
            } else if name == METHOD_HEADER {
                &mut seen.method
            } else {
                continue;
            };
            *slot = slot.or(Some(value));
        }
        seen
    }
}

pub(super) fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    accepts_all(headers, &[mime])
}

/// Whether `Accept` covers every one of `mimes`, in one pass over the header.
fn accepts_all(headers: &HeaderMap, mimes: &[&str]) -> bool {
    accepts_values(headers.get_all(header::ACCEPT).iter(), mimes)
}

/// Whether the `Accept` values cover every one of `mimes`.
fn accepts_values<'a>(values: impl Iterator<Item = &'a HeaderValue>, mimes: &[&str]) -> bool {
    let mut covered = 0_u32;
    let all = (1_u32 << mimes.len()) - 1;
    for v in values {
        // What clients send (the spec's own example): both types, nothing else.
        if v.as_bytes() == b"application/json, text/event-stream"
            && mimes
                .iter()
                .all(|m| *m == "application/json" || *m == "text/event-stream")
        {
            return true;
        }
        let Ok(v) = v.to_str() else { continue };
        for p in v.split(',') {
            let p = p.split(';').next().unwrap_or("").trim();
            for (i, mime) in mimes.iter().enumerate() {
                if p == *mime
                    || p == "*/*"
                    || (p.ends_with("/*") && mime.starts_with(&p[..p.len() - 1]))
                {
                    covered |= 1 << i;
                }
            }
            if covered == all {
                return true;
            }
        }
    }
    covered == all
}

/// Decodes a header value, including the `=?base64?…?=` form (borrowed unless base64).
pub(crate) fn decode_header(value: &str) -> Option<std::borrow::Cow<'_, str>> {
    decode_trimmed(value.trim())
}

/// [`decode_header`] of a header as sent: `None` unless it is visible ASCII, spaces and tabs
/// (`HeaderValue::to_str`), which an ASCII trim then trims whole.
fn decode_value(value: &HeaderValue) -> Option<std::borrow::Cow<'_, str>> {
    decode_trimmed(value.to_str().ok()?.trim_ascii())
}

fn decode_trimmed(value: &str) -> Option<std::borrow::Cow<'_, str>> {
    if let Some(b64) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
        return String::from_utf8(bytes).ok().map(std::borrow::Cow::Owned);
    }
    Some(std::borrow::Cow::Borrowed(value))
}

/// The standard-header checks of 2026-07-28 (SEP-2243): `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`.
/// Returns the message of the `-32020` error when a header is missing or disagrees with the body.
pub(super) fn check_modern_headers(
    headers: &PostHeaders<'_>,
    head: &Inspected<'_>,
    target: &Target<'_>,
    version: &str,
) -> Result<(), String> {
    match value_str(headers.version) {
        None => {
            return Err("Header mismatch: missing MCP-Protocol-Version header".into());
        }
        Some(v) if v != version => {
            return Err(format!(
                "Header mismatch: MCP-Protocol-Version '{v}' != body _meta version '{version}'"
            ));
        }
        Some(_) => {}
    }
    let method = head.method.as_deref().unwrap_or_default();
    match headers.method.map(decode_value) {
        None if head.is_request => {
            return Err(format!(
                "Header mismatch: missing Mcp-Method header; expected 'Mcp-Method: {method}'"
            ));
        }
        None => {}
        Some(None) => {
            return Err("Header mismatch: invalid Mcp-Method header".into());
        }
        Some(Some(m)) if *m != *method => {
            return Err(format!(
                "Header mismatch: Mcp-Method '{m}' != body method '{method}'"
            ));
        }
        Some(Some(_)) => {}
    }
    let (expected, field) = match head.known.and_then(Method::name_field) {
        Some(NameField::Name) => (target.name(), "name"),
        Some(NameField::Uri) => (target.uri(), "uri"),
        Some(NameField::TaskId) => (target.task_id(), "taskId"),
        None => return Ok(()),
    };
    // Not a string: the dispatcher answers the params' own error.
    let Some(expected) = expected else {
        return Ok(());
    };
    match headers.name.map(decode_value) {
        None => Err(format!(
            "Header mismatch: missing Mcp-Name header; expected 'Mcp-Name: {expected}' (the body's params.{field})"
        )),
        Some(None) => Err("Header mismatch: invalid Mcp-Name header".into()),
        Some(Some(n)) if *n != *expected => Err(format!(
            "Header mismatch: Mcp-Name '{n}' != body '{expected}'"
        )),
        Some(Some(_)) => Ok(()),
    }
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments (`x-mcp-header`):
/// `tool` is the request's target, `arguments` as read with its params.
pub(super) fn check_param_headers<S: Server>(
    dispatcher: &Dispatcher<S>,
    headers: &HeaderMap,
    tool: &str,
    arguments: Option<&RawValue>,
) -> Result<(), String> {
    let pairs = dispatcher.tool_headers(tool);
    if pairs.is_empty() {
        return Ok(());
    }
    // Arguments that are not an object: the tool's own argument check answers them.
    let arguments: serde_json::Map<String, Value> = arguments
        .and_then(|a| serde_json::from_str(a.get()).ok())
        .unwrap_or_default();
    for (arg, header) in pairs {
        let value = arguments.get(&*arg).filter(|v| !v.is_null());
        let mut all = headers
            .get_all(format!("mcp-param-{header}").as_str())
            .iter();
        let (sent, again) = (all.next(), all.next());
        if again.is_some() {
            return Err(format!(
                "Header mismatch: Mcp-Param-{header} header appears more than once"
            ));
        }
        let (value, sent) = match (value, sent) {
            (None, None) => continue,
            // An intermediary may route on the header: it must not claim a value the body lacks.
            (None, Some(_)) => {
                return Err(format!(
                    "Header mismatch: Mcp-Param-{header} header sent but argument `{arg}` is absent"
                ));
            }
            (Some(_), None) => {
                return Err(format!(
                    "Header mismatch: missing Mcp-Param-{header} header for argument `{arg}`"
                ));
            }
            (Some(v), Some(s)) => (v, s),
        };
        let text = sent
            .to_str()
            .ok()
            .filter(|t| t.bytes().all(|b| b == b'\t' || (0x20..0x7f).contains(&b)))
            .and_then(decode_header)
            .ok_or_else(|| format!("Header mismatch: invalid Mcp-Param-{header} header value"))?;
        let agrees = match value {
            Value::String(s) => *s == text,
            Value::Bool(b) => text == if *b { "true" } else { "false" },
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => text.parse::<i64>().is_ok_and(|h| h == i),
                (None, Some(u)) => text.parse::<u64>().is_ok_and(|h| h == u),
                _ => false,
            },
            _ => false,
        };
        if !agrees {
            return Err(format!(
                "Header mismatch: Mcp-Param-{header} '{text}' != argument `{arg}` {value}"
            ));
        }
    }
    Ok(())
}

/// The 2026-07-28 standard headers checked against the body: `-32020` (400) when one disagrees.
/// They are checked before the version gate: a header that disagrees with the body is a `-32020`
/// whatever the version says; an agreeing but unsupported version is the dispatcher's `-32022`.
/// `Mcp-Name` is checked against the request's target, decoded once with its params.
pub(super) fn header_mismatch(
    headers: &PostHeaders<'_>,
    seen: &Inspected<'_>,
    target: &Target<'_>,
) -> Option<Response> {
    let claimed = seen
        .modern
        .map(|v| raw_str(v).unwrap_or(Cow::Borrowed(v.get())));
    let claimed = claimed.as_deref().unwrap_or_default();
    let message = check_modern_headers(headers, seen, target, claimed).err()?;
    Some(error_for(
        StatusCode::BAD_REQUEST,
        codes::HEADER_MISMATCH,
        &message,
        Some(seen),
    ))
}

/// The `400` of a legacy body sent with a 2026-07-28 or unknown `MCP-Protocol-Version`.
pub(super) fn version_refused(
    headers: &PostHeaders<'_>,
    seen: Option<&Inspected<'_>>,
) -> Option<Response> {
    let v = value_str(headers.version)?;
    let (code, message) = match ProtocolVersion::parse(v) {
        Some(pv) if !pv.is_modern() => return None,
        Some(_) => (
            codes::INVALID_PARAMS,
            Cow::Borrowed(
                "Invalid params: missing `_meta.io.modelcontextprotocol/protocolVersion` and `_meta.io.modelcontextprotocol/clientCapabilities` for MCP-Protocol-Version 2026-07-28",
            ),
        ),
        None => (
            codes::INVALID_REQUEST,
            Cow::Owned(format!(
                "Bad Request: unsupported MCP-Protocol-Version '{v}'"
            )),
        ),
    };
    Some(error_for(StatusCode::BAD_REQUEST, code, &message, seen))
}

#[cfg(test)]
mod properties {
    use base64::Engine as _;
    use proptest::prelude::*;

    use super::decode_header;

    proptest! {
        #[test]
        fn a_base64_header_decodes_to_its_text(text in "\\PC{0,40}") {
            let encoded = format!(
                "=?base64?{}?=",
                base64::engine::general_purpose::STANDARD.encode(&text)
            );
            let decoded = decode_header(&encoded);
            prop_assert_eq!(decoded.as_deref(), Some(text.as_str()));
        }

        #[test]
        fn a_plain_header_decodes_to_itself_trimmed(text in "[ -~]{0,40}") {
            prop_assume!(!text.trim().starts_with("=?base64?"));
            let decoded = decode_header(&text);
            prop_assert_eq!(decoded.as_deref(), Some(text.trim()));
        }
    }
}
