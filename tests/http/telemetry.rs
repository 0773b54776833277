//! Telemetry over real HTTP: the dispatch span carries the trace id of the request's
//! `_meta.traceparent`, its method, name, era, session, outcome and duration; the `connect`,
//! `disconnect`, `terminate` and `exception` events fire. A capturing `tracing` layer, installed
//! for the test's thread, records what phantom emits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use http::{Method, StatusCode};
use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt as _};

use crate::support::{LEGACY, TestServer};

pub(crate) type Fields = HashMap<String, String>;

/// Spans (by name, in creation order) and events of the `phantom::telemetry` target.
#[derive(Clone, Default)]
struct Captured {
    spans: Arc<Mutex<Vec<(Id, String, Fields)>>>,
    events: Arc<Mutex<Vec<Fields>>>,
}

impl Captured {
    fn spans(&self, name: &str) -> Vec<Fields> {
        let spans = self.spans.lock().expect("spans");
        spans
            .iter()
            .filter(|(_, n, _)| n == name)
            .map(|(_, _, f)| f.clone())
            .collect()
    }

    fn events(&self, kind: &str) -> Vec<Fields> {
        let events = self.events.lock().expect("events");
        events
            .iter()
            .filter(|f| f.get("event").map(String::as_str) == Some(kind))
            .cloned()
            .collect()
    }
}

/// Records a span's or an event's fields as text.
pub(crate) struct Collect<'a>(pub(crate) &'a mut Fields);

impl Visit for Collect<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Captured {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        if attrs.metadata().target() != phantom::telemetry::TARGET {
            return;
        }
        let mut fields = Fields::new();
        attrs.record(&mut Collect(&mut fields));
        let name = attrs.metadata().name().to_owned();
        self.spans
            .lock()
            .expect("spans")
            .push((id.clone(), name, fields));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = self.spans.lock().expect("spans");
        if let Some((_, _, fields)) = spans.iter_mut().find(|(i, _, _)| i == id) {
            values.record(&mut Collect(fields));
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() != phantom::telemetry::TARGET {
            return;
        }
        let mut fields = Fields::new();
        event.record(&mut Collect(&mut fields));
        self.events.lock().expect("events").push(fields);
    }
}

/// A router whose tool panics, and whose `connect` lets everyone in.
#[derive(Clone)]
struct Faulty;

#[mcp_router(name = "faulty", version = "1.0.0")]
impl Faulty {
    /// Panics with a secret in the message.
    #[tool]
    async fn explode(&self) -> String {
        panic!("the secret is hunter2")
    }

    async fn connect(&self, session: &mut Session, _request: &Request) -> Connect {
        session.principal = Some("ada".into());
        Connect::Ok
    }
}

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

#[tokio::test]
async fn a_dispatch_span_carries_the_trace_of_its_meta_and_the_callback_events_fire() {
    crate::escaped::every_callsite_wanted();
    let captured = Captured::default();
    let subscriber = tracing_subscriber::registry().with(captured.clone());
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = TestServer::start(HttpConfig::default()).await;
    let traced = server
        .post_modern(
            "tools/call",
            json!({
                "name": "echo",
                "arguments": {"text": "traced"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": crate::support::MODERN,
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "traceparent": TRACEPARENT,
                    "tracestate": "vendor=1",
                },
            }),
        )
        .send()
        .await;
    assert_eq!(traced.status, StatusCode::OK);
    let _ = traced.text().await;
    let spans = captured.spans("mcp.request");
    let span = spans
        .iter()
        .find(|s| s.get("trace_id").map(String::as_str) == Some("4bf92f3577b34da6a3ce929d0e0e4736"))
        .unwrap_or_else(|| panic!("no span carries the trace id: {spans:?}"));
    assert_eq!(span["parent_span_id"], "00f067aa0ba902b7");
    assert_eq!(span["tracestate"], "vendor=1");
    assert_eq!(span["rpc.method"], "tools/call");
    assert_eq!(span["mcp.name"], "echo");
    assert_eq!(span["mcp.era"], "2026-07-28");
    assert_eq!(span["outcome"], "ok");
    assert!(span.contains_key("duration_us"), "{span:?}");

    // A legacy session: its id on the span, an error outcome with its code, `connect` (the Lab
    // router overrides it), `disconnect` after each request and `terminate` on DELETE.
    let session = server.initialize(LEGACY).await;
    let unknown = server
        .post_in(
            &session,
            &crate::support::request(7, "tools/call", json!({"name": "nope"})),
        )
        .send()
        .await;
    let _ = unknown.text().await;
    let spans = captured.spans("mcp.request");
    let failed = spans
        .iter()
        .find(|s| s.get("rpc.id").map(String::as_str) == Some("7"))
        .unwrap_or_else(|| panic!("no span for request 7: {spans:?}"));
    assert_eq!(failed["mcp.session"], session);
    assert_eq!(failed["mcp.era"], "legacy");
    assert_eq!(failed["outcome"], "error");
    assert_eq!(failed["error.code"], "-32602");
    assert!(
        failed.get("trace_id").is_none(),
        "no traceparent, no trace id"
    );
    assert!(!captured.events("connect").is_empty(), "connect fired");
    assert!(
        captured
            .events("disconnect")
            .iter()
            .any(|e| e.get("mcp.session") == Some(&session)),
        "disconnect fired for the session"
    );
    let deleted = server
        .request(Method::DELETE)
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert!(deleted.status.is_success());
    let terminated = captured.events("terminate");
    assert!(
        terminated
            .iter()
            .any(|e| e.get("mcp.session") == Some(&session) && e["outcome"] == "ok"),
        "terminate fired: {terminated:?}"
    );

    // A panic: an `exception` event without the panic's text, and a -32603 to the client.
    let faulty = TestServer::start_with(Faulty, HttpConfig::default()).await;
    let session = faulty.initialize(LEGACY).await;
    let call = crate::support::request(1, "tools/call", json!({"name": "explode"}));
    let reply = faulty.post_in(&session, &call).send().await;
    let body = reply.text().await;
    assert!(!body.contains("hunter2"), "{body}");
    let exceptions = captured.events("exception");
    assert!(!exceptions.is_empty(), "exception fired");
    assert!(
        exceptions
            .iter()
            .all(|e| !format!("{e:?}").contains("hunter2")),
        "{exceptions:?}"
    );
    let connects = captured.events("connect");
    assert!(
        connects
            .iter()
            .any(|e| e.get("principal").map(String::as_str) == Some("ada")),
        "{connects:?}"
    );
}
