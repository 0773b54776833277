//! Limits a client can see, over raw TCP where the test must control every byte: the `413` a
//! client that writes its whole body still reads, `408` for a slow body, the header timeout
//! against half-sent requests (slowloris), and the caps on sessions, requests in flight and
//! streams, each refused with a status, a JSON-RPC code and `Retry-After`.

use std::time::{Duration, Instant};

use http::{Method, StatusCode};
use phantom::http::HttpConfig;
use phantom_tests::slow::Slow;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::support::{LEGACY, MODERN, STEP, TestServer, echo_call, request};

/// A raw HTTP/1.1 answer: status, lower-cased headers and body.
struct Raw {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Raw {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

/// Reads one answer with a `Content-Length` from `tcp`.
async fn read_answer(tcp: &mut TcpStream) -> Raw {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(STEP, tcp.read(&mut chunk))
            .await
            .expect("an answer in time")
            .expect("the connection is not reset");
        assert!(n > 0, "the connection closed before an answer");
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8(buf[..head_end].to_vec()).expect("an ASCII head");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(STEP, tcp.read(&mut chunk))
            .await
            .expect("the body in time")
            .expect("the connection is not reset");
        assert!(n > 0, "the connection closed inside the body");
        body.extend_from_slice(&chunk[..n]);
    }
    Raw {
        status,
        headers,
        body,
    }
}

/// Whether the server closes `tcp` within `within` (EOF or reset), reading and ignoring bytes.
async fn closed_within(tcp: &mut TcpStream, within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    let mut chunk = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, tcp.read(&mut chunk)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

fn post_head(server: &TestServer, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{extra}\r\n",
        server.addr
    )
}

async fn healthy(server: &TestServer) {
    let session = server.initialize(LEGACY).await;
    let reply = server
        .post_in(&session, &echo_call(1, "alive"))
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}

#[tokio::test]
async fn a_client_that_writes_its_whole_oversized_body_reads_the_413_and_keeps_its_connection() {
    let server = TestServer::start(HttpConfig::default()).await;
    let size = 12 * 1024 * 1024;
    let mut tcp = TcpStream::connect(server.addr).await.expect("connect");
    let head = post_head(&server, &format!("Content-Length: {size}\r\n"));
    tcp.write_all(head.as_bytes()).await.expect("the head");
    // The whole body is written before anything is read, as a simple client does.
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..12 {
        tcp.write_all(&chunk)
            .await
            .expect("the server reads the whole body instead of resetting");
    }
    let answer = read_answer(&mut tcp).await;
    assert_eq!(answer.status, 413);
    assert_eq!(answer.json()["error"]["code"], -32600);
    let message = answer.json()["error"]["message"].to_string();
    assert!(message.contains("body_limit"), "{message}");
    assert_eq!(answer.header("connection"), None, "the body was drained");
    // The same connection serves the next request.
    let body = echo_call(1, "x").to_string();
    let next = format!(
        "{}{body}",
        post_head(&server, &format!("Content-Length: {}\r\n", body.len()))
    );
    tcp.write_all(next.as_bytes())
        .await
        .expect("a second request");
    let answer = read_answer(&mut tcp).await;
    assert_eq!(
        answer.status, 400,
        "no session: the request was read and answered"
    );
    healthy(&server).await;
}

#[tokio::test]
async fn a_chunked_oversized_body_is_drained_and_answered_413() {
    let server = TestServer::start(HttpConfig::default()).await;
    let mut tcp = TcpStream::connect(server.addr).await.expect("connect");
    let head = post_head(&server, "Transfer-Encoding: chunked\r\n");
    tcp.write_all(head.as_bytes()).await.expect("the head");
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..6 {
        tcp.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .await
            .expect("a chunk size");
        tcp.write_all(&chunk).await.expect("a chunk");
        tcp.write_all(b"\r\n").await.expect("a chunk end");
    }
    tcp.write_all(b"0\r\n\r\n").await.expect("the last chunk");
    let answer = read_answer(&mut tcp).await;
    assert_eq!(answer.status, 413);
    assert_eq!(answer.json()["error"]["code"], -32600);
}

#[tokio::test]
async fn a_client_waiting_for_100_continue_is_refused_before_it_sends() {
    let server = TestServer::start(HttpConfig::default()).await;
    let mut tcp = TcpStream::connect(server.addr).await.expect("connect");
    let head = post_head(
        &server,
        "Content-Length: 104857600\r\nExpect: 100-continue\r\n",
    );
    tcp.write_all(head.as_bytes()).await.expect("the head");
    let answer = read_answer(&mut tcp).await;
    assert_eq!(
        answer.status, 413,
        "no 100 Continue for a body past the limit"
    );
    assert_eq!(answer.header("connection"), Some("close"));
}

#[tokio::test]
async fn past_the_drain_limit_the_413_says_the_connection_closes() {
    let server = TestServer::start(
        HttpConfig::default()
            .with_body_limit(1024)
            .with_drain_limit(64 * 1024),
    )
    .await;
    let mut tcp = TcpStream::connect(server.addr).await.expect("connect");
    let head = post_head(&server, "Content-Length: 10000000\r\n");
    tcp.write_all(head.as_bytes()).await.expect("the head");
    // Writes what the server drains, then waits for the answer without writing more.
    tcp.write_all(&vec![b' '; 100 * 1024])
        .await
        .expect("the first part");
    let answer = read_answer(&mut tcp).await;
    assert_eq!(answer.status, 413);
    assert_eq!(answer.header("connection"), Some("close"));
    healthy(&server).await;
}

#[tokio::test]
async fn a_body_slower_than_the_body_timeout_is_408() {
    let config = HttpConfig::default()
        .with_read_timeouts(Duration::from_secs(5), Duration::from_millis(300));
    let server = TestServer::start(config).await;
    let mut tcp = TcpStream::connect(server.addr).await.expect("connect");
    let head = post_head(&server, "Content-Length: 100\r\n");
    tcp.write_all(head.as_bytes()).await.expect("the head");
    tcp.write_all(b"{\"jsonrpc\":").await.expect("a first byte");
    let started = Instant::now();
    let answer = read_answer(&mut tcp).await;
    assert_eq!(answer.status, 408);
    assert_eq!(answer.json()["error"]["code"], -32600);
    assert_eq!(answer.header("connection"), Some("close"));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(closed_within(&mut tcp, STEP).await, "closed after the 408");
    healthy(&server).await;
}

#[tokio::test]
async fn half_sent_request_heads_are_dropped_after_the_header_timeout() {
    let config = HttpConfig::default()
        .with_read_timeouts(Duration::from_millis(500), Duration::from_secs(5));
    let server = TestServer::start(config).await;
    let mut held = Vec::new();
    for _ in 0..200 {
        let mut tcp = TcpStream::connect(server.addr).await.expect("connect");
        tcp.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            .await
            .expect("half a head");
        held.push(tcp);
    }
    for (i, tcp) in held.iter_mut().enumerate() {
        assert!(
            closed_within(tcp, Duration::from_secs(5)).await,
            "connection {i} is still held"
        );
    }
    // An idle kept-alive connection is dropped the same way.
    let mut idle = TcpStream::connect(server.addr).await.expect("connect");
    assert!(
        closed_within(&mut idle, Duration::from_secs(5)).await,
        "an idle connection is still held"
    );
    healthy(&server).await;
}

/// A 2026-07-28 `wait` call on a raw connection, with the headers a conforming client sends.
async fn raw_wait(tcp: &mut TcpStream, server: &TestServer, id: u64, ms: u64) {
    let params = json!({"name": "wait", "arguments": {"ms": ms}});
    let body = crate::support::modern_request(id, "tools/call", params).to_string();
    let head = post_head(
        server,
        &format!(
            "Content-Length: {}\r\nMCP-Protocol-Version: {MODERN}\r\nMcp-Method: tools/call\r\nMcp-Name: wait\r\n",
            body.len()
        ),
    );
    tcp.write_all(format!("{head}{body}").as_bytes())
        .await
        .expect("a request");
}

/// Asserts the answer of [`raw_wait`] `id` on `tcp`.
async fn answered(tcp: &mut TcpStream, id: u64) {
    let answer = read_answer(tcp).await;
    assert_eq!(answer.status, 200);
    let reply = answer.json();
    assert_eq!(reply["id"], id, "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "done", "{reply}");
}

#[tokio::test]
async fn the_header_timeout_spares_busy_connections_and_closes_one_that_goes_quiet() {
    let config = HttpConfig::default()
        .with_read_timeouts(Duration::from_millis(400), Duration::from_secs(5));
    let server = TestServer::start_with(Slow, config).await;
    let mut tcp = TcpStream::connect(server.addr).await.expect("connect");
    // Requests every 150 ms for three timeouts: each head comes in time, so none is late.
    let started = Instant::now();
    let mut id = 1;
    while started.elapsed() < Duration::from_millis(1200) {
        raw_wait(&mut tcp, &server, id, 0).await;
        answered(&mut tcp, id).await;
        id += 1;
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    // A request answered after three timeouts: no head is awaited while it runs.
    raw_wait(&mut tcp, &server, id, 1200).await;
    answered(&mut tcp, id).await;
    raw_wait(&mut tcp, &server, id + 1, 0).await;
    answered(&mut tcp, id + 1).await;
    // Half of the next head, then nothing: closed after the timeout, not before.
    let quiet = Instant::now();
    tcp.write_all(b"POST /mcp HTTP/1.1\r\n")
        .await
        .expect("half a head");
    assert!(closed_within(&mut tcp, Duration::from_secs(5)).await);
    let after = quiet.elapsed();
    assert!(
        after >= Duration::from_millis(380),
        "closed after {after:?}"
    );
}

#[tokio::test]
async fn shutting_down_answers_the_request_in_flight_and_closes_idle_connections() {
    let server = TestServer::start_with(Slow, HttpConfig::default()).await;
    let mut idle = TcpStream::connect(server.addr).await.expect("connect");
    raw_wait(&mut idle, &server, 1, 0).await;
    answered(&mut idle, 1).await;
    let mut busy = TcpStream::connect(server.addr).await.expect("connect");
    raw_wait(&mut busy, &server, 2, 800).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let addr = server.addr;
    drop(server);
    assert!(
        closed_within(&mut idle, STEP).await,
        "the idle connection is still open"
    );
    answered(&mut busy, 2).await;
    assert!(
        closed_within(&mut busy, STEP).await,
        "the answered connection is still open"
    );
    assert!(TcpStream::connect(addr).await.is_err(), "still accepting");
}

fn wait_call(id: u64, ms: u64) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": "wait", "arguments": {"ms": ms}}),
    )
}

/// Asserts a cap's refusal: `status`, `Retry-After: 1`, `-32603` and a message naming `field`.
async fn expect_busy(refused: crate::support::Reply, status: StatusCode, field: &str) {
    assert_eq!(refused.header("retry-after"), Some("1"));
    let error = refused.expect_error(status, -32603).await;
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains(field), "{error}");
}

/// Opens two sessions on a server capped at two, sees the third refused, ends one and opens
/// another in its place.
async fn two_sessions_then(config: HttpConfig, status: StatusCode, field: &str) {
    let server = TestServer::start(config).await;
    let _a = server.initialize(LEGACY).await;
    let b = server.initialize(LEGACY).await;
    let third = crate::support::initialize_request(LEGACY);
    expect_busy(server.post(&third).send().await, status, field).await;
    let deleted = server
        .request(Method::DELETE)
        .header("mcp-session-id", &b)
        .send()
        .await;
    assert!(deleted.status.is_success());
    let _c = server.initialize(LEGACY).await;
}

#[tokio::test]
async fn the_session_caps_answer_with_retry_after_and_ending_a_session_frees_its_place() {
    let capped = HttpConfig::default().with_sessions(2, Duration::from_secs(600));
    two_sessions_then(capped, StatusCode::SERVICE_UNAVAILABLE, "max_sessions").await;
    let per_peer = HttpConfig::default().with_max_sessions_per_peer(2);
    two_sessions_then(
        per_peer,
        StatusCode::TOO_MANY_REQUESTS,
        "max_sessions_per_peer",
    )
    .await;
    // Without a per-peer cap one address opens as many as the table holds.
    let open = TestServer::start(HttpConfig::default()).await;
    for _ in 0..5 {
        let _ = open.initialize(LEGACY).await;
    }
}

#[tokio::test]
async fn a_session_past_its_requests_in_flight_gets_429_and_the_rest_complete() {
    let server =
        TestServer::start_with(Slow, HttpConfig::default().with_max_requests_per_session(2)).await;
    let session = server.initialize(LEGACY).await;
    let first = tokio::spawn(server.post_in(&session, &wait_call(1, 1500)).send());
    let second = tokio::spawn(server.post_in(&session, &wait_call(2, 1500)).send());
    tokio::time::sleep(Duration::from_millis(400)).await;
    let refused = server.post_in(&session, &wait_call(3, 0)).send().await;
    expect_busy(
        refused,
        StatusCode::TOO_MANY_REQUESTS,
        "max_requests_per_session",
    )
    .await;
    for call in [first, second] {
        let reply = call.await.expect("the call task");
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.json().await["result"]["content"][0]["text"], "done");
    }
    // Once they ended, the session has room again.
    let again = server.post_in(&session, &wait_call(4, 0)).send().await;
    assert_eq!(again.status, StatusCode::OK);
}

#[tokio::test]
async fn the_stream_cap_answers_503_and_a_closed_stream_frees_its_place() {
    let server = TestServer::start(HttpConfig::default().with_max_streams(1)).await;
    let a = server.initialize(LEGACY).await;
    let b = server.initialize(LEGACY).await;
    let get = |id: &str| {
        server
            .request(Method::GET)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", id)
    };
    let open = get(&a).send().await;
    assert_eq!(open.status, StatusCode::OK);
    let refused = get(&b).send().await;
    expect_busy(refused, StatusCode::SERVICE_UNAVAILABLE, "max_streams").await;
    let listen = server
        .post_modern(
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        )
        .send()
        .await;
    expect_busy(listen, StatusCode::SERVICE_UNAVAILABLE, "max_streams").await;
    drop(open);
    let deadline = Instant::now() + STEP;
    loop {
        let retry = get(&b).send().await;
        if retry.status == StatusCode::OK {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the closed stream's place was never freed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_reader_that_never_reads_holds_up_nobody() {
    let server = TestServer::start(HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    // A 3 MiB answer nobody reads.
    let body = echo_call(1, &"z".repeat(3 * 1024 * 1024)).to_string();
    let mut stalled = TcpStream::connect(server.addr).await.expect("connect");
    let head = post_head(
        &server,
        &format!(
            "Mcp-Session-Id: {session}\r\nContent-Length: {}\r\n",
            body.len()
        ),
    );
    stalled.write_all(head.as_bytes()).await.expect("the head");
    stalled.write_all(body.as_bytes()).await.expect("the body");
    for i in 0..20 {
        let reply = server
            .post_in(&session, &echo_call(i, "meanwhile"))
            .send()
            .await;
        assert_eq!(reply.status, StatusCode::OK);
    }
    drop(stalled);
    healthy(&server).await;
}

#[tokio::test]
async fn idle_sessions_are_swept_in_the_background_without_any_traffic() {
    use std::sync::Arc;

    use phantom::store::EventStore;

    let store = Arc::new(crate::sse::RecordingStore::default());
    let config =
        phantom::Config::default().with_event_store(Arc::clone(&store) as Arc<dyn EventStore>);
    let http = HttpConfig::default().with_sessions(100_000, Duration::from_secs(1));
    let server = TestServer::start_configured(crate::support::Lab::default(), config, http).await;
    let mut opened = Vec::new();
    for _ in 0..300 {
        opened.push(server.initialize(LEGACY).await);
    }
    // No request from here on: only the background sweep can evict the last sessions opened.
    let deadline = Instant::now() + Duration::from_secs(8);
    loop {
        let forgotten = store.forgotten.lock().expect("forget log").clone();
        if opened.iter().all(|id| forgotten.contains(id)) {
            break;
        }
        let left = opened.iter().filter(|id| !forgotten.contains(id)).count();
        assert!(
            Instant::now() < deadline,
            "{left} idle sessions are still in the table"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let reply = server.post_in(&opened[0], &echo_call(1, "x")).send().await;
    assert_eq!(
        reply.status,
        StatusCode::NOT_FOUND,
        "an evicted session is gone"
    );
}
