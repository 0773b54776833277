//! Probes and shutdown: `/healthz` and `/readyz` on phantom's own listener, readiness `503` from
//! the moment the shutdown begins while the listener still accepts for the drain delay, GET
//! streams ended with a `retry:` hint, and `SIGTERM` to a server process that finishes the request
//! in flight and exits 0.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use http::{Method, StatusCode};
use phantom::http::HttpConfig;
use phantom_tests::child;
use phantom_tests::slow::Slow;
use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::support::{LEGACY, TestServer, first_text};

async fn probe(server: &TestServer, path: &'static str) -> (StatusCode, Value) {
    let reply = server.request(Method::GET).path(path).send().await;
    let status = reply.status;
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    (status, reply.json().await)
}

#[tokio::test]
async fn readiness_turns_503_when_the_shutdown_begins_and_the_listener_closes_after_the_delay() {
    let delay = Duration::from_millis(800);
    let mut server =
        TestServer::start_with(Slow, HttpConfig::default().with_drain_delay(delay)).await;
    assert_eq!(
        probe(&server, "/healthz").await,
        (StatusCode::OK, json!({"status": "alive"}))
    );
    assert_eq!(
        probe(&server, "/readyz").await,
        (
            StatusCode::OK,
            json!({"status": "ready", "draining": false, "backend": "memory"})
        )
    );
    let began = Instant::now();
    server.shut_down();
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Draining: not ready, still alive, still accepting and serving MCP requests.
    assert_eq!(
        probe(&server, "/readyz").await,
        (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"status": "draining", "draining": true, "backend": "memory"})
        )
    );
    assert_eq!(probe(&server, "/healthz").await.0, StatusCode::OK);
    let call = server
        .post_modern(
            "tools/call",
            json!({"name": "wait", "arguments": {"ms": 10}}),
        )
        .send()
        .await;
    assert_eq!(call.status, StatusCode::OK);
    assert_eq!(first_text(&call.json().await["result"]), "done");
    assert!(
        began.elapsed() < delay,
        "the checks took longer than the drain delay: {:?}",
        began.elapsed()
    );
    // After the delay the port is closed.
    tokio::time::sleep_until((began + delay + Duration::from_millis(300)).into()).await;
    assert!(
        TcpStream::connect(server.addr).await.is_err(),
        "still accepting after the drain delay"
    );
}

#[tokio::test]
async fn the_probe_paths_are_configurable_and_no_mcp_request() {
    let http = HttpConfig::default().with_probe_paths("live", "/ready");
    assert_eq!((http.health_path(), http.ready_path()), ("/live", "/ready"));
    let server = TestServer::start_with(Slow, http).await;
    assert_eq!(probe(&server, "/live").await.0, StatusCode::OK);
    assert_eq!(probe(&server, "/ready").await.0, StatusCode::OK);
    let old = server.request(Method::GET).path("/readyz").send().await;
    assert_eq!(old.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_get_stream_ends_with_a_retry_hint_at_shutdown() {
    let mut server = TestServer::start_with(Slow, HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let stream = server.get_stream(&session).await;
    server.shut_down();
    let rest = tokio::time::timeout(Duration::from_secs(5), stream.rest())
        .await
        .expect("the stream ends at shutdown");
    let last = rest.last().expect("a last block");
    assert_eq!(last.retry, Some(1000), "{rest:?}");
    assert_eq!(last.data, None, "{rest:?}");
}

#[tokio::test]
async fn the_probes_of_a_mounted_app_follow_its_dispatcher() {
    let dispatcher = phantom::dispatch::Dispatcher::new(Slow);
    let http = HttpConfig::default();
    let app = axum::Router::new()
        .nest_service(
            "/mcp",
            phantom::http::service_dispatcher(dispatcher.clone(), http.clone()),
        )
        .merge(phantom::http::probes(&dispatcher, &http));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    let server = TestServer::at(addr);
    assert_eq!(probe(&server, "/readyz").await.0, StatusCode::OK);
    dispatcher.drain();
    assert!(dispatcher.draining());
    assert_eq!(
        probe(&server, "/readyz").await,
        (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"status": "draining", "draining": true, "backend": "memory"})
        )
    );
    assert_eq!(probe(&server, "/healthz").await.0, StatusCode::OK);
}

/// Set in the child process of [`sigterm_finishes_the_request_in_flight_and_exits_0`].
const CHILD: &str = "PHANTOM_DRAIN_CHILD";

/// `SIGTERM` is sent to a whole process, so the server runs in a child: this test binary again,
/// with only this test selected and [`CHILD`] set, serving with `phantom::shutdown_signal()`.
/// It prints its address; the parent calls a tool that takes 1.5 s, sends `SIGTERM` while it
/// runs, reads readiness `503` during the drain delay, gets the tool's answer and sees the child
/// exit 0.
#[tokio::test]
async fn sigterm_finishes_the_request_in_flight_and_exits_0() {
    if std::env::var_os(CHILD).is_some() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        println!("listening on {}", listener.local_addr().expect("address"));
        let http = HttpConfig::default().with_drain_delay(Duration::from_millis(500));
        phantom::http::serve_listener(listener, Slow, http, phantom::shutdown_signal())
            .await
            .expect("serves until SIGTERM");
        return;
    }
    use std::io::BufRead as _;
    let mut child = child::rerun(
        "drain::sigterm_finishes_the_request_in_flight_and_exits_0",
        CHILD,
    );
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let addr: SocketAddr = loop {
        let mut line = String::new();
        assert_ne!(
            stdout.read_line(&mut line).expect("read"),
            0,
            "the child ended"
        );
        if let Some(addr) = line.trim().strip_prefix("listening on ") {
            break addr.parse().expect("an address");
        }
    };
    let server = TestServer::at(addr);
    let call = server.post_modern(
        "tools/call",
        json!({"name": "wait", "arguments": {"ms": 1500}}),
    );
    let in_flight = tokio::spawn(call.send());
    tokio::time::sleep(Duration::from_millis(300)).await;
    child::terminate(&child);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        probe(&server, "/readyz").await.0,
        StatusCode::SERVICE_UNAVAILABLE
    );
    let answered = in_flight.await.expect("the call");
    assert_eq!(answered.status, StatusCode::OK);
    assert_eq!(first_text(&answered.json().await["result"]), "done");
    let status = child::exit_status(&mut child, Duration::from_secs(10));
    assert!(status.success(), "the child exited with {status}");
}
