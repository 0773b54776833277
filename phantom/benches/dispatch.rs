//! Dispatch + URI match on a router with 200 tools and 200 templates, handler included but trivial
//! (it returns its argument), through the same entry point transports use.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use criterion::{Criterion, criterion_group, criterion_main};
use phantom::Request;
use phantom::dispatch::Dispatcher;

#[path = "support/big_router.rs"]
mod big_router;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let dispatcher = Dispatcher::new(big_router::Big);
    let request = Request::default();
    let mut session = phantom::dispatch::SessionSlot::default();
    let outbound = phantom::dispatch::Outbound::none();
    rt.block_on(dispatcher.handle(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}"#,
        &request,
        &mut session,
        &outbound,
    ));
    assert!(session.get().is_some());

    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"tool_150","arguments":{"text":"hello"}}}"#;
    let read = r#"{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"bench:///area150/items/42/data"}}"#;
    let modern = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"tool_150","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let list = r#"{"jsonrpc":"2.0","id":10,"method":"tools/list"}"#;
    for (name, msg) in [
        ("legacy tools/call", call),
        ("legacy resources/read", read),
        ("modern tools/call", modern),
        ("legacy tools/list (cached page)", list),
    ] {
        let reply = rt
            .block_on(dispatcher.handle(msg, &request, &mut session, &outbound))
            .expect("reply");
        assert!(reply.body.contains("\"result\""), "{name}: {}", reply.body);
        c.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(dispatcher.handle(
                    std::hint::black_box(msg),
                    &request,
                    &mut session,
                    &outbound,
                ))
            });
        });
    }

    // Routing alone (handler and serialization excluded): decode the envelope, find the tool by
    // name; match a URI against the 200 templates.
    let router = <big_router::Big as phantom::Server>::__router();
    c.bench_function("route tools/call (decode + lookup)", |b| {
        b.iter(|| {
            let (_, head) =
                phantom::__private::read_message(std::hint::black_box(call)).expect("valid");
            router.tool_position(head.name().expect("a name"))
        });
    });
    c.bench_function("match URI (200 templates)", |b| {
        b.iter(|| router.match_uri(std::hint::black_box("bench:///area150/items/42/data")));
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
