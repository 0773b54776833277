//! The session slot reports a change only when a request wrote to the session, so a transport
//! stores the row exactly then.

use phantom::{
    Request,
    dispatch::{Dispatcher, Outbound, SessionSlot},
};

use crate::fixture::Lab;

#[tokio::test]
async fn only_requests_that_write_the_session_mark_it_changed() {
    let dispatcher = Dispatcher::new(Lab);
    let request = Request::default();
    let none = Outbound::none();
    let mut slot = SessionSlot::default();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    dispatcher.handle(init, &request, &mut slot, &none).await;
    assert!(slot.changed(), "initialize fills the slot");

    let mut slot = SessionSlot::new(slot.into_session());
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let reply = dispatcher.handle(list, &request, &mut slot, &none).await;
    assert!(reply.is_some_and(|r| r.body.contains("\"tools\"")));
    let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}"#;
    dispatcher.handle(call, &request, &mut slot, &none).await;
    assert!(
        !slot.changed(),
        "reading and calling leave the session as it was"
    );

    let level = r#"{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"info"}}"#;
    dispatcher.handle(level, &request, &mut slot, &none).await;
    assert!(slot.changed(), "logging/setLevel writes the session");
    assert_eq!(
        slot.get().and_then(|s| s.log_level),
        Some(phantom::protocol::LogLevel::Info)
    );
}
