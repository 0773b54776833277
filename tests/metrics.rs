//! phantom's `prometheus` feature end to end: the recorder `phantom::http::install_prometheus`
//! installs, requests of both eras over real HTTP, and `/metrics` read back and parsed — counts
//! by method, version and outcome, histogram buckets, a tool label for registered tools only, no
//! session id; `/metrics` on the admin address and not on the MCP listener; and, with a real
//! `redis-server` stopped, `/readyz` still `200` while its body and `phantom_backend_up` say the
//! backend is down (`cargo test -p phantom-tests --features prometheus --test metrics`).
//!
//! The recorder is the process's, so this is a test binary of its own, and only
//! [`requests_are_counted_by_method_version_and_outcome`] sends MCP requests (the counts it
//! asserts are exact).

#[allow(dead_code, unreachable_pub)]
#[path = "http/support.rs"]
mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use http::{Method, StatusCode};
use phantom::http::HttpConfig;
use phantom_tests::redis::RedisServer;
use serde_json::{Value, json};

use support::{LEGACY, Lab, TestServer, echo_call, request};

/// One sample of the text format: its labels and value.
type Sample = (BTreeMap<String, String>, f64);

/// The samples of metric `name` (`name{labels} value` lines; `name value` without labels).
fn samples(text: &str, name: &str) -> Vec<Sample> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some(rest) = line.strip_prefix(name) else {
            continue;
        };
        let (labels, value) = match rest.strip_prefix('{') {
            Some(rest) => {
                let (labels, value) = rest.split_once("} ").expect("labels then a value");
                (labels, value)
            }
            None => match rest.strip_prefix(' ') {
                Some(value) => ("", value),
                None => continue,
            },
        };
        let mut map = BTreeMap::new();
        for pair in labels.split("\",").filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once("=\"").expect("key=\"value\"");
            map.insert(k.to_owned(), v.trim_end_matches('"').to_owned());
        }
        out.push((map, value.trim().parse().expect("a number")));
    }
    out
}

/// The value of the one sample of `name` whose labels include `with` (and, when `exact`, no
/// others).
fn value(text: &str, name: &str, with: &[(&str, &str)], exact: bool) -> Option<f64> {
    let found: Vec<f64> = samples(text, name)
        .into_iter()
        .filter(|(labels, _)| {
            with.iter()
                .all(|(k, v)| labels.get(*k).map(String::as_str) == Some(*v))
                && (!exact || labels.len() == with.len())
        })
        .map(|(_, v)| v)
        .collect();
    assert!(found.len() <= 1, "{name} {with:?}: {found:?}\n{text}");
    found.first().copied()
}

async fn scrape(server: &TestServer) -> String {
    let reply = server.request(Method::GET).path("/metrics").send().await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    reply.text().await
}

fn install() {
    phantom::http::install_prometheus().expect("the recorder");
    // A second call keeps the first recorder.
    phantom::http::install_prometheus().expect("installed already");
}

/// A free loopback address (bound and released; the server binds it next).
fn free_addr() -> std::net::SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
}

#[tokio::test]
async fn requests_are_counted_by_method_version_and_outcome() {
    install();
    let server = TestServer::start(HttpConfig::default().with_body_limit(64 * 1024)).await;
    // 2026-07-28: three calls of a registered tool, one of a tool nobody registered.
    for text in ["a", "b", "c"] {
        let reply = server
            .post_modern(
                "tools/call",
                json!({"name": "echo", "arguments": {"text": text}}),
            )
            .send()
            .await;
        assert_eq!(reply.status, StatusCode::OK);
    }
    let unknown = server
        .post_modern(
            "tools/call",
            json!({"name": "secret-4711", "arguments": {}}),
        )
        .send()
        .await;
    assert_eq!(unknown.json().await["error"]["code"], json!(-32602));
    // 2025-11-25: a session, two calls, a method phantom does not know.
    let session = server.initialize(LEGACY).await;
    for id in [1, 2] {
        let reply = server.post_in(&session, &echo_call(id, "x")).send().await;
        assert_eq!(reply.status, StatusCode::OK);
    }
    let other = server
        .post_in(&session, &request(3, "custom/thing", json!({})))
        .send()
        .await;
    let other: Value = other.json().await;
    assert_eq!(other["error"]["code"], json!(-32601));

    // A GET stream held open while the metrics are read; a body over the limit refused.
    let stream = server.get_stream(&session).await;
    let big = json!({"jsonrpc": "2.0", "id": 9, "method": "ping", "padding": "x".repeat(70_000)});
    let refused = server.post_in(&session, &big).send().await;
    assert_eq!(refused.status, StatusCode::PAYLOAD_TOO_LARGE);

    let text = scrape(&server).await;
    assert_eq!(
        value(&text, "phantom_streams_open", &[("kind", "get")], true),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        value(
            &text,
            "phantom_middleware_refusals",
            &[("reason", "too_large")],
            true
        ),
        Some(1.0),
        "{text}"
    );
    drop(stream);
    let count = "mcp_server_operation_duration_count";
    let call = |version, outcome| {
        vec![
            ("mcp_method_name", "tools/call"),
            ("mcp_protocol_version", version),
            ("outcome", outcome),
        ]
    };
    let mut echo = call("2026-07-28", "ok");
    echo.push(("gen_ai_tool_name", "echo"));
    assert_eq!(value(&text, count, &echo, true), Some(3.0), "{text}");
    // The unknown tool is not a label: the error is counted without one.
    let mut refused = call("2026-07-28", "error");
    refused.push(("error_type", "-32602"));
    assert_eq!(value(&text, count, &refused, true), Some(1.0), "{text}");
    assert!(!text.contains("secret-4711"), "{text}");
    let mut legacy = call(LEGACY, "ok");
    legacy.push(("gen_ai_tool_name", "echo"));
    assert_eq!(value(&text, count, &legacy, true), Some(2.0), "{text}");
    let initialize = [
        ("mcp_method_name", "initialize"),
        ("mcp_protocol_version", LEGACY),
        ("outcome", "ok"),
    ];
    assert_eq!(value(&text, count, &initialize, true), Some(1.0), "{text}");
    let unknown_method = [
        ("mcp_method_name", "other"),
        ("mcp_protocol_version", LEGACY),
        ("outcome", "error"),
        ("error_type", "-32601"),
    ];
    assert_eq!(
        value(&text, count, &unknown_method, true),
        Some(1.0),
        "{text}"
    );
    assert!(!text.contains("custom/thing"), "{text}");
    // Histogram buckets, not a summary: every bucket bound, cumulative, `+Inf` = the count.
    let buckets: Vec<Sample> = samples(&text, "mcp_server_operation_duration_bucket")
        .into_iter()
        .filter(|(labels, _)| {
            echo.iter()
                .all(|(k, v)| labels.get(*k).map(String::as_str) == Some(*v))
        })
        .collect();
    let bounds: Vec<&str> = buckets.iter().map(|(l, _)| l["le"].as_str()).collect();
    assert_eq!(bounds.first(), Some(&"0.0005"), "{text}");
    assert_eq!(bounds.last(), Some(&"+Inf"), "{text}");
    assert_eq!(bounds.len(), 19, "{bounds:?}");
    assert!(buckets.windows(2).all(|w| w[0].1 <= w[1].1), "{buckets:?}");
    assert_eq!(buckets.last().map(|b| b.1), Some(3.0));
    assert!(
        text.contains("# TYPE mcp_server_operation_duration histogram"),
        "{text}"
    );
    // Nothing in flight once answered; the session held and counted; no session id anywhere.
    assert_eq!(
        value(&text, "phantom_requests_in_flight", &[], true),
        Some(0.0)
    );
    assert!(value(&text, "phantom_sessions_created", &[], true) >= Some(1.0));
    assert!(value(&text, "phantom_sessions", &[], true) >= Some(1.0));
    assert!(
        !text.contains(&session),
        "a session id in the metrics:\n{text}"
    );
    assert_eq!(value(&text, "phantom_draining", &[], true), Some(0.0));
}

#[tokio::test]
async fn metrics_are_served_on_the_admin_address_and_not_on_the_mcp_listener() {
    install();
    let admin = free_addr();
    let http = HttpConfig::default()
        .with_admin_addr(admin)
        .with_metrics_path("/internal/metrics");
    assert_eq!(http.admin_addr(), Some(admin));
    assert_eq!(http.metrics_path(), "/internal/metrics");
    let server = TestServer::start_with(Lab::default(), http).await;
    let public = server
        .request(Method::GET)
        .path("/internal/metrics")
        .send()
        .await;
    assert_eq!(public.status, StatusCode::NOT_FOUND);
    let default_path = server.request(Method::GET).path("/metrics").send().await;
    assert_eq!(default_path.status, StatusCode::NOT_FOUND);
    // The MCP listener still answers its probes.
    let ready = server.request(Method::GET).path("/readyz").send().await;
    assert_eq!(ready.status, StatusCode::OK);

    let admin = TestServer::at(admin);
    let reply = admin
        .request(Method::GET)
        .path("/internal/metrics")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let text = reply.text().await;
    assert_eq!(
        value(&text, "phantom_draining", &[], true),
        Some(0.0),
        "{text}"
    );
    let ready = admin.request(Method::GET).path("/readyz").send().await;
    assert_eq!(ready.status, StatusCode::OK);
    assert_eq!(
        ready.json().await,
        json!({"status": "ready", "draining": false, "backend": "memory"})
    );
    let health = admin.request(Method::GET).path("/healthz").send().await;
    assert_eq!(health.status, StatusCode::OK);
    let mcp = admin.request(Method::POST).path("/mcp").send().await;
    assert_eq!(mcp.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn with_redis_stopped_readiness_stays_200_and_the_backend_gauge_says_down() {
    install();
    let mut redis = RedisServer::start();
    let backend = phantom_redis::Redis::connect(&redis.url())
        .await
        .expect("connect")
        .with_prefix("metrics-backend")
        .backend()
        .await
        .expect("the backend");
    let config = phantom::Config::default().with_backend(backend);
    let server = TestServer::start_configured(Lab::default(), config, HttpConfig::default()).await;
    let ready = server.request(Method::GET).path("/readyz").send().await;
    assert_eq!(ready.status, StatusCode::OK);
    assert_eq!(ready.json().await["backend"], json!("up"));
    let text = scrape(&server).await;
    assert_eq!(
        value(&text, "phantom_backend_up", &[], true),
        Some(1.0),
        "{text}"
    );

    redis.kill();
    // The readiness check is reused for a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let ready = server.request(Method::GET).path("/readyz").send().await;
    assert_eq!(
        ready.status,
        StatusCode::OK,
        "a backend down keeps the node ready"
    );
    assert_eq!(
        ready.json().await,
        json!({"status": "ready", "draining": false, "backend": "down"})
    );
    // A session looked up in the store that is down: `503`, counted by seam.
    let lookup = server
        .request(Method::GET)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", "no-such-session")
        .send()
        .await;
    assert_eq!(lookup.status, StatusCode::SERVICE_UNAVAILABLE);
    let text = scrape(&server).await;
    assert_eq!(
        value(&text, "phantom_backend_up", &[], true),
        Some(0.0),
        "{text}"
    );
    assert!(
        value(&text, "phantom_store_errors", &[("seam", "sessions")], true) >= Some(1.0),
        "{text}"
    );
    assert!(!text.contains("no-such-session"), "{text}");
}
