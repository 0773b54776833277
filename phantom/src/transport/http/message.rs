//! A POST's body read once, by the dispatcher's one reader: the message, the head of its params,
//! and what the HTTP checks need of it.

use std::borrow::Cow;

use axum::response::Response;
use http::StatusCode;
use serde_json::value::RawValue;

use super::response::plain;
use crate::dispatch::{MetaProbe, ParamsHead, read_message_within};
use crate::protocol::{Incoming, Method, Params, RequestId, codes};

/// What the HTTP layer needs to know about a body before dispatching it, borrowed from the body.
pub(super) struct Inspected<'a> {
    /// The request id, when there is one.
    pub(super) id: Option<RequestId>,
    pub(super) is_request: bool,
    /// The method as sent (the `Mcp-Method` header must repeat it exactly).
    pub(super) method: Option<Cow<'a, str>>,
    /// The method, when phantom knows it.
    pub(super) known: Option<Method>,
    /// `Some` when the body claims the modern envelope: the claimed version value, as sent.
    pub(super) modern: Option<&'a RawValue>,
}

/// A body read once, by the dispatcher's one reader: the message and the head of its params.
pub(super) struct Parsed<'a> {
    pub(super) msg: Incoming<'a>,
    pub(super) head: ParamsHead<'a>,
}

impl Parsed<'_> {
    /// The request id, params and `_meta` of a 2026-07-28 `subscriptions/listen`.
    pub(super) fn listen(
        &self,
        seen: &Inspected<'_>,
    ) -> Option<(&RequestId, Option<Params<'_>>, &MetaProbe<'_>)> {
        let Incoming::Request { id, params, .. } = &self.msg else {
            return None;
        };
        let meta = self.head.meta.as_ref()?;
        (seen.modern.is_some() && seen.known == Some(Method::SubscriptionsListen))
            .then_some((id, *params, meta))
    }
}

/// The body read and what the HTTP checks need of it; `None` when it is not an ordinary message
/// or nests deeper than `limit` (the dispatcher answers those).
pub(super) fn inspect(text: &str, limit: usize) -> Option<(Inspected<'_>, Parsed<'_>)> {
    let (msg, head) = read_message_within(text, limit)?.ok()?;
    let (id, method, is_request) = match &msg {
        Incoming::Request { id, method, .. } => (Some(id.clone()), Some(method.clone()), true),
        Incoming::Notification { method, .. } => (None, Some(method.clone()), false),
        Incoming::Response { id, .. } => (Some(id.clone()), None, false),
    };
    let inspected = Inspected {
        id,
        is_request,
        known: method.as_deref().and_then(Method::parse),
        method,
        modern: head.claimed_version(),
    };
    Some((inspected, Parsed { msg, head }))
}

/// What a legacy POST hands the dispatcher: one message read already, or a batch.
#[allow(clippy::large_enum_variant)] // made and taken apart on the stack; a box would cost an allocation
pub(super) enum Message<'a> {
    One(Parsed<'a>),
    Batch(&'a str),
}

/// The `400` of a body that is not UTF-8.
pub(super) fn not_utf8() -> Response {
    plain(
        StatusCode::BAD_REQUEST,
        codes::PARSE_ERROR,
        "Parse error: the body is not UTF-8",
    )
}
