//! `Config::middleware`: hooks see every feature request (method, name, session) and its outcome,
//! and `before` can refuse a request before its handler runs, in both eras.

use std::sync::{Arc, Mutex};

use phantom::testing::Client;
use phantom::{
    BoxFuture, Config, Error,
    middleware::{Call, Middleware, Outcome},
    protocol::Method,
};
use serde_json::json;

use crate::fixture::Lab;

/// Refuses the `boom` tool and records what it saw.
#[derive(Clone, Default)]
struct Audit {
    log: Arc<Mutex<Vec<String>>>,
}

impl Middleware for Audit {
    fn before<'a>(&'a self, call: &'a Call<'a>) -> BoxFuture<'a, Result<(), Error>> {
        let refused = call.method == Method::ToolsCall && call.name == Some("boom");
        Box::pin(async move {
            if refused {
                return Err(Error::new(-32000, "rate limited: `boom`"));
            }
            Ok(())
        })
    }

    fn after<'a>(&'a self, call: &'a Call<'a>, outcome: Outcome<'a>) -> BoxFuture<'a, ()> {
        let line = match outcome {
            Outcome::Ok => format!("{} {} ok", call.method, call.name.unwrap_or("-")),
            Outcome::Error(e) => format!("{} {} {}", call.method, call.name.unwrap_or("-"), e.code),
            _ => unreachable!("two outcomes"),
        };
        self.log.lock().expect("log").push(line);
        Box::pin(std::future::ready(()))
    }
}

#[tokio::test]
async fn middleware_sees_calls_and_can_refuse_them_in_both_eras() {
    let audit = Audit::default();
    let config = Config::default().with_middleware(audit.clone());
    let mut legacy = Client::uninitialized(Lab, config.clone());
    legacy.initialize("2025-11-25").await.result();
    let mut modern = Client::modern_with_config(Lab, config);
    for client in [&mut legacy, &mut modern] {
        client
            .call_tool("echo", json!({"text": "hi"}))
            .await
            .assert_tool_text("hi");
        let refused = client.call_tool("boom", json!({})).await;
        refused.assert_error(-32000);
        assert_eq!(refused.error()["message"], "rate limited: `boom`");
        client.read_resource("lab:///nope").await;
        client.list_tools(None).await.result();
    }
    let log = audit.log.lock().expect("log").clone();
    let expected = [
        "tools/call echo ok",
        "tools/call boom -32000",
        "resources/read lab:///nope -32002",
        "tools/list - ok",
    ];
    assert_eq!(log.len(), 8, "{log:?}");
    assert_eq!(&log[..4], expected);
    // The modern era maps -32002 to -32602 in the reply; middleware sees the room's error.
    assert_eq!(&log[4..], expected);
}
