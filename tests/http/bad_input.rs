//! The bad-input matrix: one table of malformed, truncated, misdirected and oversized requests,
//! each sent over real HTTP/1.1 and answered with an exact HTTP status and JSON-RPC code. After
//! every case the server still answers a healthy request in both eras.

use bytes::Bytes;
use http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{Call, LEGACY, MODERN, TestServer, echo_call, modern_meta, request};

// The statuses of the table, by name.
const BAD_REQUEST: StatusCode = StatusCode::BAD_REQUEST;
const FORBIDDEN: StatusCode = StatusCode::FORBIDDEN;
const METHOD_NOT_ALLOWED: StatusCode = StatusCode::METHOD_NOT_ALLOWED;
const NOT_ACCEPTABLE: StatusCode = StatusCode::NOT_ACCEPTABLE;
const NOT_FOUND: StatusCode = StatusCode::NOT_FOUND;
const OK: StatusCode = StatusCode::OK;
const PAYLOAD_TOO_LARGE: StatusCode = StatusCode::PAYLOAD_TOO_LARGE;
const UNSUPPORTED_MEDIA_TYPE: StatusCode = StatusCode::UNSUPPORTED_MEDIA_TYPE;

/// What the matrix needs besides the server: sessions in several states.
struct World {
    server: TestServer,
    /// A live 2025-11-25 session.
    live: String,
    /// A live 2025-03-26 session (batches are allowed there).
    old: String,
    /// A session that was ended with DELETE.
    ended: String,
    /// A well-formed id this server never issued (another server's).
    foreign: String,
}

/// What a case expects: the HTTP status and the JSON-RPC error code of the body.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// A JSON-RPC error with this code under this status.
    Error(StatusCode, i64),
    /// A JSON-RPC result under 200.
    Result,
    /// A tool result with `isError: true` under 200.
    ToolError,
    /// This status and an empty body (202 for an accepted notification or response).
    Empty(StatusCode),
}

struct Case {
    name: &'static str,
    call: fn(&World) -> Call,
    expect: Expect,
}

fn case(name: &'static str, expect: Expect, call: fn(&World) -> Call) -> Case {
    Case { name, call, expect }
}

fn post_raw(w: &World, body: impl Into<Bytes>) -> Call {
    w.server
        .request(Method::POST)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body)
}

fn in_session(w: &World, body: &Value) -> Call {
    w.server.post_in(&w.live, body)
}

fn in_session_raw(w: &World, body: impl Into<Bytes>) -> Call {
    post_raw(w, body).header("mcp-session-id", &w.live)
}

/// A modern request whose standard headers agree with it.
fn modern(w: &World, method: &str, params: Value) -> Call {
    w.server.post_modern(method, params)
}

/// A modern `tools/call` of `echo`, its headers agreeing.
/// A 2026-07-28 `tools/list` whose `_meta` envelope `edit` changed, `version` in its header.
fn edited_envelope(w: &World, version: &str, edit: impl FnOnce(&mut Value)) -> Call {
    let mut body = request(1, "tools/list", json!({"_meta": modern_meta()}));
    edit(&mut body["params"]["_meta"]);
    w.server
        .post(&body)
        .header("mcp-protocol-version", version)
        .header("mcp-method", "tools/list")
}

fn modern_echo(w: &World) -> Call {
    modern(
        w,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    )
}

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

fn cases() -> Vec<Case> {
    use Expect::{Empty, Error as E, Result, ToolError};
    vec![
        // Bodies that are not JSON, or not JSON-RPC.
        case("truncated object", E(BAD_REQUEST, -32700), |w| {
            post_raw(w, r#"{"jsonrpc":"2.0","id":1,"#)
        }),
        case("a lone brace", E(BAD_REQUEST, -32700), |w| post_raw(w, "{")),
        case("empty body", E(BAD_REQUEST, -32700), |w| post_raw(w, "")),
        case("not UTF-8", E(BAD_REQUEST, -32700), |w| {
            post_raw(w, &b"\xff\xfe\xfd"[..])
        }),
        case("not UTF-8 inside a string", E(BAD_REQUEST, -32700), |w| {
            post_raw(
                w,
                &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc3\x28\"}"[..],
            )
        }),
        case("trailing garbage", E(BAD_REQUEST, -32700), |w| {
            post_raw(w, r#"{"jsonrpc":"2.0","id":1,"method":"ping"} xyz"#)
        }),
        case("a number", E(BAD_REQUEST, -32600), |w| post_raw(w, "42")),
        case("a string", E(BAD_REQUEST, -32600), |w| {
            post_raw(w, r#""ping""#)
        }),
        case("null", E(BAD_REQUEST, -32600), |w| post_raw(w, "null")),
        case("100 000 nested arrays", E(BAD_REQUEST, -32700), |w| {
            post_raw(w, nested(100_000))
        }),
        case(
            "arguments nested past the depth limit",
            E(BAD_REQUEST, -32700),
            |w| {
                let deep = format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x","extra":{}}}}}}}"#,
                    nested(70)
                );
                in_session_raw(w, deep)
            },
        ),
        case("a deep batch", E(BAD_REQUEST, -32700), |w| {
            post_raw(w, format!("[{}]", nested(200)))
        }),
        // The JSON-RPC envelope.
        case("jsonrpc 1.0", E(BAD_REQUEST, -32600), |w| {
            in_session(w, &json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}))
        }),
        case("jsonrpc missing", E(BAD_REQUEST, -32600), |w| {
            in_session(w, &json!({"id": 1, "method": "ping"}))
        }),
        case("jsonrpc as a number", E(BAD_REQUEST, -32600), |w| {
            in_session_raw(w, r#"{"jsonrpc":2.0,"id":1,"method":"ping"}"#)
        }),
        case("a null id", E(BAD_REQUEST, -32600), |w| {
            in_session(w, &json!({"jsonrpc": "2.0", "id": null, "method": "ping"}))
        }),
        case("an object id", E(BAD_REQUEST, -32600), |w| {
            in_session(
                w,
                &json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}),
            )
        }),
        case("a fractional id", E(BAD_REQUEST, -32600), |w| {
            in_session_raw(w, r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#)
        }),
        case("an integer id past 64 bits", E(BAD_REQUEST, -32600), |w| {
            in_session_raw(
                w,
                r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
            )
        }),
        case("a 64 KiB string id is answered with it", Result, |w| {
            in_session(w, &request_with_id(&json!("i".repeat(65_536)), "ping"))
        }),
        case("a negative id is answered with it", Result, |w| {
            in_session(w, &request_with_id(&json!(-7), "ping"))
        }),
        case("a method that is a number", E(BAD_REQUEST, -32600), |w| {
            in_session(w, &json!({"jsonrpc": "2.0", "id": 1, "method": 5}))
        }),
        case(
            "an id without a method, result or error",
            E(BAD_REQUEST, -32600),
            |w| in_session(w, &json!({"jsonrpc": "2.0", "id": 1})),
        ),
        case("both a result and an error", E(BAD_REQUEST, -32600), |w| {
            in_session(
                w,
                &json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}),
            )
        }),
        case(
            "a response to a request never sent",
            E(BAD_REQUEST, -32600),
            |w| {
                in_session(
                    w,
                    &json!({"jsonrpc": "2.0", "id": "never-sent", "result": {}}),
                )
            },
        ),
        case(
            "an unknown notification",
            Empty(StatusCode::ACCEPTED),
            |w| {
                in_session(
                    w,
                    &json!({"jsonrpc": "2.0", "method": "notifications/nothing"}),
                )
            },
        ),
        // Params of the wrong shape (legacy session).
        case("params as an array", E(BAD_REQUEST, -32600), |w| {
            in_session(w, &request(1, "tools/call", json!(["echo"])))
        }),
        case("params as a string", E(BAD_REQUEST, -32600), |w| {
            in_session(w, &request(1, "tools/list", json!("all")))
        }),
        case("tools/call without a name", E(OK, -32602), |w| {
            in_session(w, &request(1, "tools/call", json!({"arguments": {}})))
        }),
        case("tools/call with a numeric name", E(OK, -32602), |w| {
            in_session(w, &request(1, "tools/call", json!({"name": 7})))
        }),
        case("an unknown tool", E(OK, -32602), |w| {
            in_session(w, &request(1, "tools/call", json!({"name": "rm -rf"})))
        }),
        case("arguments as a string", E(OK, -32602), |w| {
            in_session(
                w,
                &request(
                    1,
                    "tools/call",
                    json!({"name": "echo", "arguments": "text"}),
                ),
            )
        }),
        case("an argument of the wrong type", ToolError, |w| {
            in_session(
                w,
                &request(
                    1,
                    "tools/call",
                    json!({"name": "echo", "arguments": {"text": 5}}),
                ),
            )
        }),
        case("a missing argument", ToolError, |w| {
            in_session(
                w,
                &request(1, "tools/call", json!({"name": "echo", "arguments": {}})),
            )
        }),
        case("resources/read without a uri", E(OK, -32602), |w| {
            in_session(w, &request(1, "resources/read", json!({})))
        }),
        case("resources/read with a numeric uri", E(OK, -32602), |w| {
            in_session(w, &request(1, "resources/read", json!({"uri": 1})))
        }),
        case("an unknown resource", E(OK, -32002), |w| {
            in_session(
                w,
                &request(1, "resources/read", json!({"uri": "lab:///nope"})),
            )
        }),
        case("a path segment of the wrong type", E(OK, -32602), |w| {
            in_session(
                w,
                &request(1, "resources/read", json!({"uri": "lab:///notes/abc"})),
            )
        }),
        case("a non-canonical uri", E(OK, -32002), |w| {
            in_session(
                w,
                &request(
                    1,
                    "resources/read",
                    json!({"uri": "lab:///notes/../notes/1"}),
                ),
            )
        }),
        case("a uri that is not a uri", E(OK, -32002), |w| {
            in_session(
                w,
                &request(1, "resources/read", json!({"uri": "\u{0}\n%%"})),
            )
        }),
        case("an unknown prompt", E(OK, -32602), |w| {
            in_session(w, &request(1, "prompts/get", json!({"name": "nope"})))
        }),
        case("a garbage cursor", E(OK, -32602), |w| {
            in_session(w, &request(1, "tools/list", json!({"cursor": "!!!"})))
        }),
        case("a well-formed cursor of nothing", E(OK, -32602), |w| {
            in_session(w, &request(1, "tools/list", json!({"cursor": "eHl6eHl6"})))
        }),
        case("a numeric cursor", E(OK, -32602), |w| {
            in_session(w, &request(1, "resources/list", json!({"cursor": 3})))
        }),
        case("a log level that does not exist", E(OK, -32602), |w| {
            in_session(w, &request(1, "logging/setLevel", json!({"level": "loud"})))
        }),
        case("an unknown method in a session", E(OK, -32601), |w| {
            in_session(w, &request(1, "tools/destroy", json!({})))
        }),
        // Sizes.
        case(
            "arguments past the body limit",
            E(PAYLOAD_TOO_LARGE, -32600),
            |w| {
                let text = "a".repeat(5 * 1024 * 1024);
                in_session(
                    w,
                    &request(
                        1,
                        "tools/call",
                        json!({"name": "echo", "arguments": {"text": text}}),
                    ),
                )
            },
        ),
        case("a 12 MiB body", E(PAYLOAD_TOO_LARGE, -32600), |w| {
            post_raw(w, vec![b' '; 12 * 1024 * 1024])
        }),
        case("a 12 MiB chunked body", E(PAYLOAD_TOO_LARGE, -32600), |w| {
            post_raw(w, "").chunked_body(
                (0..12)
                    .map(|_| Bytes::from(vec![b' '; 1024 * 1024]))
                    .collect(),
            )
        }),
        // The 2026-07-28 envelope and headers.
        case("modern: an unknown method", E(NOT_FOUND, -32601), |w| {
            modern(w, "tools/destroy", json!({}))
        }),
        case("modern: initialize", E(NOT_FOUND, -32601), |w| {
            modern(w, "initialize", json!({}))
        }),
        case("modern: ping", E(NOT_FOUND, -32601), |w| {
            modern(w, "ping", json!({}))
        }),
        case(
            "modern: Mcp-Method disagrees",
            E(BAD_REQUEST, -32020),
            |w| modern_echo(w).set_header("mcp-method", Some("tools/list")),
        ),
        case("modern: Mcp-Method missing", E(BAD_REQUEST, -32020), |w| {
            modern_echo(w).set_header("mcp-method", None)
        }),
        case("modern: Mcp-Name disagrees", E(BAD_REQUEST, -32020), |w| {
            modern_echo(w).set_header("mcp-name", Some("other"))
        }),
        case("modern: Mcp-Name missing", E(BAD_REQUEST, -32020), |w| {
            modern_echo(w).set_header("mcp-name", None)
        }),
        case(
            "modern: MCP-Protocol-Version missing",
            E(BAD_REQUEST, -32020),
            |w| modern_echo(w).set_header("mcp-protocol-version", None),
        ),
        case(
            "modern: the header names a version the body does not",
            E(BAD_REQUEST, -32020),
            |w| modern_echo(w).set_header("mcp-protocol-version", Some(LEGACY)),
        ),
        case(
            "modern: the header without the envelope",
            E(BAD_REQUEST, -32602),
            |w| {
                w.server
                    .post(&request(1, "tools/list", json!({})))
                    .header("mcp-protocol-version", MODERN)
                    .header("mcp-method", "tools/list")
            },
        ),
        case(
            "modern: an unsupported version",
            E(BAD_REQUEST, -32022),
            |w| {
                edited_envelope(w, "1900-01-01", |meta| {
                    meta["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
                })
            },
        ),
        case(
            "modern: client capabilities missing",
            E(BAD_REQUEST, -32602),
            |w| {
                edited_envelope(w, MODERN, |meta| {
                    meta.as_object_mut()
                        .expect("_meta")
                        .remove("io.modelcontextprotocol/clientCapabilities");
                })
            },
        ),
        case(
            "modern: client capabilities of the wrong type",
            E(BAD_REQUEST, -32602),
            |w| {
                edited_envelope(w, MODERN, |meta| {
                    meta["io.modelcontextprotocol/clientCapabilities"] = json!("all");
                })
            },
        ),
        case("modern: an unknown resource", E(OK, -32602), |w| {
            modern(w, "resources/read", json!({"uri": "lab:///nope"}))
        }),
        case("modern: a garbage cursor", E(OK, -32602), |w| {
            modern(w, "tools/list", json!({"cursor": "%%%"}))
        }),
        case("modern: a garbage requestState", E(OK, -32602), |w| {
            modern(
                w,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "x"}, "requestState": "v1.AAAA.BBBB"}),
            )
        }),
        case(
            "modern: tasks/get without the extension",
            E(BAD_REQUEST, -32021),
            |w| modern(w, "tasks/get", json!({"taskId": "abc"})),
        ),
        // Transport headers.
        case("no Accept", E(NOT_ACCEPTABLE, -32600), |w| {
            post_raw(w, echo_call(1, "x").to_string()).set_header("accept", None)
        }),
        case(
            "Accept without text/event-stream",
            E(NOT_ACCEPTABLE, -32600),
            |w| {
                post_raw(w, echo_call(1, "x").to_string())
                    .set_header("accept", Some("application/json"))
            },
        ),
        case(
            "Content-Type text/plain",
            E(UNSUPPORTED_MEDIA_TYPE, -32600),
            |w| {
                post_raw(w, echo_call(1, "x").to_string())
                    .set_header("content-type", Some("text/plain"))
            },
        ),
        case("no Content-Type", E(UNSUPPORTED_MEDIA_TYPE, -32600), |w| {
            post_raw(w, echo_call(1, "x").to_string()).set_header("content-type", None)
        }),
        case("a foreign Host", E(FORBIDDEN, -32600), |w| {
            post_raw(w, echo_call(1, "x").to_string()).set_header("host", Some("evil.example.com"))
        }),
        case("no Host", E(FORBIDDEN, -32600), |w| {
            post_raw(w, echo_call(1, "x").to_string()).set_header("host", None)
        }),
        case("a foreign Origin", E(FORBIDDEN, -32600), |w| {
            post_raw(w, echo_call(1, "x").to_string()).header("origin", "https://evil.example.com")
        }),
        case(
            "a garbage MCP-Protocol-Version in a session",
            E(BAD_REQUEST, -32600),
            |w| in_session(w, &echo_call(1, "x")).header("mcp-protocol-version", "latest"),
        ),
        case("PUT", E(METHOD_NOT_ALLOWED, -32600), |w| {
            w.server.request(Method::PUT)
        }),
        case(
            "GET without a session",
            E(METHOD_NOT_ALLOWED, -32600),
            |w| {
                w.server
                    .request(Method::GET)
                    .header("accept", "text/event-stream")
            },
        ),
        case(
            "GET that does not accept SSE",
            E(NOT_ACCEPTABLE, -32600),
            |w| {
                w.server
                    .request(Method::GET)
                    .header("accept", "application/json")
                    .header("mcp-session-id", &w.live)
            },
        ),
        // Sessions.
        case("no session id", E(BAD_REQUEST, -32600), |w| {
            w.server.post(&echo_call(1, "x"))
        }),
        case("a session id never issued", E(NOT_FOUND, -32001), |w| {
            w.server.post_in("not-a-session", &echo_call(1, "x"))
        }),
        case("another server's session id", E(NOT_FOUND, -32001), |w| {
            w.server.post_in(&w.foreign, &echo_call(1, "x"))
        }),
        case("a terminated session id", E(NOT_FOUND, -32001), |w| {
            w.server.post_in(&w.ended, &echo_call(1, "x"))
        }),
        case("an 8 KiB session id", E(NOT_FOUND, -32001), |w| {
            w.server.post_in(&"s".repeat(8192), &echo_call(1, "x"))
        }),
        case("GET on a terminated session", E(NOT_FOUND, -32001), |w| {
            w.server
                .request(Method::GET)
                .header("accept", "text/event-stream")
                .header("mcp-session-id", &w.ended)
        }),
        case(
            "DELETE of another server's session",
            E(NOT_FOUND, -32001),
            |w| {
                w.server
                    .request(Method::DELETE)
                    .header("mcp-session-id", &w.foreign)
            },
        ),
        case(
            "a batch in a 2025-11-25 session",
            E(BAD_REQUEST, -32600),
            |w| in_session(w, &json!([echo_call(1, "x"), echo_call(2, "y")])),
        ),
        case(
            "an empty batch in a 2025-03-26 session",
            E(BAD_REQUEST, -32600),
            |w| w.server.post_in(&w.old, &json!([])),
        ),
        case("a batch before initialize", E(BAD_REQUEST, -32600), |w| {
            w.server.post(&json!([echo_call(1, "x")]))
        }),
        case(
            "initialize with params of the wrong shape",
            E(OK, -32602),
            |w| {
                w.server
                    .post(&request(1, "initialize", json!({"protocolVersion": 2025})))
            },
        ),
    ]
}

fn request_with_id(id: &Value, method: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method})
}

/// A session this server never issued: `initialize` on another server.
async fn foreign_session() -> String {
    let other = TestServer::start(phantom::http::HttpConfig::default()).await;
    other.initialize(LEGACY).await
}

/// The healthy requests that must still work after each case, in both eras.
async fn healthy(w: &World, after: &str) {
    let legacy = w
        .server
        .post_in(&w.live, &echo_call(9, "still"))
        .send()
        .await;
    assert_eq!(legacy.status, StatusCode::OK, "legacy call after `{after}`");
    let body = legacy.json().await;
    assert_eq!(
        body["result"]["content"][0]["text"], "echo: still",
        "after `{after}`"
    );
    let modern = w
        .server
        .post_modern(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "ok"}}),
        )
        .send()
        .await;
    assert_eq!(modern.status, StatusCode::OK, "modern call after `{after}`");
    let body = modern.json().await;
    assert_eq!(
        body["result"]["content"][0]["text"], "echo: ok",
        "after `{after}`"
    );
}

#[tokio::test]
async fn every_bad_input_gets_its_exact_status_and_code_and_the_server_goes_on() {
    let cases = cases();
    assert!(cases.len() >= 60, "the matrix has {} cases", cases.len());
    let server = TestServer::start(phantom::http::HttpConfig::default()).await;
    let live = server.initialize(LEGACY).await;
    let old = server.initialize("2025-03-26").await;
    let ended = server.initialize(LEGACY).await;
    let deleted = server
        .request(Method::DELETE)
        .header("mcp-session-id", &ended)
        .send()
        .await;
    assert!(deleted.status.is_success(), "DELETE: {}", deleted.status);
    let w = World {
        server,
        live,
        old,
        ended,
        foreign: foreign_session().await,
    };
    let mut failures = Vec::new();
    for case in &cases {
        let reply = (case.call)(&w).send().await;
        let status = reply.status;
        let text = reply.text().await;
        let body: Option<Value> = serde_json::from_str(&text).ok();
        let ok = match case.expect {
            Expect::Error(want, code) => {
                status == want
                    && body
                        .as_ref()
                        .is_some_and(|b| b["jsonrpc"] == "2.0" && b["error"]["code"] == code)
            }
            Expect::Result => {
                status == StatusCode::OK && body.as_ref().is_some_and(|b| b.get("result").is_some())
            }
            Expect::ToolError => {
                status == StatusCode::OK
                    && body
                        .as_ref()
                        .is_some_and(|b| b["result"]["isError"] == true)
            }
            Expect::Empty(want) => status == want && text.is_empty(),
        };
        if !ok {
            let shown: String = text.chars().take(300).collect();
            failures.push(format!(
                "`{}`: want {:?}, got {status} {shown}",
                case.name, case.expect
            ));
        }
        healthy(&w, case.name).await;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
