//! A 2026-07-28 client closing its response stream cancels the handler; protected-resource
//! metadata routes; the `Bearer` extractor.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http::StatusCode;
use phantom::auth::ProtectedResource;
use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{MODERN, TestServer};

#[derive(Clone, Default)]
struct Slow {
    started: Arc<AtomicUsize>,
    finished: Arc<AtomicUsize>,
}

#[mcp_router(name = "slow", version = "1.0.0")]
impl Slow {
    /// Takes a while.
    #[tool]
    async fn slow(&self) -> String {
        self.started.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(800)).await;
        self.finished.fetch_add(1, Ordering::SeqCst);
        "done".into()
    }

    /// Says whose token it got.
    #[tool]
    async fn whoami(&self, token: Bearer) -> String {
        format!("token {}", token.token())
    }
}

fn modern_call(name: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string()
}

fn raw_post(addr: std::net::SocketAddr, body: &str, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: {MODERN}\r\nmcp-method: tools/call\r\nmcp-name: slow\r\n{extra}content-length: {}\r\n\r\n{body}",
        addr.port(),
        body.len()
    )
}

#[tokio::test]
async fn closing_the_connection_cancels_a_modern_handler() {
    let server = Slow::default();
    let srv = TestServer::start_with(server.clone(), HttpConfig::default()).await;

    // Completed call, for contrast: the handler runs to the end.
    let mut done = tokio::net::TcpStream::connect(srv.addr)
        .await
        .expect("connect");
    done.write_all(raw_post(srv.addr, &modern_call("slow"), "connection: close\r\n").as_bytes())
        .await
        .expect("write");
    let mut reply = String::new();
    done.read_to_string(&mut reply).await.expect("read");
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("\"text\":\"done\""), "{reply}");
    assert_eq!(server.finished.load(Ordering::SeqCst), 1);

    // Dropped call: the client goes away while the handler sleeps.
    let mut dropped = tokio::net::TcpStream::connect(srv.addr)
        .await
        .expect("connect");
    dropped
        .write_all(raw_post(srv.addr, &modern_call("slow"), "").as_bytes())
        .await
        .expect("write");
    tokio::time::timeout(Duration::from_secs(5), async {
        while server.started.load(Ordering::SeqCst) < 2 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the second call started");
    drop(dropped);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(server.started.load(Ordering::SeqCst), 2);
    assert_eq!(
        server.finished.load(Ordering::SeqCst),
        1,
        "the dropped call's handler was cancelled"
    );
}

#[tokio::test]
async fn bearer_extractor_reads_the_authorization_header() {
    let srv = TestServer::start_with(Slow::default(), HttpConfig::default()).await;
    let params = json!({"name": "whoami", "arguments": {}});
    let with = srv
        .post_modern("tools/call", params.clone())
        .header("authorization", "Bearer abc.def")
        .send()
        .await;
    assert_eq!(with.status, StatusCode::OK);
    assert_eq!(
        with.json().await["result"]["content"][0]["text"],
        "token abc.def"
    );

    let without = srv.post_modern("tools/call", params).send().await;
    assert_eq!(without.status, StatusCode::OK);
    let body = without.json().await;
    assert_eq!(body["result"]["isError"], true);
    let text = body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(text.contains("Authorization: Bearer"), "{text}");
}

#[tokio::test]
async fn protected_resource_metadata_is_served_at_both_well_known_paths() {
    let metadata =
        ProtectedResource::new("https://mcp.example.com/mcp", "https://auth.example.com")
            .scopes(["studies:read", "studies:write"]);
    let app = phantom::http::protected_resource(&metadata);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let task = tokio::spawn(async move { axum::serve(listener, app).await });
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let req = format!("GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n");
        stream.write_all(req.as_bytes()).await.expect("write");
        let mut reply = String::new();
        stream.read_to_string(&mut reply).await.expect("read");
        assert!(reply.starts_with("HTTP/1.1 200"), "{path}: {reply}");
        assert!(
            reply
                .to_ascii_lowercase()
                .contains("access-control-allow-origin: *"),
            "{reply}"
        );
        let body: Value =
            serde_json::from_str(reply.split("\r\n\r\n").nth(1).unwrap_or_default()).expect("json");
        assert_eq!(body["resource"], "https://mcp.example.com/mcp");
        assert_eq!(
            body["authorization_servers"],
            json!(["https://auth.example.com"])
        );
        assert_eq!(
            body["scopes_supported"],
            json!(["studies:read", "studies:write"])
        );
        assert_eq!(body["bearer_methods_supported"], json!(["header"]));
    }
    task.abort();
}
