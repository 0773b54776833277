//! Feature `otel`: the `mcp.request` span, exported through a `tracing-opentelemetry` layer, is
//! a child of the client's span named in `_meta.traceparent` (and carries its `tracestate`); a
//! request without valid trace context starts a trace of its own.

use opentelemetry::trace::{SpanId, TraceId, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;
use tracing_subscriber::layer::SubscriberExt as _;

#[derive(Clone)]
struct Echo;

#[mcp_router(name = "echo", version = "1.0.0")]
impl Echo {
    /// Echoes the text back.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }
}

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";

/// Calls `echo` with `meta` as the request's `_meta` (beside the 2026-07-28 envelope) and
/// returns the `mcp.request` span the exporter received.
async fn exported_span(meta: serde_json::Value) -> SpanData {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("phantom-tests"));
    let subscriber = tracing_subscriber::registry().with(layer);
    let _guard = tracing::subscriber::set_default(subscriber);

    let mut client = Client::modern(Echo);
    let params = json!({"name": "echo", "arguments": {"text": "traced"}, "_meta": meta});
    let reply = client.request("tools/call", params).await;
    assert_eq!(
        reply.json["result"]["content"][0]["text"], "traced",
        "{}",
        reply.json
    );
    provider.force_flush().expect("the exporter flushes");
    let spans = exporter.get_finished_spans().expect("the exported spans");
    let mut requests: Vec<SpanData> = spans
        .into_iter()
        .filter(|s| s.name == "mcp.request")
        .collect();
    assert_eq!(requests.len(), 1, "one request, one span: {requests:?}");
    requests.remove(0)
}

#[tokio::test]
async fn the_request_span_is_a_child_of_the_clients_span_from_meta() {
    let span = exported_span(json!({
        "traceparent": format!("00-{TRACE_ID}-{CLIENT_SPAN}-01"),
        "tracestate": "vendor=1,other=two",
    }))
    .await;
    let context = &span.span_context;
    assert_eq!(
        context.trace_id(),
        TraceId::from_hex(TRACE_ID).expect("hex")
    );
    assert_eq!(
        span.parent_span_id,
        SpanId::from_hex(CLIENT_SPAN).expect("hex")
    );
    assert!(span.parent_span_is_remote, "the parent is the client's");
    assert_ne!(context.span_id(), span.parent_span_id, "a span of its own");
    assert!(context.is_sampled(), "the client's sampled flag is kept");
    assert_eq!(context.trace_state().header(), "vendor=1,other=two");
}

#[tokio::test]
async fn without_valid_trace_context_the_request_span_starts_a_trace() {
    for meta in [
        json!({}),
        // Version `ff` is invalid, as are an all-zero parent and a malformed value.
        json!({"traceparent": format!("ff-{TRACE_ID}-{CLIENT_SPAN}-01")}),
        json!({"traceparent": format!("00-{TRACE_ID}-0000000000000000-01")}),
        json!({"traceparent": "not a traceparent"}),
    ] {
        let span = exported_span(meta.clone()).await;
        assert_eq!(
            span.parent_span_id,
            SpanId::INVALID,
            "a root span for {meta}"
        );
        assert!(!span.parent_span_is_remote, "{meta}");
        assert_ne!(
            span.span_context.trace_id(),
            TraceId::from_hex(TRACE_ID).expect("hex"),
            "{meta}"
        );
        assert!(span.span_context.is_valid(), "{meta}");
    }
}
