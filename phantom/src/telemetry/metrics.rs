//! Metrics on the `metrics` facade (feature `metrics`): whatever recorder the application installs
//! (Prometheus through `phantom::http::install_prometheus`, OpenTelemetry, statsd, …) receives
//! them. Names follow OpenTelemetry's MCP semantic conventions where they have one
//! (`mcp.server.operation.duration`, `mcp.method.name`, `mcp.protocol.version`, `error.type`,
//! `gen_ai.tool.name`); the rest are `phantom.*`. Every label is bounded: methods are
//! [`Method`]s or `other`, a tool is named only when it is registered, versions are
//! [`ProtocolVersion`]s, error types JSON-RPC codes of the reserved range or `_OTHER`; no session
//! id, no URI.
//!
//! Without the feature every function here is empty and every type a zero-sized one, so the
//! calls along the request path compile to nothing. With it, a request costs one lookup of a
//! pre-resolved histogram handle (per method and version, built once per dispatcher on first use;
//! `bench/NOTES.md` round 22), two clock reads and two gauge updates.

// Sessions, streams, SSE events and the backend's health are the HTTP transport's.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

#[cfg(feature = "metrics")]
use std::sync::OnceLock;
#[cfg(feature = "metrics")]
use std::time::Instant;

use crate::kernel::Reply;
#[cfg(feature = "metrics")]
use crate::protocol::Method;
use crate::protocol::ProtocolVersion;

/// Names and label keys, as recorded (Prometheus writes the dots as underscores).
#[cfg(feature = "metrics")]
pub(crate) mod names {
    /// Histogram, seconds: every request the dispatcher answered.
    pub(crate) const OPERATION_DURATION: &str = "mcp.server.operation.duration";
    /// Gauge: requests being handled.
    pub(crate) const IN_FLIGHT: &str = "phantom.requests.in_flight";
    /// Gauge: legacy sessions held by this node.
    pub(crate) const SESSIONS: &str = "phantom.sessions";
    /// Counter: legacy sessions opened (`initialize`) on this node.
    pub(crate) const SESSIONS_CREATED: &str = "phantom.sessions.created";
    /// Counter: legacy sessions dropped for idleness (on lookup or by the periodic sweep).
    pub(crate) const SESSIONS_EXPIRED: &str = "phantom.sessions.expired";
    /// Counter: idle legacy sessions swept to make room for a new one in a full table.
    pub(crate) const SESSIONS_EVICTED: &str = "phantom.sessions.evicted";
    /// Gauge, label `kind` (`get`, `listen`, `post`): SSE streams open.
    pub(crate) const STREAMS_OPEN: &str = "phantom.streams.open";
    /// Counter, label `kind` (`sent`, `replayed`): SSE events written.
    pub(crate) const SSE_EVENTS: &str = "phantom.sse.events";
    /// Counter, label `reason` (`rate_limited`, `too_large`, `timed_out`).
    pub(crate) const REFUSALS: &str = "phantom.middleware.refusals";
    /// Counter, label `seam`: store operations that failed.
    pub(crate) const STORE_ERRORS: &str = "phantom.store.errors";
    /// Counter: gaps a bus subscriber heard of (messages possibly lost).
    pub(crate) const BUS_GAPS: &str = "phantom.bus.gaps";
    /// Counter, label `status`: tasks that reached a status on this node.
    pub(crate) const TASKS: &str = "phantom.tasks";
    /// Gauge: handlers waiting for a client's answer on this node.
    pub(crate) const INPUT_WAITS: &str = "phantom.input.waits";
    /// Gauge, 0 or 1: the node is shutting down.
    pub(crate) const DRAINING: &str = "phantom.draining";
    /// Gauge, 0 or 1: the shared backend answered the readiness check.
    pub(crate) const BACKEND_UP: &str = "phantom.backend.up";

    pub(crate) const METHOD: &str = "mcp.method.name";
    pub(crate) const VERSION: &str = "mcp.protocol.version";
    pub(crate) const OUTCOME: &str = "outcome";
    pub(crate) const ERROR_TYPE: &str = "error.type";
    pub(crate) const TOOL: &str = "gen_ai.tool.name";
}

/// The histogram buckets of [`names::OPERATION_DURATION`], in seconds: from half a millisecond
/// (phantom answers a call in tens of microseconds) to OpenTelemetry's MCP recommendation's
/// upper end (300 s, a long tool call).
#[cfg_attr(not(feature = "prometheus"), allow(dead_code))]
pub(crate) const DURATION_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    60.0, 120.0, 300.0,
];

/// The methods a client sends as requests, by `Method as usize` (`Method::ALL` starts with
/// them), then `other`.
#[cfg(feature = "metrics")]
const METHODS: usize = 21 + 1;
/// The protocol versions, newest first (`ProtocolVersion::ALL`), then none known.
#[cfg(feature = "metrics")]
const VERSIONS: usize = ProtocolVersion::ALL.len() + 1;

/// What a request was, for its metrics.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
pub(crate) struct Operation<'a> {
    /// The method as sent.
    pub(crate) method: &'a str,
    /// The version it was served in (the session's, or 2026-07-28), if one is known.
    pub(crate) version: Option<ProtocolVersion>,
    /// The tool a `tools/call` names, as decoded.
    pub(crate) tool: Option<&'a str>,
}

/// The request metrics of one dispatcher: handles resolved on first use (so a recorder installed
/// before the first request receives them), then reused by every request.
#[derive(Default)]
pub(crate) struct Requests {
    #[cfg(feature = "metrics")]
    table: OnceLock<Box<Table>>,
}

#[cfg(feature = "metrics")]
struct Table {
    in_flight: metrics::Gauge,
    /// Successful requests, by method and version.
    ok: [[OnceLock<metrics::Histogram>; VERSIONS]; METHODS],
    /// Successful `tools/call`s of registered tools, by tool and version.
    tools: std::sync::RwLock<ahash::AHashMap<Box<str>, [OnceLock<metrics::Histogram>; VERSIONS]>>,
}

/// A request being handled: counted in flight until dropped; [`Timer::end`] records its
/// duration.
pub(crate) struct Timer<'a> {
    #[cfg(feature = "metrics")]
    table: &'a Table,
    #[cfg(feature = "metrics")]
    started: Instant,
    #[cfg(not(feature = "metrics"))]
    _requests: std::marker::PhantomData<&'a Requests>,
}

impl Requests {
    /// A request begins.
    #[inline]
    pub(crate) fn start(&self) -> Timer<'_> {
        #[cfg(feature = "metrics")]
        {
            let table = self.table.get_or_init(Table::new);
            table.in_flight.increment(1.0);
            Timer {
                table,
                started: Instant::now(),
            }
        }
        #[cfg(not(feature = "metrics"))]
        Timer {
            _requests: std::marker::PhantomData,
        }
    }
}

#[cfg(feature = "metrics")]
impl Table {
    fn new() -> Box<Self> {
        metrics::describe_histogram!(
            names::OPERATION_DURATION,
            metrics::Unit::Seconds,
            "The duration of MCP requests the server answered"
        );
        metrics::describe_gauge!(names::IN_FLIGHT, "MCP requests being handled");
        Box::new(Self {
            in_flight: metrics::gauge!(names::IN_FLIGHT),
            ok: std::array::from_fn(|_| std::array::from_fn(|_| OnceLock::new())),
            tools: std::sync::RwLock::default(),
        })
    }

    /// Records a successful request into its handle: the table's for its method and version,
    /// or, for a `tools/call` of a registered tool, that tool's (read under the map's read lock,
    /// not cloned out of it).
    fn record_ok(&self, op: &Operation<'_>, registered: impl FnOnce(&str) -> bool, seconds: f64) {
        let (m, method) = method_label(op.method);
        let (v, version) = version_label(op.version);
        if let Some(tool) = op.tool.filter(|_| m == Method::ToolsCall as usize) {
            if let Ok(tools) = self.tools.read()
                && let Some(histogram) = tools.get(tool).and_then(|row| row[v].get())
            {
                histogram.record(seconds);
                return;
            }
            if registered(tool) {
                self.tool_histogram(tool, v, method, version)
                    .record(seconds);
                return;
            }
        }
        self.ok[m][v]
            .get_or_init(|| {
                metrics::histogram!(
                    names::OPERATION_DURATION,
                    names::METHOD => method,
                    names::VERSION => version,
                    names::OUTCOME => "ok",
                )
            })
            .record(seconds);
    }

    fn tool_histogram(
        &self,
        tool: &str,
        v: usize,
        method: &'static str,
        version: &'static str,
    ) -> metrics::Histogram {
        let make = || {
            metrics::histogram!(
                names::OPERATION_DURATION,
                names::METHOD => method,
                names::VERSION => version,
                names::OUTCOME => "ok",
                names::TOOL => tool.to_owned(),
            )
        };
        let Ok(mut tools) = self.tools.write() else {
            return make();
        };
        let row = tools
            .entry(Box::from(tool))
            .or_insert_with(|| std::array::from_fn(|_| OnceLock::new()));
        row[v].get_or_init(make).clone()
    }
}

/// The `mcp.method.name` of a method as sent, and its row.
#[cfg(feature = "metrics")]
fn method_label(method: &str) -> (usize, &'static str) {
    // Most requests are calls: one comparison before the parser (bench/NOTES.md round 22).
    if method == "tools/call" {
        return (Method::ToolsCall as usize, "tools/call");
    }
    match Method::parse(method) {
        Some(m) if (m as usize) < METHODS - 1 => (m as usize, m.as_str()),
        _ => (METHODS - 1, "other"),
    }
}

/// The `mcp.protocol.version` of a request, and its column.
#[cfg(feature = "metrics")]
fn version_label(version: Option<ProtocolVersion>) -> (usize, &'static str) {
    let column = match version {
        None => return (VERSIONS - 1, "unknown"),
        Some(ProtocolVersion::V2026_07_28) => 0,
        Some(ProtocolVersion::V2025_11_25) => 1,
        Some(ProtocolVersion::V2025_06_18) => 2,
        Some(ProtocolVersion::V2025_03_26) => 3,
        Some(ProtocolVersion::V2024_11_05) => 4,
    };
    (column, ProtocolVersion::ALL[column].as_str())
}

impl Timer<'_> {
    /// The request was answered with `reply` (`None`: nothing to send). `registered` says
    /// whether a tool name is one this server has (only then is it a label).
    #[inline]
    pub(crate) fn end(
        self,
        op: Operation<'_>,
        registered: impl FnOnce(&str) -> bool,
        reply: Option<&Reply>,
    ) {
        #[cfg(feature = "metrics")]
        {
            let seconds = self.started.elapsed().as_secs_f64();
            match reply.and_then(|r| error_code(&r.body)) {
                None => self.table.record_ok(&op, registered, seconds),
                Some(code) => record_error(&op, registered, code, seconds),
            }
        }
        #[cfg(not(feature = "metrics"))]
        let _ = (op, registered, reply);
    }
}

#[cfg(feature = "metrics")]
impl Drop for Timer<'_> {
    fn drop(&mut self) {
        self.table.in_flight.decrement(1.0);
    }
}

/// An answered error: its handle is made for it (errors are the rare path).
#[cfg(feature = "metrics")]
#[cold]
fn record_error(
    op: &Operation<'_>,
    registered: impl FnOnce(&str) -> bool,
    code: i64,
    seconds: f64,
) {
    let (m, method) = method_label(op.method);
    let (_, version) = version_label(op.version);
    // The reserved range of JSON-RPC (-32768 to -32000) is bounded; a handler's own codes are not.
    let error_type = if (-32768..=-32000).contains(&code) {
        code.to_string()
    } else {
        "_OTHER".to_owned()
    };
    let mut labels = vec![
        metrics::Label::new(names::METHOD, method),
        metrics::Label::new(names::VERSION, version),
        metrics::Label::new(names::OUTCOME, "error"),
        metrics::Label::new(names::ERROR_TYPE, error_type),
    ];
    if let Some(tool) = op.tool.filter(|_| m == Method::ToolsCall as usize)
        && registered(tool)
    {
        labels.push(metrics::Label::new(names::TOOL, tool.to_owned()));
    }
    metrics::histogram!(names::OPERATION_DURATION, labels).record(seconds);
}

/// The code of a JSON-RPC error reply. The dispatcher writes error replies with `json!`, whose
/// map keeps its keys sorted, so they begin with `{"error":{"code":`; a result never does.
#[cfg(feature = "metrics")]
fn error_code(body: &str) -> Option<i64> {
    let rest = body.strip_prefix(r#"{"error":{"code":"#)?;
    let end = rest
        .find(|c: char| c != '-' && !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

macro_rules! counter {
    ($(#[$doc:meta])* $fn:ident, $name:expr $(, $label:ident)?) => {
        $(#[$doc])*
        #[inline]
        pub(crate) fn $fn($($label: &'static str)?) {
            #[cfg(feature = "metrics")]
            metrics::counter!($name $(, stringify!($label) => $label)?).increment(1);
            $(#[cfg(not(feature = "metrics"))]
            let _ = $label;)?
        }
    };
}

counter!(
    /// A legacy session was opened on this node.
    session_created,
    names::SESSIONS_CREATED
);
counter!(
    /// An SSE event was written (`kind`: `sent`, or `replayed` for one sent again after a
    /// `Last-Event-ID`).
    sse_event,
    names::SSE_EVENTS,
    kind
);
counter!(
    /// A middleware refused a request or replaced its result (`reason`: `rate_limited`,
    /// `too_large`, `timed_out`).
    refusal,
    names::REFUSALS,
    reason
);
counter!(
    /// A store operation failed (`seam`: `sessions`, `events`, `tasks`, `subscriptions`,
    /// `replies`, `registry`, `rate`, `cache`).
    store_error,
    names::STORE_ERRORS,
    seam
);
counter!(
    /// A bus subscriber heard of a gap.
    bus_gap,
    names::BUS_GAPS
);
counter!(
    /// A task reached `status` on this node (`working`, `input_required`, `completed`, `failed`,
    /// `cancelled`).
    task,
    names::TASKS,
    status
);

/// Legacy sessions left this node's table: `expired` when idle past their time to live,
/// `evicted` when swept to make room; `n` rows in all, `reason` set for the idle ones.
#[inline]
pub(crate) fn sessions_removed(n: u64, idle: Option<&'static str>) {
    #[cfg(feature = "metrics")]
    {
        metrics::gauge!(names::SESSIONS).decrement(n as f64);
        match idle {
            Some("evicted") => metrics::counter!(names::SESSIONS_EVICTED).increment(n),
            Some(_) => metrics::counter!(names::SESSIONS_EXPIRED).increment(n),
            None => {}
        }
    }
    #[cfg(not(feature = "metrics"))]
    let _ = (n, idle);
}

/// A legacy session row was added to this node's table (opened here or adopted from the store).
#[inline]
pub(crate) fn session_held() {
    #[cfg(feature = "metrics")]
    metrics::gauge!(names::SESSIONS).increment(1.0);
}

/// Whether the node is draining.
#[inline]
pub(crate) fn draining(on: bool) {
    #[cfg(feature = "metrics")]
    metrics::gauge!(names::DRAINING).set(f64::from(u8::from(on)));
    #[cfg(not(feature = "metrics"))]
    let _ = on;
}

/// Whether the shared backend answered the readiness check.
#[inline]
pub(crate) fn backend_up(up: bool) {
    #[cfg(feature = "metrics")]
    metrics::gauge!(names::BACKEND_UP).set(f64::from(u8::from(up)));
    #[cfg(not(feature = "metrics"))]
    let _ = up;
}

/// The kind of an open SSE stream.
#[derive(Clone, Copy)]
pub(crate) enum StreamKind {
    /// A legacy session's `GET` stream.
    Get,
    /// A 2026-07-28 `subscriptions/listen`.
    Listen,
    /// A `POST` answered as a stream.
    Post,
}

impl StreamKind {
    #[cfg(feature = "metrics")]
    fn label(self) -> &'static str {
        match self {
            Self::Get => "get",
            Self::Listen => "listen",
            Self::Post => "post",
        }
    }
}

/// Counts an SSE stream open while it lives (zero-sized without the feature).
pub(crate) struct OpenStream {
    #[cfg(feature = "metrics")]
    kind: StreamKind,
}

impl OpenStream {
    #[inline]
    pub(crate) fn new(kind: StreamKind) -> Self {
        #[cfg(feature = "metrics")]
        {
            metrics::gauge!(names::STREAMS_OPEN, "kind" => kind.label()).increment(1.0);
            Self { kind }
        }
        #[cfg(not(feature = "metrics"))]
        {
            let _ = kind;
            Self {}
        }
    }
}

#[cfg(feature = "metrics")]
impl Drop for OpenStream {
    fn drop(&mut self) {
        metrics::gauge!(names::STREAMS_OPEN, "kind" => self.kind.label()).decrement(1.0);
    }
}

/// Counts a handler waiting for a client's answer while it lives.
pub(crate) struct InputWait {
    _private: (),
}

impl InputWait {
    #[inline]
    pub(crate) fn new() -> Self {
        #[cfg(feature = "metrics")]
        metrics::gauge!(names::INPUT_WAITS).increment(1.0);
        Self { _private: () }
    }
}

#[cfg(feature = "metrics")]
impl Drop for InputWait {
    fn drop(&mut self) {
        metrics::gauge!(names::INPUT_WAITS).decrement(1.0);
    }
}

#[cfg(all(test, feature = "metrics"))]
mod tests {
    use super::*;

    #[test]
    fn error_replies_are_told_from_results() {
        let error = serde_json::json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "x"}})
            .to_string();
        assert_eq!(error_code(&error), Some(-32602));
        assert_eq!(
            error_code(r#"{"jsonrpc":"2.0","id":1,"result":{"error":{"code":1}}}"#),
            None
        );
    }

    #[test]
    fn labels_are_bounded() {
        assert_eq!(method_label("tools/call").1, "tools/call");
        assert_eq!(method_label("tasks/cancel").1, "tasks/cancel");
        assert_eq!(method_label("notifications/initialized").1, "other");
        assert_eq!(method_label("anything/else").1, "other");
        assert_eq!(version_label(None).1, "unknown");
        for (i, v) in ProtocolVersion::ALL.into_iter().enumerate() {
            assert_eq!(version_label(Some(v)), (i, v.as_str()));
        }
        assert_eq!(
            method_label("tools/call"),
            (Method::ToolsCall as usize, "tools/call")
        );
        assert_eq!(method_label("ping"), (Method::Ping as usize, "ping"));
    }
}
