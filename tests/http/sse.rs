//! SSE responses (`ResponseMode::Sse`), GET streams, keep-alive and `Last-Event-ID` resumption.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::stream::BoxStream;
use http::{Method, StatusCode};
use phantom::BoxFuture;
use phantom::http::{HttpConfig, ResponseMode};
use phantom::store::{EventStore, MemoryEventStore, Replay, StoreError, StoredEvent};
use serde_json::json;

use crate::support::{LEGACY, Lab, TestServer, echo_call, first_text, initialize_request, request};

fn sse_config() -> HttpConfig {
    HttpConfig::default().with_response_mode(ResponseMode::Sse)
}

#[tokio::test]
async fn sse_mode_primes_2025_11_25_streams_then_sends_the_response() {
    let server = TestServer::start(sse_config()).await;
    let reply = server.post(&initialize_request(LEGACY)).send().await;
    let session = reply
        .session_id()
        .expect("Mcp-Session-Id on the SSE response");
    assert_eq!(reply.header("cache-control"), Some("no-cache"));
    let events = reply.sse().rest().await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(
        events[0].is_priming(),
        "priming event first: {:?}",
        events[0]
    );
    assert_eq!(events[0].retry, Some(1000));
    let init = events[1].json();
    assert_eq!(init["id"], 0);
    assert_eq!(init["result"]["protocolVersion"], LEGACY);
    assert!(
        events[1].id.is_some(),
        "the response is resumable, so it has an id"
    );
    assert_ne!(events[0].id, events[1].id);

    let reply = server.post_in(&session, &echo_call(5, "sse")).send().await;
    assert_eq!(reply.session_id().as_deref(), Some(session.as_str()));
    let events = reply.sse().rest().await;
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events[0].is_priming());
    let body = events[1].json();
    assert_eq!(body["id"], 5);
    assert_eq!(first_text(&body["result"]), "echo: sse");
}

#[tokio::test]
async fn sse_mode_does_not_prime_a_2025_03_26_session() {
    let server = TestServer::start(sse_config()).await;
    let reply = server.post(&initialize_request("2025-03-26")).send().await;
    let session = reply.session_id().expect("Mcp-Session-Id");
    let events = reply.sse().rest().await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].json()["result"]["protocolVersion"], "2025-03-26");

    let events = server
        .post_in(&session, &echo_call(2, "old"))
        .send()
        .await
        .sse()
        .rest()
        .await;
    assert_eq!(
        events.len(),
        1,
        "no priming event for 2025-03-26: {events:?}"
    );
    assert!(events.iter().all(|e| e.data.as_deref() != Some("")));
    assert_eq!(first_text(&events[0].json()["result"]), "echo: old");
}

#[tokio::test]
async fn sse_mode_still_answers_errors_with_a_json_status() {
    let server = TestServer::start(sse_config()).await;
    server
        .post(&request(1, "tools/list", json!({})))
        .send()
        .await
        .expect_error(StatusCode::BAD_REQUEST, -32600)
        .await;
}

#[tokio::test]
async fn a_dropped_post_stream_resumes_with_get_and_last_event_id() {
    let server = TestServer::start(sse_config()).await;
    let session = server.initialize(LEGACY).await;

    let mut stream = server
        .post_in(&session, &echo_call(11, "resume me"))
        .send()
        .await
        .sse();
    let priming = stream.next().await.expect("a priming event");
    assert!(priming.is_priming(), "{priming:?}");
    let last = priming.id.expect("an event id");
    drop(stream);

    let reply = server
        .request(Method::GET)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("last-event-id", &last)
        .send()
        .await;
    let events = reply.sse().rest().await;
    let responses: Vec<_> = events
        .iter()
        .filter(|e| e.data.as_deref().is_some_and(|d| !d.is_empty()))
        .collect();
    assert_eq!(
        responses.len(),
        1,
        "exactly the missed response is replayed: {events:?}"
    );
    let body = responses[0].json();
    assert_eq!(body["id"], 11);
    assert_eq!(first_text(&body["result"]), "echo: resume me");
    assert_ne!(responses[0].id.as_deref(), Some(last.as_str()));
}

#[tokio::test]
async fn resuming_after_the_last_event_replays_nothing() {
    let server = TestServer::start(sse_config()).await;
    let session = server.initialize(LEGACY).await;
    let events = server
        .post_in(&session, &echo_call(1, "x"))
        .send()
        .await
        .sse()
        .rest()
        .await;
    let last = events
        .last()
        .and_then(|e| e.id.clone())
        .expect("the response has an id");
    let events = server
        .request(Method::GET)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("last-event-id", &last)
        .send()
        .await
        .sse()
        .rest()
        .await;
    assert!(events.is_empty(), "{events:?}");
}

#[tokio::test]
async fn events_of_one_session_do_not_replay_in_another() {
    let server = TestServer::start(sse_config()).await;
    let a = server.initialize(LEGACY).await;
    let b = server.initialize(LEGACY).await;
    let mut stream = server
        .post_in(&a, &echo_call(1, "secret"))
        .send()
        .await
        .sse();
    let last = stream
        .next()
        .await
        .and_then(|e| e.id)
        .expect("a priming id");
    drop(stream);

    let reply = server
        .request(Method::GET)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &b)
        .header("last-event-id", &last)
        .send()
        .await;
    let mut stream = reply.sse();
    // Session b gets its own fresh GET stream: a priming event, never a's response.
    let first = stream.next().await.expect("a priming event");
    assert!(first.is_priming(), "{first:?}");
    assert!(
        first.id.as_deref().is_some_and(|id| id.starts_with('g')),
        "{first:?}"
    );
}

#[tokio::test]
async fn get_opens_a_primed_stream_with_keep_alive_comments() {
    let config = HttpConfig::default().with_sse_keep_alive(Duration::from_millis(100));
    let server = TestServer::start(config).await;
    let session = server.initialize(LEGACY).await;
    let reply = server
        .request(Method::GET)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await;
    assert_eq!(reply.header("x-accel-buffering"), Some("no"));
    let mut stream = reply.sse();
    let priming = stream.next().await.expect("a priming event");
    assert!(priming.is_priming(), "{priming:?}");
    let started = tokio::time::Instant::now();
    for _ in 0..2 {
        let block = stream.next().await.expect("a keep-alive");
        assert_eq!(block.comments, vec!["keep-alive".to_owned()], "{block:?}");
        assert_eq!(block.data, None);
    }
    assert!(
        started.elapsed() >= Duration::from_millis(100),
        "keep-alives are paced"
    );
}

#[tokio::test]
async fn a_second_get_stream_on_one_session_is_409_until_the_first_closes() {
    // Keep-alives make the server write, so it notices a closed stream promptly.
    let config = HttpConfig::default().with_sse_keep_alive(Duration::from_millis(100));
    let server = TestServer::start(config).await;
    let session = server.initialize(LEGACY).await;
    let get = || {
        server
            .request(Method::GET)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
    };
    let mut first = get().send().await.sse();
    assert!(first.next().await.expect("priming").is_priming());

    get()
        .send()
        .await
        .expect_error(StatusCode::CONFLICT, -32600)
        .await;

    // POSTs still work while the GET stream is open.
    let reply = server.post_in(&session, &echo_call(1, "busy")).send().await;
    assert_eq!(reply.status, StatusCode::OK);

    drop(first);
    // The server notices the closed connection on its next write or poll; retry briefly.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let reply = get().send().await;
        if reply.status == StatusCode::OK {
            break;
        }
        assert_eq!(reply.status, StatusCode::CONFLICT);
        assert!(
            tokio::time::Instant::now() < deadline,
            "the first stream was never released"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_open_get_stream_keeps_its_session_alive_past_the_ttl() {
    let config = HttpConfig::default()
        .with_sessions(10, Duration::from_millis(200))
        .with_sse_keep_alive(Duration::from_millis(100));
    let server = TestServer::start(config).await;
    let session = server.initialize(LEGACY).await;
    let _stream = server.get_stream(&session).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let reply = server
        .post_in(&session, &echo_call(1, "alive"))
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}

/// A [`MemoryEventStore`] that records which sessions were forgotten.
#[derive(Default)]
pub(crate) struct RecordingStore {
    inner: MemoryEventStore,
    pub(crate) forgotten: Mutex<Vec<String>>,
}

impl EventStore for RecordingStore {
    fn append<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        data: &'a str,
    ) -> BoxFuture<'a, Result<String, StoreError>> {
        self.inner.append(session, stream, data)
    }

    fn replay<'a>(
        &'a self,
        session: &'a str,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Replay>, StoreError>> {
        self.inner.replay(session, last_event_id)
    }

    fn follow(
        &self,
        session: &str,
        stream: &str,
        last_event_id: &str,
    ) -> BoxStream<'static, Result<StoredEvent, StoreError>> {
        self.inner.follow(session, stream, last_event_id)
    }

    fn forget<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.forgotten
            .lock()
            .expect("forget log")
            .push(session.to_owned());
        self.inner.forget(session)
    }
}

#[tokio::test]
async fn stored_events_are_forgotten_on_delete_and_on_eviction() {
    let store = Arc::new(RecordingStore::default());
    let config =
        phantom::Config::default().with_event_store(Arc::clone(&store) as Arc<dyn EventStore>);
    let http = sse_config().with_sessions(1, Duration::from_millis(200));
    let server = TestServer::start_configured(Lab::default(), config, http).await;

    let deleted = server.initialize(LEGACY).await;
    let reply = server
        .request(Method::DELETE)
        .header("mcp-session-id", &deleted)
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(*store.forgotten.lock().unwrap(), vec![deleted.clone()]);

    // Evicted on lookup.
    let idle = server.initialize(LEGACY).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    server
        .post_in(&idle, &echo_call(1, "late"))
        .send()
        .await
        .expect_error(StatusCode::NOT_FOUND, -32001)
        .await;
    assert!(
        store.forgotten.lock().unwrap().contains(&idle),
        "the idle session's events are dropped"
    );

    // Evicted by the sweep that makes room when the table is full.
    let swept = server.initialize(LEGACY).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    server.initialize(LEGACY).await;
    assert!(
        store.forgotten.lock().unwrap().contains(&swept),
        "swept sessions' events are dropped"
    );
}
