//! The floor under any MCP server on hyper: bare hyper 1 (HTTP/1.1, TCP_NODELAY) doing the least
//! work that still answers the driver's stateless call (`phantom-bench load call $URL <conns>
//! <secs> none 2026-07-28`) correctly. It reads each body whole, copies the JSON-RPC id's bytes
//! into a fixed echo result and sends it as `application/json`: no JSON parsing, no routing, no
//! header or method checks, no sessions. A server's CPU per request divided by this one's is its
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
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

/// The reply around the id: a complete 2026-07-28 `CallToolResult` with one text block.
const BEFORE_ID: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
const AFTER_ID: &[u8] = br#","result":{"content":[{"type":"text","text":"hello"}],"isError":false,"resultType":"complete"}}"#;

/// The raw bytes of the first `"id":` member's value (the driver sends a number), found by
/// looking at what follows each quote; `null` when there is none.
fn raw_id(body: &[u8]) -> &[u8] {
    let mut rest = body;
    while let Some(quote) = rest.iter().position(|&b| b == b'"') {
        rest = &rest[quote + 1..];
        if let Some(value) = rest.strip_prefix(b"id\":") {
            let end = value
                .iter()
                .position(|&b| b == b',' || b == b'}')
                .unwrap_or(value.len());
            return value[..end].trim_ascii();
        }
    }
    b"null"
}

async fn answer(req: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = req
        .into_body()
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
        .unwrap_or_default();
    let id = raw_id(&body);
    let mut out = Vec::with_capacity(BEFORE_ID.len() + id.len() + AFTER_ID.len());
    out.extend_from_slice(BEFORE_ID);
    out.extend_from_slice(id);
    out.extend_from_slice(AFTER_ID);
    let mut resp = Response::new(Full::new(Bytes::from(out)));
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
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
    use super::raw_id;

    #[test]
    fn finds_the_id() {
        assert_eq!(
            raw_id(br#"{"jsonrpc":"2.0","id":42,"method":"tools/call"}"#),
            b"42"
        );
        assert_eq!(raw_id(br#"{"id": 7 }"#), b"7");
        assert_eq!(raw_id(br#"{"jsonrpc":"2.0","method":"x"}"#), b"null");
        // A key ending in `id` is not the id.
        assert_eq!(raw_id(br#"{"xid":1,"id":2}"#), b"2");
    }
}
