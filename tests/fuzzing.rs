//! The fuzz targets' bodies, shared by `fuzz/` (libFuzzer, nightly) and by the corpus replay of
//! the test command (`tests/fuzz_replay.rs`, stable). Each takes arbitrary bytes and panics only
//! when an invariant breaks.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use phantom::prelude::*;
use phantom::{
    dispatch::{Outbound, SessionSlot},
    protocol::ProtocolVersion,
};

pub use phantom::__fuzz::{
    cursor, jsonrpc, last_event_id, param_header, request_state, skill_uri, sse_event, uri_template,
};

/// The router the dispatch target drives: a tool of each argument shape, a resource template and
/// a prompt; nothing that waits for the client.
#[derive(Clone)]
pub struct Fuzzed;

#[mcp_router(name = "fuzzed", version = "1.0.0")]
impl Fuzzed {
    /// Echoes.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    /// Adds.
    #[tool]
    async fn add(&self, a: i64, b: Option<i64>, tags: Vec<String>) -> String {
        format!("{} {}", a.saturating_add(b.unwrap_or(0)), tags.len())
    }

    /// A note.
    #[resource("fuzz:///notes/<id>/files/<path..>", mime_type = "text/plain")]
    async fn note(&self, id: u32, path: String) -> String {
        format!("{id}:{path}")
    }

    /// A greeting.
    #[prompt]
    async fn greet(&self, name: String) -> String {
        format!("hello {name}")
    }
}

fn dispatcher() -> &'static phantom::dispatch::Dispatcher<Fuzzed> {
    static DISPATCHER: OnceLock<phantom::dispatch::Dispatcher<Fuzzed>> = OnceLock::new();
    DISPATCHER.get_or_init(|| phantom::dispatch::Dispatcher::new(Fuzzed))
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a current-thread runtime")
    })
}

/// JSON-RPC decode and dispatch, in either era: the first byte chooses the slot (no session, an
/// `initialize` opening one, a 2025-11-25 session, legacy stateless mode), the rest is the message.
/// Whatever it is, the reply (if any) is one JSON-RPC message, and it comes at once.
pub fn dispatch(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let mut slot = match kind % 4 {
        0 => SessionSlot::new(None),
        1 => SessionSlot::opening(Arc::from("fuzz-session")),
        2 => {
            let mut session = Session::new(Some(Arc::from("s1")), ProtocolVersion::V2025_11_25);
            session.client_capabilities = Arc::new(serde_json::json!({"sampling": {}}));
            SessionSlot::new(Some(session))
        }
        _ => SessionSlot::stateless(),
    };
    let request = Request::default();
    let reply = runtime().block_on(async {
        let outbound = Outbound::none();
        let handling = dispatcher().handle(text, &request, &mut slot, &outbound);
        tokio::time::timeout(Duration::from_secs(5), handling)
            .await
            .expect("a message is answered at once")
    });
    if let Some(reply) = reply {
        let body: serde_json::Value = serde_json::from_str(&reply.body).expect("a reply is JSON");
        let one = |m: &serde_json::Value| {
            m["jsonrpc"] == "2.0" && (m.get("result").is_some() != m.get("error").is_some())
        };
        match &body {
            serde_json::Value::Array(items) => assert!(items.iter().all(one), "{body}"),
            message => assert!(one(message), "{body}"),
        }
    }
}

/// A target's body.
pub type Target = fn(&[u8]);

/// Every target by name, for the replay.
pub const TARGETS: &[(&str, Target)] = &[
    ("dispatch", dispatch),
    ("jsonrpc", jsonrpc),
    ("uri_template", uri_template),
    ("sse_event", sse_event),
    ("last_event_id", last_event_id),
    ("request_state", request_state),
    ("param_header", param_header),
    ("skill_uri", skill_uri),
    ("cursor", cursor),
];
