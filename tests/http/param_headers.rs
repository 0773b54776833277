//! `#[arg(header = "…")]` over HTTP: a 2026-07-28 `tools/call` must mirror each marked argument in
//! its `Mcp-Param-<Header>` header (plain or `=?base64?…?=`), or it is refused with 400 / `-32020`
//! before the handler runs; legacy sessions are not checked. Also `#[tool(requires = [...])]`'s
//! `-32021` as an HTTP 400.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use http::StatusCode;
use phantom::http::HttpConfig;
use phantom::prelude::*;
use serde_json::{Value, json};

use crate::support::{Call, LEGACY, MODERN, Reply, TestServer, first_text, request};

/// Tools with header-mirrored arguments; `calls` counts handler runs.
#[derive(Clone, Default)]
struct Geo {
    calls: Arc<AtomicUsize>,
}

#[mcp_router(name = "geo", version = "1.0.0")]
impl Geo {
    /// Echoes the arguments it got.
    #[tool]
    async fn forecast(
        &self,
        #[arg(header = "Region")] region: Option<String>,
        #[arg(header = "Days")] days: Option<i64>,
        #[arg(header = "Big")] big: Option<u64>,
        #[arg(header = "Metric")] metric: Option<bool>,
        note: Option<String>,
    ) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        format!("region={region:?} days={days:?} big={big:?} metric={metric:?} note={note:?}")
    }

    /// Needs `sampling`.
    #[tool(requires = ["sampling"])]
    async fn summarize(&self, text: String) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        format!("summary of {text}")
    }
}

struct Setup {
    server: TestServer,
    calls: Arc<AtomicUsize>,
}

impl Setup {
    async fn start() -> Self {
        let geo = Geo::default();
        let calls = Arc::clone(&geo.calls);
        Self {
            server: TestServer::start_with(geo, HttpConfig::default()).await,
            calls,
        }
    }

    /// A modern `tools/call` of `forecast` with these arguments and the standard headers.
    fn forecast(&self, arguments: Value) -> Call {
        let mut params = json!({"name": "forecast"});
        params["arguments"] = arguments;
        self.server.post_modern("tools/call", params)
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

/// Asserts 200 and returns the tool's text.
async fn ok_text(reply: Reply) -> String {
    assert_eq!(reply.status, StatusCode::OK);
    let body = reply.json().await;
    assert_eq!(body["id"], 1, "{body}");
    assert!(body.get("error").is_none(), "{body}");
    first_text(&body["result"]).to_owned()
}

/// Asserts 400 with `-32020` answering request 1; returns the message.
async fn mismatch(reply: Reply) -> String {
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json().await;
    assert_eq!(body["jsonrpc"], "2.0", "{body}");
    assert_eq!(body["id"], 1, "{body}");
    assert_eq!(body["error"]["code"], -32020, "{body}");
    body["error"]["message"]
        .as_str()
        .expect("a message")
        .to_owned()
}

#[tokio::test]
async fn a_matching_header_is_accepted() {
    let s = Setup::start().await;
    let text = ok_text(
        s.forecast(json!({"region": "eu-west-1", "note": "n"}))
            .header("mcp-param-region", "eu-west-1")
            .send()
            .await,
    )
    .await;
    assert_eq!(
        text,
        r#"region=Some("eu-west-1") days=None big=None metric=None note=Some("n")"#
    );
    // Header names are case-insensitive.
    let reply = s
        .forecast(json!({"region": "eu-west-1"}))
        .header("MCP-PARAM-REGION", "eu-west-1")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(s.calls(), 2);
}

#[tokio::test]
async fn a_missing_header_is_400_when_the_argument_is_in_the_body() {
    let s = Setup::start().await;
    let message = mismatch(s.forecast(json!({"region": "eu-west-1"})).send().await).await;
    assert!(message.contains("Mcp-Param-Region"), "{message}");
    assert!(message.contains("region"), "{message}");
    // An unrelated argument without a header is not enough.
    let message = mismatch(
        s.forecast(json!({"region": "eu", "days": 3}))
            .header("mcp-param-region", "eu")
            .send()
            .await,
    )
    .await;
    assert!(message.contains("Mcp-Param-Days"), "{message}");
    assert_eq!(s.calls(), 0, "the handler must not run");
}

#[tokio::test]
async fn a_mismatching_header_is_400() {
    let s = Setup::start().await;
    for sent in ["us-east-1", "EU-WEST-1", "eu-west-1x", ""] {
        let message = mismatch(
            s.forecast(json!({"region": "eu-west-1"}))
                .header("mcp-param-region", sent)
                .send()
                .await,
        )
        .await;
        assert!(message.contains("Mcp-Param-Region"), "{sent:?}: {message}");
    }
    assert_eq!(s.calls(), 0);
}

#[tokio::test]
async fn a_header_sent_twice_is_400() {
    let s = Setup::start().await;
    mismatch(
        s.forecast(json!({"region": "eu"}))
            .header("mcp-param-region", "eu")
            .header("mcp-param-region", "eu")
            .send()
            .await,
    )
    .await;
    assert_eq!(s.calls(), 0);
}

#[tokio::test]
async fn a_base64_sentinel_is_decoded() {
    let s = Setup::start().await;
    // "Zürich" is not safe ASCII, so the client sends it encoded.
    let text = ok_text(
        s.forecast(json!({"region": "Zürich"}))
            .header("mcp-param-region", "=?base64?WsO8cmljaA==?=")
            .send()
            .await,
    )
    .await;
    assert_eq!(
        text,
        r#"region=Some("Zürich") days=None big=None metric=None note=None"#
    );
    // Plain ASCII may be encoded too.
    let reply = s
        .forecast(json!({"region": "eu"}))
        .header("mcp-param-region", "=?base64?ZXU=?=")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    // A value that looks like the sentinel must itself be encoded: sent plain, it is decoded.
    let literal = json!({"region": "=?base64?ZXU=?="});
    mismatch(
        s.forecast(literal.clone())
            .header("mcp-param-region", "=?base64?ZXU=?=")
            .send()
            .await,
    )
    .await;
    let reply = s
        .forecast(literal)
        .header("mcp-param-region", "=?base64?PT9iYXNlNjQ/WlhVPT89?=")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(s.calls(), 3);
}

#[tokio::test]
async fn an_invalid_base64_sentinel_is_400() {
    let s = Setup::start().await;
    for sent in [
        "=?base64?ZXU?=",         // missing padding
        "=?base64?ZXU==?=",       // too much padding
        "=?base64?ZX*=?=",        // outside the alphabet
        "=?base64?-_8=?=",        // the URL-safe alphabet
        "=?base64?ZXV=?=",        // non-zero trailing bits
        "=?base64?ZX U=?=",       // a space inside
        "=?base64?/w==?=",        // not UTF-8
        "=?base64?WsO8cmljaA=?=", // "Zürich" with a padding character short
    ] {
        let message = mismatch(
            s.forecast(json!({"region": "eu"}))
                .header("mcp-param-region", sent)
                .send()
                .await,
        )
        .await;
        assert!(message.contains("invalid"), "{sent}: {message}");
    }
    assert_eq!(s.calls(), 0);
}

#[tokio::test]
async fn a_value_with_invalid_characters_is_400() {
    let s = Setup::start().await;
    // Raw UTF-8 (obs-text) instead of the base64 sentinel.
    let message = mismatch(
        s.forecast(json!({"region": "Zürich"}))
            .header("mcp-param-region", "Zürich")
            .send()
            .await,
    )
    .await;
    assert!(message.contains("invalid"), "{message}");
    assert_eq!(s.calls(), 0);
}

#[tokio::test]
async fn surrounding_whitespace_is_tolerated_inner_whitespace_is_not() {
    let s = Setup::start().await;
    let reply = s
        .forecast(json!({"region": "eu-west-1"}))
        .header("mcp-param-region", "  eu-west-1\t")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let reply = s
        .forecast(json!({"region": "eu west"}))
        .header("mcp-param-region", "eu west")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    mismatch(
        s.forecast(json!({"region": "eu-west-1"}))
            .header("mcp-param-region", "eu -west-1")
            .send()
            .await,
    )
    .await;
    // A value with surrounding spaces only survives the trip base64-encoded.
    mismatch(
        s.forecast(json!({"region": " eu "}))
            .header("mcp-param-region", " eu ")
            .send()
            .await,
    )
    .await;
    let text = ok_text(
        s.forecast(json!({"region": " eu "}))
            .header("mcp-param-region", "=?base64?IGV1IA==?=")
            .send()
            .await,
    )
    .await;
    assert!(text.starts_with(r#"region=Some(" eu ")"#), "{text}");
    assert_eq!(s.calls(), 3);
}

#[tokio::test]
async fn integers_are_compared_numerically() {
    let s = Setup::start().await;
    for (days, sent) in [
        (7, "7"),
        (7, "07"),
        (-3, "-3"),
        (0, "0"),
        (7, "=?base64?Nw==?="),
    ] {
        let reply = s
            .forecast(json!({"days": days}))
            .header("mcp-param-days", sent)
            .send()
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{days} vs {sent}");
    }
    let text = ok_text(
        s.forecast(json!({"big": u64::MAX}))
            .header("mcp-param-big", &u64::MAX.to_string())
            .send()
            .await,
    )
    .await;
    assert!(text.contains(&format!("big=Some({})", u64::MAX)), "{text}");
    for (days, sent) in [(7, "8"), (7, "seven"), (7, "7 days"), (-3, "3"), (7, "0x7")] {
        let message = mismatch(
            s.forecast(json!({"days": days}))
                .header("mcp-param-days", sent)
                .send()
                .await,
        )
        .await;
        assert!(message.contains("Mcp-Param-Days"), "{message}");
    }
    mismatch(
        s.forecast(json!({"big": u64::MAX}))
            .header("mcp-param-big", "18446744073709551614")
            .send()
            .await,
    )
    .await;
    assert_eq!(s.calls(), 6);
}

#[tokio::test]
async fn booleans_are_true_or_false() {
    let s = Setup::start().await;
    for (metric, sent) in [(true, "true"), (false, "false")] {
        let text = ok_text(
            s.forecast(json!({"metric": metric}))
                .header("mcp-param-metric", sent)
                .send()
                .await,
        )
        .await;
        assert!(text.contains(&format!("metric=Some({metric})")), "{text}");
    }
    for (metric, sent) in [
        (true, "false"),
        (true, "True"),
        (true, "1"),
        (false, "0"),
        (false, ""),
    ] {
        mismatch(
            s.forecast(json!({"metric": metric}))
                .header("mcp-param-metric", sent)
                .send()
                .await,
        )
        .await;
    }
    assert_eq!(s.calls(), 2);
}

#[tokio::test]
async fn an_absent_or_null_argument_expects_no_header() {
    let s = Setup::start().await;
    let text = ok_text(s.forecast(json!({"note": "n"})).send().await).await;
    assert_eq!(
        text,
        r#"region=None days=None big=None metric=None note=Some("n")"#
    );
    let reply = s
        .forecast(json!({"region": null, "days": null, "metric": null}))
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    // No `arguments` at all.
    let reply = s
        .server
        .post_modern("tools/call", json!({"name": "forecast"}))
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(s.calls(), 3);
}

#[tokio::test]
async fn a_header_for_an_absent_or_null_argument_is_400() {
    let s = Setup::start().await;
    for arguments in [json!({}), json!({"region": null})] {
        let message = mismatch(
            s.forecast(arguments.clone())
                .header("mcp-param-region", "eu")
                .send()
                .await,
        )
        .await;
        assert!(
            message.contains("Mcp-Param-Region"),
            "{arguments}: {message}"
        );
    }
    assert_eq!(s.calls(), 0);
}

#[tokio::test]
async fn tools_without_header_arguments_ignore_param_headers() {
    let s = Setup::start().await;
    let params = json!({
        "name": "summarize",
        "arguments": {"text": "t"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
        },
    });
    let text = ok_text(
        s.server
            .post_modern("tools/call", params)
            .header("mcp-param-region", "anything")
            .send()
            .await,
    )
    .await;
    assert_eq!(text, "summary of t");
}

#[tokio::test]
async fn legacy_calls_are_not_checked() {
    let s = Setup::start().await;
    let session = s.server.initialize(LEGACY).await;
    let call = |id: u64, arguments: Value| {
        s.server.post_in(
            &session,
            &request(
                id,
                "tools/call",
                json!({"name": "forecast", "arguments": arguments}),
            ),
        )
    };
    for (id, reply) in [
        (2, call(2, json!({"region": "eu", "days": 1})).send().await),
        (
            3,
            call(3, json!({"region": "eu"}))
                .header("mcp-param-region", "us")
                .send()
                .await,
        ),
        (
            4,
            call(4, json!({"region": "eu"}))
                .header("mcp-param-region", "=?base64?ZXU?=")
                .send()
                .await,
        ),
    ] {
        assert_eq!(reply.status, StatusCode::OK);
        let body = reply.json().await;
        assert_eq!(body["id"], id, "{body}");
        assert!(first_text(&body["result"]).starts_with(r#"region=Some("eu")"#));
    }
    assert_eq!(s.calls(), 3);
}

#[tokio::test]
async fn a_missing_capability_is_400_with_the_request_id() {
    let s = Setup::start().await;
    let reply = s
        .server
        .post(&crate::support::modern_request(
            42,
            "tools/call",
            json!({"name": "summarize", "arguments": {"text": "t"}}),
        ))
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", "summarize")
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json().await;
    assert_eq!(body["id"], 42, "{body}");
    assert_eq!(body["error"]["code"], -32021, "{body}");
    assert_eq!(
        body["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}}),
        "{body}"
    );
    assert_eq!(s.calls(), 0, "the handler must not run");

    // A legacy session without the capability gets the same error with 200.
    let session = s.server.initialize(LEGACY).await;
    let reply = s
        .server
        .post_in(
            &session,
            &request(
                7,
                "tools/call",
                json!({"name": "summarize", "arguments": {"text": "t"}}),
            ),
        )
        .send()
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let body = reply.json().await;
    assert_eq!(body["id"], 7, "{body}");
    assert_eq!(body["error"]["code"], -32021, "{body}");
    assert_eq!(s.calls(), 0);
}
