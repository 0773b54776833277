//! The live callbacks over HTTP, as the contract says: a legacy session belongs to the principal
//! that opened it; `disconnect` runs when a request or a stream ends; a failing `terminate` is
//! visible (204) and the session is forgotten either way.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{Method, StatusCode};
use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::json;

use crate::support::{
    LEGACY, TestServer, initialize_request, modern_request, notification, request,
};

/// Bearer `reader` may only search; bearer `admin` sees everything; no token is 401.
#[derive(Clone, Default)]
struct Library {
    disconnects: Arc<AtomicUsize>,
    terminated: Arc<Mutex<Vec<String>>>,
    failing_terminate: bool,
}

#[mcp_router(name = "library", version = "1.0.0")]
impl Library {
    /// Search.
    #[tool]
    async fn search(&self, session: &Session) -> String {
        format!(
            "searched as {}",
            session.principal.as_deref().unwrap_or("nobody")
        )
    }

    /// Delete everything.
    #[tool]
    async fn purge(&self) -> String {
        "purged".into()
    }

    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        match request.bearer() {
            Some("reader") => {
                session.principal = Some("reader".into());
                session.allowed_tools = Session::allow(["search"]);
            }
            Some("admin") => {
                session.principal = Some("admin".into());
                session.allowed_tools = None;
            }
            _ => return Connect::Unauthorized(WwwAuthenticate::bearer()),
        }
        Connect::Ok
    }

    async fn disconnect(&self, _session: &Session) {
        self.disconnects.fetch_add(1, Ordering::SeqCst);
    }

    async fn terminate(&self, session: &Session) -> Result<(), Error> {
        let id = session.id.as_deref().unwrap_or_default().to_owned();
        self.terminated.lock().expect("log").push(id);
        if self.failing_terminate {
            return Err(Error::internal("the archive is read-only"));
        }
        Ok(())
    }
}

async fn open(server: &TestServer, token: &str) -> String {
    let reply = server
        .post(&initialize_request(LEGACY))
        .header("authorization", &format!("Bearer {token}"))
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    reply.session_id().expect("a session id")
}

fn tool_names(list: &serde_json::Value) -> Vec<&str> {
    list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn a_session_belongs_to_the_principal_that_opened_it() {
    let server = TestServer::start_with(Library::default(), HttpConfig::default()).await;
    let session = open(&server, "reader").await;
    let list = request(2, "tools/list", json!({}));

    // Another principal's token on the reader's session: as if the session did not exist.
    let reply = server
        .post_in(&session, &list)
        .header("authorization", "Bearer admin")
        .send()
        .await;
    reply.expect_error(StatusCode::NOT_FOUND, -32001).await;
    for method in [Method::GET, Method::DELETE] {
        let reply = server
            .request(method.clone())
            .header("mcp-session-id", &session)
            .header("accept", "text/event-stream")
            .header("authorization", "Bearer admin")
            .send()
            .await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method}");
    }

    // The reader still sees exactly what the reader may see: nothing the admin's request
    // decided was kept.
    let reply = server
        .post_in(&session, &list)
        .header("authorization", "Bearer reader")
        .send()
        .await
        .json()
        .await;
    assert_eq!(tool_names(&reply), ["search"]);
    let call = request(3, "tools/call", json!({"name": "search", "arguments": {}}));
    let reply = server
        .post_in(&session, &call)
        .header("authorization", "Bearer reader")
        .send()
        .await
        .json()
        .await;
    assert_eq!(reply["result"]["content"][0]["text"], "searched as reader");

    // A session of the admin sees everything.
    let admin = open(&server, "admin").await;
    let reply = server
        .post_in(&admin, &list)
        .header("authorization", "Bearer admin")
        .send()
        .await
        .json()
        .await;
    assert_eq!(tool_names(&reply), ["search", "purge"]);
}

#[tokio::test]
async fn connect_rejects_notifications_without_credentials() {
    let server = TestServer::start_with(Library::default(), HttpConfig::default()).await;
    let session = open(&server, "reader").await;
    let reply = server
        .post_in(&session, &notification("notifications/initialized"))
        .send()
        .await;
    assert!(reply.header("www-authenticate").is_some());
    reply.expect_error(StatusCode::UNAUTHORIZED, -32001).await;
    let response = json!({"jsonrpc": "2.0", "id": 9, "result": {}});
    let reply = server.post_in(&session, &response).send().await;
    reply.expect_error(StatusCode::UNAUTHORIZED, -32001).await;
    // With credentials `connect` lets it through; then, as no request waits for id 9, it is
    // refused as an unsolicited response.
    let reply = server
        .post_in(&session, &response)
        .header("authorization", "Bearer reader")
        .send()
        .await;
    reply.expect_error(StatusCode::BAD_REQUEST, -32600).await;
}

#[tokio::test]
async fn disconnect_runs_when_a_request_or_a_stream_ends() {
    let library = Library::default();
    let count = Arc::clone(&library.disconnects);
    let server = TestServer::start_with(library, HttpConfig::default()).await;
    let session = open(&server, "reader").await;
    assert_eq!(
        count.load(Ordering::SeqCst),
        0,
        "initialize opens, it does not end"
    );

    let call = request(2, "tools/call", json!({"name": "search", "arguments": {}}));
    let reply = server
        .post_in(&session, &call)
        .header("authorization", "Bearer reader")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(count.load(Ordering::SeqCst), 1, "a legacy request ended");

    let modern = server
        .post(&modern_request(3, "tools/list", json!({})))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .header("authorization", "Bearer admin")
        .send()
        .await;
    assert_eq!(modern.status, StatusCode::OK);
    assert_eq!(
        count.load(Ordering::SeqCst),
        2,
        "a 2026-07-28 request ended"
    );

    let stream = server
        .request(Method::GET)
        .header("mcp-session-id", &session)
        .header("accept", "text/event-stream")
        .header("authorization", "Bearer reader")
        .send()
        .await;
    assert_eq!(stream.status, StatusCode::OK);
    drop(stream);
    let mut waited = Duration::ZERO;
    while count.load(Ordering::SeqCst) < 3 && waited < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += Duration::from_millis(20);
    }
    assert_eq!(count.load(Ordering::SeqCst), 3, "the GET stream ended");
}

#[tokio::test]
async fn a_failing_terminate_answers_204_and_the_session_is_gone() {
    let library = Library {
        failing_terminate: true,
        ..Library::default()
    };
    let terminated = Arc::clone(&library.terminated);
    let server = TestServer::start_with(library, HttpConfig::default()).await;
    let session = open(&server, "reader").await;
    let reply = server
        .request(Method::DELETE)
        .header("mcp-session-id", &session)
        .header("authorization", "Bearer reader")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    assert_eq!(
        *terminated.lock().expect("log"),
        std::slice::from_ref(&session)
    );
    let list = request(2, "tools/list", json!({}));
    let reply = server
        .post_in(&session, &list)
        .header("authorization", "Bearer reader")
        .send()
        .await;
    reply.expect_error(StatusCode::NOT_FOUND, -32001).await;

    let working = TestServer::start_with(Library::default(), HttpConfig::default()).await;
    let session = open(&working, "admin").await;
    let reply = working
        .request(Method::DELETE)
        .header("mcp-session-id", &session)
        .header("authorization", "Bearer admin")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}
