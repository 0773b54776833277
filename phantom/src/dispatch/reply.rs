//! A result's era envelope (`resultType`, cache hints, `serverInfo`) and error replies.

use std::borrow::Cow;

use serde_json::json;

use super::Dispatcher;
use crate::kernel::{Body, Reply, ResultType, Status, Written};
use crate::protocol::{Era, ErrorObject, Method, RequestId, codes, meta};
use crate::server::Server;
use crate::session::Session;

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
}

impl<S: Server> Dispatcher<S> {
    /// A result in its era's envelope. The result writes its own members (`Body::written`);
    /// this only wraps them: the id, and in the 2026-07-28 era `resultType`, the configured cache
    /// hints (unless the result set its own) and `serverInfo` (in the result's own `_meta` when it
    /// has one).
    pub(crate) async fn ok_reply(
        &self,
        id: &RequestId,
        body: Body,
        modern: Option<Envelope<'_>>,
    ) -> Reply {
        let info = match &modern {
            Some(envelope) => Some(self.server_info_json(envelope.session).await),
            None => None,
        };
        let result_type = body.result_type();
        let own_hints = body.own_hints();
        let own_meta = body.own_meta();
        let members = body.written(info.as_deref().filter(|_| own_meta));
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
            let config = &self.inner.config;
            let hints =
                (envelope.method.cacheable() && result_type == ResultType::Complete && !own_hints)
                    .then(|| (ttl.format(config.cache_ttl_ms), config.cache_scope.as_str()));
            ModernPieces {
                result_type: result_type.as_str(),
                hints,
                server_info: info.as_deref().filter(|_| !own_meta),
            }
        });
        let pieces = Pieces { id: &id, modern };
        // Measured first: a buffer of exactly the reply's length becomes the response's `Bytes`
        // without another allocation.
        let mut len = members.len();
        let no_members = len == 0;
        pieces.before(|piece| len += piece.len());
        pieces.after(no_members, |piece| len += piece.len());
        // A span of text is copied as text; a text block is escaped into bytes (all of it text).
        let body = match &members {
            Written::Span { text, range } => {
                let mut out = String::with_capacity(len);
                pieces.before(|piece| out.push_str(piece));
                out.push_str(&text[range.clone()]);
                pieces.after(no_members, |piece| out.push_str(piece));
                out
            }
            Written::TextBlock { .. } => {
                let mut out = Vec::with_capacity(len);
                pieces.before(|piece| out.extend_from_slice(piece.as_bytes()));
                members.write(&mut out);
                pieces.after(no_members, |piece| out.extend_from_slice(piece.as_bytes()));
                String::from_utf8(out).unwrap_or_default()
            }
        };
        Reply {
            body,
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
