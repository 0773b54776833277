//! JSON-RPC decode + encode of a `tools/call`, and SSE event framing.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use criterion::{Criterion, criterion_group, criterion_main};
use phantom::__private::{Incoming, read_message};
use phantom::{Content, tools::ToolResult};

fn bench(c: &mut Criterion) {
    let legacy = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#;
    let modern = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}"#;
    for (name, msg) in [
        ("decode tools/call (legacy)", legacy),
        ("decode tools/call (2026-07-28)", modern),
    ] {
        assert!(matches!(
            read_message(msg),
            Some((Incoming::Request { .. }, _))
        ));
        c.bench_function(name, |b| {
            b.iter(|| {
                let (_, head) = read_message(std::hint::black_box(msg)).expect("valid");
                head.name().map(str::len)
            });
        });
    }
    let result = ToolResult::new(vec![Content::text("hello")]);
    c.bench_function("encode tools/call result", |b| {
        b.iter(|| serde_json::to_string(std::hint::black_box(&result)).expect("serializes"));
    });
    let body = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}"#;
    c.bench_function("SSE event framing", |b| {
        b.iter(|| {
            phantom::__private::sse::event(
                Some(std::hint::black_box("p12.3")),
                std::hint::black_box(body),
            )
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
