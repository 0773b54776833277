//! The 2026-07-28 envelope: what phantom reads of `params._meta` before dispatching, and the
//! request's session built from it.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::failure::{Failure, bad_request};
use crate::protocol::{ErrorObject, ProtocolVersion, codes, meta as keys};
use crate::server::Session;

#[derive(Debug, Deserialize, Default)]
pub(crate) struct MetaProbe<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    pub(crate) version: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    caps: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow, default)]
    info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel", borrow, default)]
    log: Option<&'a RawValue>,
    /// `progressToken`: the request wants `notifications/progress` (both eras).
    #[serde(rename = "progressToken", borrow, default)]
    pub(crate) progress: Option<&'a RawValue>,
}

/// What phantom reads of a request's params before dispatching it: the `_meta` envelope and the
/// `name` / `uri` that HTTP headers must mirror. A transport that needs them reads them once with
/// [`ParamsHead::read`] and hands them to the dispatcher.
#[derive(Debug, Default, Deserialize)]
pub struct ParamsHead<'a> {
    #[serde(rename = "_meta", borrow, default, deserialize_with = "lenient_meta")]
    pub(crate) meta: Option<MetaProbe<'a>>,
    /// `params.name` (tools/call, prompts/get), as sent.
    #[serde(borrow, default)]
    pub name: Option<&'a RawValue>,
    /// `params.uri` (resources/read), as sent.
    #[serde(borrow, default)]
    pub uri: Option<&'a RawValue>,
}

/// A `_meta` that is not an object reads as no `_meta` (so no modern claim), as before.
fn lenient_meta<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<MetaProbe<'de>>, D::Error> {
    let raw = <&RawValue>::deserialize(d)?;
    Ok(serde_json::from_str(raw.get()).ok())
}

impl<'a> ParamsHead<'a> {
    /// Reads the head of `params` (nothing when absent or not an object).
    pub fn read(params: Option<&'a RawValue>) -> Self {
        params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default()
    }

    /// The raw `_meta["io.modelcontextprotocol/protocolVersion"]`: present exactly when the
    /// request claims the 2026-07-28 envelope.
    pub fn claimed_version(&self) -> Option<&'a RawValue> {
        self.meta.as_ref().and_then(|m| m.version)
    }
}

/// Validates the modern `_meta` envelope and builds the request's session.
pub(crate) fn envelope_session(meta: &MetaProbe<'_>) -> Result<Session, Failure> {
    let missing = |key: &str, what: &str| {
        bad_request(
            ErrorObject::new(
                codes::INVALID_PARAMS,
                format!("Invalid params: {what} `_meta.{key}`"),
            )
            .with_data(json!({ "field": format!("_meta.{key}") })),
        )
    };
    let version_text = meta
        .version
        .and_then(|v| serde_json::from_str::<String>(v.get()).ok())
        .ok_or_else(|| missing(keys::VERSION, "expected a version string in"))?;
    let version = ProtocolVersion::parse(&version_text)
        .filter(|v| v.is_modern())
        .ok_or_else(|| {
            let supported: Vec<&str> = ProtocolVersion::ALL
                .iter()
                .filter(|v| v.is_modern())
                .map(|v| v.as_str())
                .collect();
            bad_request(
                ErrorObject::new(
                    codes::UNSUPPORTED_PROTOCOL_VERSION,
                    "Unsupported protocol version",
                )
                .with_data(json!({ "supported": supported, "requested": version_text })),
            )
        })?;
    let caps = meta
        .caps
        .ok_or_else(|| missing(keys::CLIENT_CAPABILITIES, "missing"))?;
    let caps: Value = serde_json::from_str(caps.get()).unwrap_or(Value::Null);
    if !caps.is_object() {
        return Err(missing(keys::CLIENT_CAPABILITIES, "expected an object in"));
    }
    let mut session = Session::new(None, version);
    session.client_capabilities = Arc::new(caps);
    if let Some(info) = meta.info {
        session.client_info = Some(Arc::new(serde_json::from_str(info.get()).map_err(
            |_| {
                missing(
                    keys::CLIENT_INFO,
                    "expected an Implementation object (`name`, `version`) in",
                )
            },
        )?));
    }
    if let Some(level) = meta.log {
        session.log_level = Some(
            serde_json::from_str(level.get())
                .map_err(|_| missing(keys::LOG_LEVEL, "invalid log level in"))?,
        );
    }
    Ok(session)
}
