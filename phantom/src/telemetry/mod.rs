//! Telemetry on `tracing`: a span around every dispatched request, carrying the W3C trace context
//! of its `_meta` (`traceparent`, `tracestate`), and events mirroring Phantom's telemetry
//! (`connect`, `disconnect`, `terminate`, `exception`). Everything is under the target
//! `phantom::telemetry`, at `DEBUG` (an exception at `ERROR`), so a subscriber that keeps `INFO`
//! pays nothing but the level check.
//!
//! With the `otel` feature, the span's OpenTelemetry parent is the client's span: OpenTelemetry's
//! W3C `TraceContextPropagator` reads `_meta.traceparent` and `_meta.tracestate`, and the context
//! goes to `tracing-opentelemetry` (`OpenTelemetrySpanExt::set_parent`), so a span exported
//! through its layer has the client's trace id and parent span id.
//!
//! With the `metrics` feature, requests, sessions, streams, refusals, store errors, tasks, the
//! drain and the backend's health are recorded on the `metrics` facade (`metrics.rs`).

pub(crate) mod metrics;

use std::time::Instant;

use serde_json::value::RawValue;
use tracing::field::Empty;

use crate::kernel::Reply;
use crate::protocol::RequestId;
use crate::protocol::raw_str;
use crate::session::Session;

/// The target of every span and event here: `RUST_LOG=phantom::telemetry=debug` shows them.
pub const TARGET: &str = crate::kernel::TELEMETRY_TARGET;

/// A request's span: `rpc.method`, `rpc.id`, `mcp.era`, and, when known, `mcp.name`,
/// `mcp.session`, `trace_id`, `parent_span_id` and `tracestate`; `outcome`, `error.code` and
/// `duration_us` are recorded when it ends ([`Ended::record`]).
pub(crate) fn request_span(
    method: &str,
    id: &RequestId,
    modern: bool,
    name: Option<&str>,
    session: Option<&Session>,
    trace: Trace<'_>,
) -> (tracing::Span, Option<Ended>) {
    let span = tracing::debug_span!(
        target: TARGET,
        "mcp.request",
        rpc.method = method,
        rpc.id = %id,
        mcp.era = if modern { "2026-07-28" } else { "legacy" },
        mcp.name = Empty,
        mcp.session = Empty,
        trace_id = Empty,
        parent_span_id = Empty,
        tracestate = Empty,
        outcome = Empty,
        error.code = Empty,
        duration_us = Empty,
    );
    if span.is_disabled() {
        return (span, None);
    }
    if let Some(name) = name {
        span.record("mcp.name", name);
    }
    if let Some(id) = session.and_then(|s| s.id.as_deref()) {
        span.record("mcp.session", id);
    }
    if let Some((trace_id, parent)) = trace
        .parent
        .and_then(raw_str)
        .as_deref()
        .and_then(parse_traceparent)
    {
        span.record("trace_id", trace_id);
        span.record("parent_span_id", parent);
        if let Some(state) = trace.state.and_then(raw_str) {
            span.record("tracestate", state.as_ref());
        }
    }
    #[cfg(feature = "otel")]
    if let Some(parent) = trace.parent.and_then(raw_str) {
        let state = trace.state.and_then(raw_str);
        otel::set_parent(&span, &parent, state.as_deref());
    }
    let ended = Ended {
        span: span.clone(),
        started: Instant::now(),
    };
    (span, Some(ended))
}

/// `_meta.traceparent` and `_meta.tracestate`, as sent.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Trace<'a> {
    pub(crate) parent: Option<&'a RawValue>,
    pub(crate) state: Option<&'a RawValue>,
}

/// An enabled request span, to be closed with what came of the request.
pub(crate) struct Ended {
    span: tracing::Span,
    started: Instant,
}

impl Ended {
    /// Records `outcome` (`ok`, `error`, `accepted` for a request answered with nothing, or
    /// `input_required`), `error.code` and `duration_us`.
    pub(crate) fn record(self, reply: Option<&Reply>) {
        let elapsed = u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.span.record("duration_us", elapsed);
        let Some(reply) = reply else {
            self.span.record("outcome", "accepted");
            return;
        };
        let body = reply.body.as_str();
        if let Some(code) = error_code(body) {
            self.span.record("outcome", "error");
            self.span.record("error.code", code);
        } else if body.contains(r#""resultType":"input_required""#) {
            self.span.record("outcome", "input_required");
        } else {
            self.span.record("outcome", "ok");
        }
    }
}

/// The `error.code` of a JSON-RPC error body (phantom writes `"error":{"code":…` first).
fn error_code(body: &str) -> Option<i64> {
    let at = body.find(r#""error":{"code":"#)? + r#""error":{"code":"#.len();
    let digits = body[at..]
        .find(|c: char| c != '-' && !c.is_ascii_digit())
        .map_or(&body[at..], |end| &body[at..at + end]);
    digits.parse().ok()
}

/// The trace id and parent span id of a W3C `traceparent` (`00-<32 hex>-<16 hex>-<2 hex>`);
/// `None` for a malformed one, a version of `ff`, or an all-zero id, which the recommendation
/// says to ignore.
pub(crate) fn parse_traceparent(value: &str) -> Option<(&str, &str)> {
    let mut parts = value.trim().split('-');
    let (version, trace_id, parent, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |s: &str, n: usize| {
        s.len() == n
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let nonzero = |s: &str| s.bytes().any(|b| b != b'0');
    let valid = hex(version, 2)
        && version != "ff"
        && hex(trace_id, 32)
        && nonzero(trace_id)
        && hex(parent, 16)
        && nonzero(parent)
        && hex(flags, 2)
        // Version 00 has exactly four fields; later versions may add more.
        && (version != "00" || parts.next().is_none());
    valid.then_some((trace_id, parent))
}

/// Feature `otel`: the OpenTelemetry parent of a request's span.
#[cfg(feature = "otel")]
mod otel {
    use opentelemetry::Context;
    use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
    use opentelemetry::trace::TraceContextExt as _;
    use opentelemetry_sdk::propagation::TraceContextPropagator;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    /// `_meta.traceparent` and `_meta.tracestate` as a carrier the propagator reads.
    struct Meta<'a> {
        traceparent: &'a str,
        tracestate: Option<&'a str>,
    }

    impl Extractor for Meta<'_> {
        fn get(&self, key: &str) -> Option<&str> {
            match key {
                "traceparent" => Some(self.traceparent),
                "tracestate" => self.tracestate,
                _ => None,
            }
        }

        fn keys(&self) -> Vec<&str> {
            let mut keys = vec!["traceparent"];
            keys.extend(self.tracestate.map(|_| "tracestate"));
            keys
        }
    }

    /// Parents `span` on the client's span when `traceparent` is valid W3C trace context (as
    /// OpenTelemetry's `TraceContextPropagator` reads it); otherwise the span keeps the parent
    /// `tracing` gave it.
    pub(super) fn set_parent(span: &tracing::Span, traceparent: &str, tracestate: Option<&str>) {
        let meta = Meta {
            traceparent,
            tracestate,
        };
        let cx = TraceContextPropagator::new().extract_with_context(&Context::new(), &meta);
        if cx.span().span_context().is_remote() {
            // Without an OpenTelemetry layer in the subscriber there is no parent to set, and
            // nothing to report.
            let _ = span.set_parent(cx);
        }
    }
}

/// `connect` ran for a request: `outcome` is `ok` or how it was refused.
pub(crate) fn connect(session: &Session, outcome: &'static str) {
    tracing::debug!(
        target: TARGET,
        event = "connect",
        mcp.session = session.id.as_deref(),
        principal = session.principal.as_deref(),
        outcome,
    );
}

/// A request, stream or session use ended (`disconnect`).
pub(crate) fn disconnect(session: &Session) {
    tracing::debug!(
        target: TARGET,
        event = "disconnect",
        mcp.session = session.id.as_deref(),
    );
}

/// A session ended (`terminate`).
pub(crate) fn terminate(session: &Session, ok: bool) {
    tracing::debug!(
        target: TARGET,
        event = "terminate",
        mcp.session = session.id.as_deref(),
        outcome = if ok { "ok" } else { "error" },
    );
}

#[cfg(test)]
mod tests {
    use super::{error_code, parse_traceparent};

    #[test]
    fn traceparent_is_read_as_the_recommendation_says() {
        let ok = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert_eq!(
            parse_traceparent(ok),
            Some(("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"))
        );
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6-00f067aa0ba902b7-01",
            "",
        ] {
            assert_eq!(parse_traceparent(bad), None, "{bad}");
        }
        assert!(
            parse_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x")
                .is_some()
        );
    }

    #[test]
    fn error_codes_are_read_from_error_bodies() {
        assert_eq!(
            error_code(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}"#),
            Some(-32602)
        );
        assert_eq!(error_code(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
    }
}
