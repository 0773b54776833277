//! A result's era envelope (`resultType`, cache hints, `serverInfo`) and error replies.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::Dispatcher;
use crate::kernel::{Body, Reply, Status};
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
        let mut out = String::with_capacity(256);
        out.push_str("{\"jsonrpc\":\"2.0\",\"id\":");
        match id {
            RequestId::Number(n) => out.push_str(itoa::Buffer::new().format(*n)),
            RequestId::String(_) => out.push_str(&serde_json::to_string(id).unwrap_or_default()),
        }
        out.push_str(",\"result\":{");
        let mut has_meta = false;
        let mut has_hints = false;
        let members = match body {
            Body::Members(text) => text,
            Body::Object(mut text) => {
                text.pop();
                text.remove(0);
                text
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
                text[1..text.len() - 1].to_owned()
            }
        };
        out.push_str(&members);
        let era = if modern.is_some() {
            Era::Modern
        } else {
            Era::Legacy
        };
        if let Some(envelope) = modern {
            let sep = if members.is_empty() { "" } else { "," };
            let _ = write!(
                out,
                "{sep}\"resultType\":\"{}\"",
                envelope.result_type.as_str()
            );
            // A result that set its own hints (a skill's `Skill::cache`) keeps them.
            let own_hints = has_hints
                || (matches!(envelope.method, Method::SkillsList | Method::SkillsGet)
                    && members.contains("\"ttlMs\":"));
            if envelope.method.cacheable()
                && envelope.result_type == ResultType::Complete
                && !own_hints
            {
                let _ = write!(
                    out,
                    ",\"ttlMs\":{},\"cacheScope\":\"{}\"",
                    self.inner.config.cache_ttl_ms,
                    self.inner.config.cache_scope.as_str()
                );
            }
            if !has_meta {
                out.push_str(",\"_meta\":{\"");
                out.push_str(meta::SERVER_INFO);
                out.push_str("\":");
                out.push_str(&self.server_info_json(envelope.session).await);
                out.push('}');
            }
        }
        out.push_str("}}");
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
