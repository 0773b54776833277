//! A result's era envelope (`resultType`, cache hints, `serverInfo`) and error replies.

use std::borrow::Cow;

use serde_json::{Value, json};

use super::Dispatcher;
use crate::kernel::{Body, Reply, Status, text_members_len, write_text_members};
use crate::protocol::{Era, ErrorObject, Method, RequestId, codes, meta};
use crate::server::Server;
use crate::session::Session;

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
    fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::InputRequired => "input_required",
            Self::Task => "task",
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

/// A success reply's text, piece by piece: the pieces before the result's members and after.
struct Pieces<'a> {
    id: &'a str,
    modern: Option<ModernPieces<'a>>,
}

/// What a 2026-07-28 result adds after its members.
struct ModernPieces<'a> {
    result_type: &'a str,
    /// `ttlMs` and `cacheScope`, unless the result has its own.
    hints: Option<(&'a str, &'a str)>,
    /// `_meta`'s `serverInfo`, unless the result has a `_meta` of its own (merged into it).
    server_info: Option<&'a str>,
}

impl Pieces<'_> {
    /// Hands each piece of the reply around `members` to `f`, in order.
    fn each(&self, members: &str, mut f: impl FnMut(&str)) {
        self.before(&mut f);
        f(members);
        self.after(members.is_empty(), f);
    }

    /// The pieces before the result's members.
    fn before(&self, mut f: impl FnMut(&str)) {
        f("{\"jsonrpc\":\"2.0\",\"id\":");
        f(self.id);
        f(",\"result\":{");
    }

    /// The pieces after the result's members.
    fn after(&self, no_members: bool, mut f: impl FnMut(&str)) {
        if let Some(modern) = &self.modern {
            if !no_members {
                f(",");
            }
            f("\"resultType\":\"");
            f(modern.result_type);
            f("\"");
            if let Some((ttl, scope)) = modern.hints {
                f(",\"ttlMs\":");
                f(ttl);
                f(",\"cacheScope\":\"");
                f(scope);
                f("\"");
            }
            if let Some(info) = modern.server_info {
                f(",\"_meta\":{\"");
                f(meta::SERVER_INFO);
                f("\":");
                f(info);
                f("}");
            }
        }
        f("}}");
    }
}

/// What a modern result carries besides its body.
pub(crate) struct Envelope<'a> {
    pub(crate) session: &'a Session,
    pub(crate) method: Method,
    pub(crate) result_type: ResultType,
}

impl<S: Server> Dispatcher<S> {
    pub(crate) async fn ok_reply(
        &self,
        id: &RequestId,
        body: Body,
        mut modern: Option<Envelope<'_>>,
    ) -> Reply {
        let body = match body {
            Body::InputRequired(map) => {
                if let Some(envelope) = &mut modern {
                    envelope.result_type = ResultType::InputRequired;
                }
                Body::Map(map)
            }
            Body::Task(map) => {
                if let Some(envelope) = &mut modern {
                    envelope.result_type = ResultType::Task;
                }
                Body::Map(map)
            }
            body => body,
        };
        let mut has_meta = false;
        let mut has_hints = false;
        // The result's members are `text[members]`, or a text block's (`one`: whether it is an
        // error) written around `text`.
        let mut one = None;
        let (text, members) = match body {
            Body::Text { text, is_error } => {
                one = Some(is_error);
                (text, 0..0)
            }
            Body::Members(text) => {
                let all = 0..text.len();
                (text, all)
            }
            Body::Object(text) => {
                let inner = inside_braces(&text);
                (text, inner)
            }
            Body::Map(mut map) | Body::InputRequired(mut map) | Body::Task(mut map) => {
                has_meta = map.contains_key("_meta");
                // A result from a response cache carries its entry's remaining life.
                has_hints = map.contains_key("ttlMs");
                // A `_meta` of the handler's own is merged with serverInfo below.
                if let (Some(envelope), Some(Value::Object(meta))) = (&modern, map.get_mut("_meta"))
                {
                    let info = self.server_info_json(envelope.session).await;
                    meta.insert(
                        meta::SERVER_INFO.into(),
                        serde_json::from_str(&info).unwrap_or_default(),
                    );
                }
                let text = serde_json::to_string(&map).unwrap_or_else(|_| "{}".into());
                let inner = inside_braces(&text);
                (text, inner)
            }
        };
        let info = match &modern {
            Some(envelope) if !has_meta => Some(self.server_info_json(envelope.session).await),
            _ => None,
        };
        let mut digits = itoa::Buffer::new();
        let id: Cow<'_, str> = match id {
            RequestId::Number(n) => Cow::Borrowed(digits.format(*n)),
            RequestId::String(_) => Cow::Owned(serde_json::to_string(id).unwrap_or_default()),
        };
        let era = if modern.is_some() {
            Era::Modern
        } else {
            Era::Legacy
        };
        let mut ttl = itoa::Buffer::new();
        let modern = modern.map(|envelope| {
            // A result that set its own hints (a skill's `Skill::cache`) keeps them.
            let own_hints = has_hints
                || (matches!(envelope.method, Method::SkillsList | Method::SkillsGet)
                    && text[members.clone()].contains("\"ttlMs\":"));
            let config = &self.inner.config;
            let hints = (envelope.method.cacheable()
                && envelope.result_type == ResultType::Complete
                && !own_hints)
                .then(|| (ttl.format(config.cache_ttl_ms), config.cache_scope.as_str()));
            ModernPieces {
                result_type: envelope.result_type.as_str(),
                hints,
                server_info: info.as_deref(),
            }
        });
        let pieces = Pieces { id: &id, modern };
        // Measured first: a buffer of exactly the reply's length becomes the response's `Bytes`
        // without another allocation.
        let mut len = 0;
        let out = match one {
            None => {
                let members = &text[members];
                pieces.each(members, |piece| len += piece.len());
                let mut out = String::with_capacity(len);
                pieces.each(members, |piece| out.push_str(piece));
                out
            }
            Some(is_error) => {
                len = text_members_len(&text, is_error);
                pieces.before(|piece| len += piece.len());
                pieces.after(false, |piece| len += piece.len());
                let mut out = Vec::with_capacity(len);
                pieces.before(|piece| out.extend_from_slice(piece.as_bytes()));
                write_text_members(&mut out, &text, is_error);
                pieces.after(false, |piece| out.extend_from_slice(piece.as_bytes()));
                // Every piece is text.
                String::from_utf8(out).unwrap_or_default()
            }
        };
        Reply {
            body: out,
            status: Status::Ok,
            era,
        }
    }

    /// `serverInfo` as JSON text: cached, unless `server_info` is overridden.
    pub(crate) async fn server_info_json(&self, session: &Session) -> Cow<'_, str> {
        if self
            .inner
            .router
            .overrides(crate::kernel::Callback::ServerInfo)
        {
            let info = self.inner.server.server_info(session).await;
            Cow::Owned(serde_json::to_string(&info).unwrap_or_else(|_| "{}".into()))
        } else {
            Cow::Borrowed(&self.inner.server_info)
        }
    }

    pub(crate) fn error_reply(
        &self,
        id: Option<&RequestId>,
        mut error: ErrorObject,
        status: Status,
        era: Era,
    ) -> Reply {
        if era == Era::Modern && error.code == codes::RESOURCE_NOT_FOUND {
            error.code = codes::INVALID_PARAMS;
        }
        let mut status = status;
        if let Status::Unauthorized(challenge) | Status::InsufficientScope(challenge) = &mut status
            && challenge.resource_metadata.is_none()
            && let Some(url) = self
                .inner
                .config
                .bearer_auth
                .as_ref()
                .and_then(|a| a.metadata_url())
        {
            challenge.resource_metadata = Some(url.to_owned());
        }
        let body = json!({ "jsonrpc": "2.0", "id": id, "error": error }).to_string();
        Reply { body, status, era }
    }
}
