//! The 2026-07-28 envelope: what phantom reads of `params._meta` before dispatching, and the
//! request's session built from it.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::kernel::{Failure, bad_request};
use crate::protocol::{ErrorObject, Implementation, ProtocolVersion, codes, meta as keys, raw_str};
use crate::protocol::{Key, Params, Target, TargetMember};
use crate::session::Session;

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
    /// W3C trace context (`traceparent`, `tracestate`), for the request's span.
    #[serde(borrow, default)]
    pub(crate) traceparent: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(crate) tracestate: Option<&'a RawValue>,
}

impl<'a> MetaProbe<'a> {
    /// Where the value of `_meta[key]` goes, for the keys phantom reads (a key given twice:
    /// the last one).
    pub(super) fn slot(&mut self, key: &str) -> Option<&mut Option<&'a RawValue>> {
        Some(match key {
            keys::VERSION => &mut self.version,
            keys::CLIENT_CAPABILITIES => &mut self.caps,
            keys::CLIENT_INFO => &mut self.info,
            keys::LOG_LEVEL => &mut self.log,
            "progressToken" => &mut self.progress,
            "traceparent" => &mut self.traceparent,
            "tracestate" => &mut self.tracestate,
            _ => return None,
        })
    }
}

/// What phantom reads of a request's params before dispatching it: the `_meta` envelope, the
/// target (`name`, `uri` and `taskId`, decoded once here for every later step) and the members a
/// room reads as sent. A transport reads it with the message (`read_message_within`) and hands it
/// to the dispatcher.
#[derive(Debug, Default)]
pub struct ParamsHead<'a> {
    pub(crate) meta: Option<MetaProbe<'a>>,
    /// `params.name`, `params.uri` and `params.taskId`, unescaped.
    pub(crate) target: Target<'a>,
    /// `params.arguments` (tools/call), as sent.
    pub(crate) arguments: Option<&'a RawValue>,
    /// `params.inputResponses` (a 2026-07-28 retry), as sent.
    pub(crate) input_responses: Option<&'a RawValue>,
    /// `params.requestState` (a 2026-07-28 retry), as sent.
    pub(crate) request_state: Option<&'a RawValue>,
}

/// A member of the params that phantom reads besides `_meta`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Member {
    Target(TargetMember),
    Arguments,
    InputResponses,
    RequestState,
}

/// The params' members as serde reads them, for [`ParamsHead::read`] (a member given twice is
/// an error, which reads as no head at all).
#[derive(Deserialize)]
struct Sent<'a> {
    #[serde(rename = "_meta", borrow, default, deserialize_with = "lenient_meta")]
    meta: Option<MetaProbe<'a>>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[serde(rename = "taskId", borrow, default)]
    task_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "inputResponses", borrow, default)]
    input_responses: Option<&'a RawValue>,
    #[serde(rename = "requestState", borrow, default)]
    request_state: Option<&'a RawValue>,
}

/// A `_meta` that is not an object reads as no `_meta` (so no modern claim), as before; read in
/// the same pass as the rest of the params.
fn lenient_meta<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<MetaProbe<'de>>, D::Error> {
    use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
    struct Lenient;
    impl<'de> Visitor<'de> for Lenient {
        type Value = Option<MetaProbe<'de>>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut probe = MetaProbe::default();
            while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                match probe.slot(&key) {
                    Some(slot) => *slot = Some(map.next_value::<&'de RawValue>()?),
                    None => map.next_value::<IgnoredAny>().map(drop)?,
                }
            }
            Ok(Some(probe))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Lenient)
}

impl<'a> ParamsHead<'a> {
    /// The member `params[key]` is, for the keys phantom reads besides `_meta`, with a bit of its
    /// own (to tell a key given twice).
    #[inline]
    pub(super) fn member(key: &str) -> Option<(u8, Member)> {
        Some(match key {
            "name" => (1, Member::Target(TargetMember::Name)),
            "uri" => (2, Member::Target(TargetMember::Uri)),
            "taskId" => (4, Member::Target(TargetMember::TaskId)),
            "arguments" => (8, Member::Arguments),
            "inputResponses" => (16, Member::InputResponses),
            "requestState" => (32, Member::RequestState),
            _ => return None,
        })
    }

    /// Sets `member` from its value as sent (a target member decoded, once, here).
    #[inline]
    pub(super) fn put(&mut self, member: Member, raw: Option<&'a RawValue>) {
        match member {
            Member::Target(member) => self.target.put(member, raw),
            Member::Arguments => self.arguments = raw,
            Member::InputResponses => self.input_responses = raw,
            Member::RequestState => self.request_state = raw,
        }
    }

    /// Reads the head of `params` (nothing when absent or not an object): serde_json's reading,
    /// for `read.rs` alone.
    pub(super) fn read(params: Option<Params<'a>>) -> Self {
        let Some(sent) = params.and_then(|p| serde_json::from_str::<Sent<'a>>(p.get()).ok()) else {
            return Self::default();
        };
        let mut head = Self {
            meta: sent.meta,
            ..Self::default()
        };
        for (member, raw) in [
            (Member::Target(TargetMember::Name), sent.name),
            (Member::Target(TargetMember::Uri), sent.uri),
            (Member::Target(TargetMember::TaskId), sent.task_id),
            (Member::Arguments, sent.arguments),
            (Member::InputResponses, sent.input_responses),
            (Member::RequestState, sent.request_state),
        ] {
            head.put(member, raw);
        }
        head
    }

    /// `params.name`, unescaped (for the codec benchmark).
    pub fn name(&self) -> Option<&str> {
        self.target.name()
    }

    /// Whether the request asks for messages before its result: a progress token or a 2026-07-28
    /// log level.
    #[cfg(feature = "http")]
    pub(crate) fn wants_messages(&self) -> bool {
        self.meta
            .as_ref()
            .is_some_and(|m| m.progress.is_some() || m.log.is_some())
    }

    /// The raw `_meta["io.modelcontextprotocol/protocolVersion"]`: present exactly when the
    /// request claims the 2026-07-28 envelope.
    pub fn claimed_version(&self) -> Option<&'a RawValue> {
        self.meta.as_ref().and_then(|m| m.version)
    }
}

/// The last `clientInfo` decoded, by its text: a client sends the same one on every request.
#[derive(Default)]
pub(crate) struct ClientInfoCache(std::sync::Mutex<Option<(Box<str>, Arc<Implementation>)>>);

impl ClientInfoCache {
    fn get(&self, raw: &RawValue) -> Result<Arc<Implementation>, ()> {
        let text = raw.get();
        if let Ok(guard) = self.0.lock()
            && let Some((cached, info)) = guard.as_ref()
            && **cached == *text
        {
            return Ok(Arc::clone(info));
        }
        let info: Arc<Implementation> = Arc::new(serde_json::from_str(text).map_err(|_| ())?);
        if let Ok(mut guard) = self.0.lock() {
            *guard = Some((text.into(), Arc::clone(&info)));
        }
        Ok(info)
    }
}

/// Validates the modern `_meta` envelope and builds the request's session.
pub(crate) fn envelope_session(
    meta: &MetaProbe<'_>,
    cache: &ClientInfoCache,
) -> Result<Session, Failure> {
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
        .and_then(raw_str)
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
    let mut session = Session::new(None, version);
    if caps.get() != "{}" {
        let caps: Value = serde_json::from_str(caps.get()).unwrap_or(Value::Null);
        if !caps.is_object() {
            return Err(missing(keys::CLIENT_CAPABILITIES, "expected an object in"));
        }
        session.client_capabilities = Arc::new(caps);
    }
    if let Some(info) = meta.info {
        session.client_info = Some(cache.get(info).map_err(|()| {
            missing(
                keys::CLIENT_INFO,
                "expected an Implementation object (`name`, `version`) in",
            )
        })?);
    }
    if let Some(level) = meta.log {
        session.log_level = Some(
            serde_json::from_str(level.get())
                .map_err(|_| missing(keys::LOG_LEVEL, "invalid log level in"))?,
        );
    }
    Ok(session)
}
