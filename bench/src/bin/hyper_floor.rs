//! The floor under any MCP server on hyper: bare hyper 1 (HTTP/1.1, TCP_NODELAY) doing the least
//! work that still answers the driver's requests correctly: the stateless call (`phantom-bench
//! load call $URL <conns> <secs> none 2026-07-28`), and for `phantom-bench instructions` also the
//! legacy call on a shared session and the read of `users://42/profile`. It reads each body
//! whole, finds the JSON-RPC id's bytes and the method by looking at what follows each quote, and
//! copies the id into a fixed result for that method, sent as `application/json`: no JSON
//! parsing, no routing, no header checks, no sessions (`initialize` gets a fixed
//! `Mcp-Session-Id`, a notification 202). A server's CPU per request divided by this one's is its
//! overhead over hyper.
//!
//! Written for this bench after the behaviour documented for the bench kit's `hyper-floor`, so
//! that the bench builds from a clone of this repository alone.
//!
//! | env | values | default | effect |
//! |---|---|---|---|
//! | `ADDR` | `host:port` | `127.0.0.1:8942` | listen address |

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

/// The reply around the id: a complete 2026-07-28 `CallToolResult` with one text block.
const BEFORE_ID: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
const AFTER_ID: &[u8] = br#","result":{"content":[{"type":"text","text":"hello"}],"isError":false,"resultType":"complete"}}"#;
/// After the id of an `initialize`: a 2025-11-25 `InitializeResult`.
const AFTER_INITIALIZE: &[u8] = br#","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"hyper-floor","version":"0.1.0"}}}"#;
/// After the id of a `resources/read`: the bench's read of `users://42/profile`.
const AFTER_READ: &[u8] = br#","result":{"contents":[{"uri":"users://42/profile","mimeType":"text/plain","text":"profile of 42"}],"resultType":"complete"}}"#;

/// The raw bytes of the first `"id":` member's value (the driver sends a number) and of the
/// first `"method":"…"` string, found by looking at what follows each quote.
fn head(body: &[u8]) -> (Option<&[u8]>, &[u8]) {
    let (mut id, mut method) = (None, None);
    let mut rest = body;
    while let Some(quote) = rest.iter().position(|&b| b == b'"') {
        rest = &rest[quote + 1..];
        if let Some(value) = rest.strip_prefix(b"id\":") {
            let end = value
                .iter()
                .position(|&b| b == b',' || b == b'}')
                .unwrap_or(value.len());
            id = Some(value[..end].trim_ascii());
        } else if let Some(value) = rest.strip_prefix(b"method\":\"") {
            let end = value.iter().position(|&b| b == b'"').unwrap_or(value.len());
            method = Some(&value[..end]);
        }
        if let (Some(id), Some(method)) = (id, method) {
            return (Some(id), method);
        }
    }
    (id, method.unwrap_or_default())
}

async fn answer(req: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = req
        .into_body()
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
        .unwrap_or_default();
    let (Some(id), method) = head(&body) else {
        let mut resp = Response::new(Full::new(Bytes::new()));
        *resp.status_mut() = StatusCode::ACCEPTED;
        return Ok(resp);
    };
    let after = match method {
        b"initialize" => AFTER_INITIALIZE,
        b"resources/read" => AFTER_READ,
        _ => AFTER_ID,
    };
    let mut out = Vec::with_capacity(BEFORE_ID.len() + id.len() + after.len());
    out.extend_from_slice(BEFORE_ID);
    out.extend_from_slice(id);
    out.extend_from_slice(after);
    let mut resp = Response::new(Full::new(Bytes::from(out)));
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if method == b"initialize" {
        resp.headers_mut()
            .insert("mcp-session-id", HeaderValue::from_static("floor"));
    }
    Ok(resp)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:8942".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("hyper-floor listening on http://{addr}/mcp");
    loop {
        let tcp = match listener.accept().await {
            Ok((tcp, _)) => tcp,
            Err(e) => {
                eprintln!("accept: {e}");
                continue;
            }
        };
        if let Err(e) = tcp.set_nodelay(true) {
            eprintln!("TCP_NODELAY: {e}");
        }
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(tcp), service_fn(answer))
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::head;

    #[test]
    fn finds_the_id_and_the_method() {
        assert_eq!(
            head(br#"{"jsonrpc":"2.0","id":42,"method":"tools/call"}"#),
            (Some(&b"42"[..]), &b"tools/call"[..])
        );
        assert_eq!(head(br#"{"id": 7 }"#), (Some(&b"7"[..]), &b""[..]));
        assert_eq!(
            head(br#"{"jsonrpc":"2.0","method":"x"}"#),
            (None, &b"x"[..])
        );
        // A key ending in `id` is not the id.
        assert_eq!(head(br#"{"xid":1,"id":2}"#).0, Some(&b"2"[..]));
    }
}
