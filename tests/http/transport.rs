//! Transport-level rejections (405, 406, 413, 415), DNS-rebinding protection (403), CORS, and
//! `connect` answering 401 and 403.

use bytes::Bytes;
use http::{Method, StatusCode};
use phantom::http::HttpConfig;
use serde_json::json;

use crate::support::{
    LEGACY, TestServer, challenge, echo_call, initialize_request, modern_request, request,
};

#[tokio::test]
async fn get_and_delete_without_a_session_are_405() {
    let server = TestServer::start(HttpConfig::default()).await;
    for method in [Method::GET, Method::DELETE] {
        let reply = server
            .request(method.clone())
            .header("accept", "text/event-stream")
            .send()
            .await;
        assert_eq!(reply.header("allow"), Some("POST"), "{method}");
        reply
            .expect_error(StatusCode::METHOD_NOT_ALLOWED, -32600)
            .await;
    }
}

#[tokio::test]
async fn other_methods_are_405() {
    let server = TestServer::start(HttpConfig::default()).await;
    for method in [Method::PUT, Method::PATCH] {
        let reply = server
            .request(method.clone())
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await;
        assert_eq!(
            reply.header("allow"),
            Some("GET, POST, DELETE, OPTIONS"),
            "{method}"
        );
        reply
            .expect_error(StatusCode::METHOD_NOT_ALLOWED, -32600)
            .await;
    }
}

#[tokio::test]
async fn post_must_accept_json_and_event_stream() {
    let server = TestServer::start(HttpConfig::default()).await;
    for accept in [
        None,
        Some("application/json"),
        Some("text/event-stream"),
        Some("text/html"),
    ] {
        let call = server
            .post(&initialize_request(LEGACY))
            .set_header("accept", accept);
        let reply = call.send().await;
        assert!(reply.session_id().is_none());
        reply.expect_error(StatusCode::NOT_ACCEPTABLE, -32600).await;
    }
    // Wildcards and parameters count.
    for accept in [
        "*/*",
        "application/*, text/*",
        "application/json;q=0.9, text/event-stream;q=1",
    ] {
        let reply = server
            .post(&initialize_request(LEGACY))
            .set_header("accept", Some(accept))
            .send()
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{accept}");
    }
    // Two Accept lines are one list.
    let reply = server
        .post(&initialize_request(LEGACY))
        .set_header("accept", Some("application/json"))
        .header("accept", "text/event-stream")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}

#[tokio::test]
async fn get_must_accept_event_stream() {
    let server = TestServer::start(HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let reply = server
        .request(Method::GET)
        .header("accept", "application/json")
        .header("mcp-session-id", &session)
        .send()
        .await;
    reply.expect_error(StatusCode::NOT_ACCEPTABLE, -32600).await;
}

#[tokio::test]
async fn a_body_that_is_not_json_is_415() {
    let server = TestServer::start(HttpConfig::default()).await;
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        let call = server
            .post(&initialize_request(LEGACY))
            .set_header("content-type", content_type);
        call.send()
            .await
            .expect_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, -32600)
            .await;
    }
    let charset = server
        .post(&initialize_request(LEGACY))
        .set_header("content-type", Some("application/json; charset=utf-8"));
    assert_eq!(charset.send().await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_body_over_the_limit_is_413() {
    let server = TestServer::start(HttpConfig::default().with_body_limit(256)).await;
    let big = echo_call(1, &"x".repeat(300));
    let error = server
        .post(&big)
        .send()
        .await
        .expect_error(StatusCode::PAYLOAD_TOO_LARGE, -32600)
        .await;
    assert!(
        error["message"].as_str().unwrap().contains("256"),
        "{error}"
    );

    // Just under the limit passes the transport (and fails later, for want of a session).
    let small = request(1, "tools/list", json!({}));
    assert!(small.to_string().len() < 256);
    let reply = server.post(&small).send().await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_chunked_body_over_the_limit_is_413() {
    let server = TestServer::start(HttpConfig::default().with_body_limit(256)).await;
    let text = echo_call(1, &"y".repeat(400)).to_string();
    let chunks: Vec<Bytes> = text
        .as_bytes()
        .chunks(100)
        .map(Bytes::copy_from_slice)
        .collect();
    let reply = server
        .request(Method::POST)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .chunked_body(chunks)
        .send()
        .await;
    reply
        .expect_error(StatusCode::PAYLOAD_TOO_LARGE, -32600)
        .await;

    // A chunked body under the limit is read normally.
    let text = initialize_request(LEGACY).to_string();
    let chunks: Vec<Bytes> = text
        .as_bytes()
        .chunks(16)
        .map(Bytes::copy_from_slice)
        .collect();
    let reply = server
        .request(Method::POST)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .chunked_body(chunks)
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.session_id().is_some());
}

#[tokio::test]
async fn dns_rebinding_a_foreign_host_is_403() {
    let server = TestServer::start(HttpConfig::default()).await;
    let error = server
        .post(&initialize_request(LEGACY))
        .set_header("host", Some("evil.example.com"))
        .send()
        .await
        .expect_error(StatusCode::FORBIDDEN, -32600)
        .await;
    assert!(
        error["message"].as_str().unwrap().contains("Host"),
        "{error}"
    );
    let with_port = server
        .post(&initialize_request(LEGACY))
        .set_header("host", Some("evil.example.com:80"))
        .send()
        .await;
    assert_eq!(with_port.status, StatusCode::FORBIDDEN);
    // Every method is guarded, not just POST.
    let get = server
        .request(Method::GET)
        .set_header("host", Some("evil.example.com"))
        .header("accept", "text/event-stream")
        .header("mcp-session-id", "x")
        .send()
        .await;
    assert_eq!(get.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn dns_rebinding_a_foreign_origin_is_403() {
    let server = TestServer::start(HttpConfig::default()).await;
    for origin in [
        "http://evil.example.com",
        "https://evil.example.com:3000",
        "null",
    ] {
        let error = server
            .post(&initialize_request(LEGACY))
            .header("origin", origin)
            .send()
            .await
            .expect_error(StatusCode::FORBIDDEN, -32600)
            .await;
        assert!(
            error["message"].as_str().unwrap().contains("Origin"),
            "{origin}: {error}"
        );
    }
}

#[tokio::test]
async fn loopback_hosts_and_origins_pass() {
    let server = TestServer::start(HttpConfig::default()).await;
    let port = server.addr.port();
    for (host, origin) in [
        (
            format!("localhost:{port}"),
            "http://localhost:3000".to_owned(),
        ),
        (
            format!("127.0.0.1:{port}"),
            format!("http://127.0.0.1:{port}"),
        ),
        ("LOCALHOST".to_owned(), "http://[::1]:8080".to_owned()),
        (format!("[::1]:{port}"), "http://localhost".to_owned()),
    ] {
        let reply = server
            .post(&initialize_request(LEGACY))
            .set_header("host", Some(&host))
            .header("origin", &origin)
            .send()
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{host} / {origin}");
        assert!(reply.session_id().is_some());
    }
}

#[tokio::test]
async fn configured_hosts_and_origins_are_allowed() {
    let config = HttpConfig::default()
        .with_allowed_hosts(["mcp.example.com"])
        .with_allowed_origins(["https://app.example.com"]);
    let server = TestServer::start(config).await;
    let ok = server
        .post(&initialize_request(LEGACY))
        .set_header("host", Some("mcp.example.com"))
        .header("origin", "https://app.example.com")
        .send()
        .await;
    assert_eq!(ok.status, StatusCode::OK);
    let loopback = server.post(&initialize_request(LEGACY)).send().await;
    assert_eq!(
        loopback.status,
        StatusCode::FORBIDDEN,
        "only the listed hosts"
    );
}

#[tokio::test]
async fn cors_preflight_echoes_allowed_origins_only() {
    let server = TestServer::start(HttpConfig::default()).await;
    let preflight = |origin: &str| {
        server
            .request(Method::OPTIONS)
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "content-type, mcp-session-id, mcp-protocol-version",
            )
            .send()
    };
    let reply = preflight("http://localhost:3000").await;
    assert!(reply.status.is_success(), "{}", reply.status);
    assert_eq!(
        reply.header("access-control-allow-origin"),
        Some("http://localhost:3000")
    );
    let methods = reply
        .header("access-control-allow-methods")
        .expect("allowed methods");
    for m in ["GET", "POST", "DELETE"] {
        assert!(methods.contains(m), "{methods}");
    }
    let headers = reply
        .header("access-control-allow-headers")
        .expect("allowed headers")
        .to_ascii_lowercase();
    assert!(headers.contains("mcp-session-id"), "{headers}");

    let reply = preflight("http://evil.example.com").await;
    assert_eq!(reply.header("access-control-allow-origin"), None);

    // A real cross-origin POST exposes the session header to the page.
    let reply = server
        .post(&initialize_request(LEGACY))
        .header("origin", "http://localhost:3000")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.header("access-control-allow-origin"),
        Some("http://localhost:3000")
    );
    let exposed = reply
        .header("access-control-expose-headers")
        .expect("exposed headers")
        .to_ascii_lowercase();
    assert!(exposed.contains("mcp-session-id"), "{exposed}");
}

#[tokio::test]
async fn connect_unauthorized_is_401_with_www_authenticate() {
    let server = TestServer::start(HttpConfig::default()).await;
    let reply = server
        .post(&initialize_request(LEGACY))
        .header("x-role", "anonymous")
        .send()
        .await;
    assert_eq!(
        reply.header("www-authenticate"),
        Some(challenge().to_string().as_str())
    );
    assert!(
        reply.session_id().is_none(),
        "a rejected initialize creates no session"
    );
    let error = reply.expect_error(StatusCode::UNAUTHORIZED, -32001).await;
    assert_eq!(error["message"], "Unauthorized");

    let modern = server
        .post_modern("tools/list", json!({}))
        .header("x-role", "anonymous")
        .send()
        .await;
    assert_eq!(
        modern.header("www-authenticate"),
        Some(challenge().to_string().as_str())
    );
    modern.expect_error(StatusCode::UNAUTHORIZED, -32001).await;

    // On an established session, a request whose credentials lapsed is refused the same way.
    let session = server.initialize(LEGACY).await;
    let reply = server
        .post_in(&session, &echo_call(1, "x"))
        .header("x-role", "anonymous")
        .send()
        .await;
    assert_eq!(
        reply.header("www-authenticate"),
        Some(challenge().to_string().as_str())
    );
    reply.expect_error(StatusCode::UNAUTHORIZED, -32001).await;
    let get = server
        .request(Method::GET)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("x-role", "anonymous")
        .send()
        .await;
    assert_eq!(
        get.header("www-authenticate"),
        Some(challenge().to_string().as_str())
    );
    get.expect_error(StatusCode::UNAUTHORIZED, -32001).await;
}

#[tokio::test]
async fn connect_forbidden_is_403() {
    let server = TestServer::start(HttpConfig::default()).await;
    let reply = server
        .post(&initialize_request(LEGACY))
        .header("x-role", "banned")
        .send()
        .await;
    assert!(reply.session_id().is_none());
    let error = reply.expect_error(StatusCode::FORBIDDEN, -32001).await;
    assert_eq!(error["message"], "banned from the lab");

    let modern = server.post(&modern_request(2, "server/discover", json!({})));
    let reply = modern
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "server/discover")
        .header("x-role", "banned")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let body = reply.json().await;
    assert_eq!(body["id"], 2);
    assert_eq!(body["error"]["message"], "banned from the lab");

    // DELETE runs `connect` too: a banned client cannot end someone's session.
    let session = server.initialize(LEGACY).await;
    let reply = server
        .request(Method::DELETE)
        .header("mcp-session-id", &session)
        .header("x-role", "banned")
        .send()
        .await;
    reply.expect_error(StatusCode::FORBIDDEN, -32001).await;
    let reply = server
        .post_in(&session, &echo_call(1, "still"))
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
}
