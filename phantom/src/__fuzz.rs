//! Entry points for the fuzz targets (`fuzz/`) and their corpus replay (`tests/fuzz.rs`), behind
//! the `fuzzing` feature: each takes arbitrary bytes, runs one parser or codec of phantom on them,
//! and panics only when an invariant breaks. Not part of the public API.

use std::sync::OnceLock;

use serde_json::value::RawValue;

use crate::input::StateKey;
use crate::protocol::nests_deeper_than;
use crate::resources::uri::{Matcher, Template};

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// JSON-RPC decoding: the depth scan, the envelope, the head of the params (both eras read it).
pub fn jsonrpc(data: &[u8]) {
    let Some(text) = text(data) else { return };
    if nests_deeper_than(text.as_bytes(), crate::server::DEFAULT_JSON_DEPTH) {
        return;
    }
    // The one reader's scan reads what serde_json reads.
    crate::dispatch::same_as_serde(text);
    if let Some(Ok((msg, head))) = crate::dispatch::read_message_within(text, usize::MAX) {
        let _ = head.claimed_version();
        if let Some(params) = msg.params() {
            // Decoded once more from the raw params, as a handler's arguments are.
            let _ = serde_json::from_str::<serde_json::Value>(params.get());
        }
    }
}

/// A template on the first line and URIs on the others: parse the template, compile it, and match
/// each URI; a match must have as many parameters as the template names.
pub fn uri_template(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let mut lines = text.split('\n');
    let Some(Ok(template)) = lines.next().map(Template::parse) else {
        return;
    };
    let _ = template.to_rfc6570();
    let mut matcher = Matcher::default();
    matcher.insert(&template, 0);
    for uri in lines {
        if let Some(hit) = matcher.find(uri) {
            assert_eq!(hit.index, 0);
            assert_eq!(hit.params.len(), template.params().count(), "{uri}");
        }
    }
}

/// An SSE event framed from arbitrary data reads back, by the WHATWG rules, as that data.
#[cfg(feature = "http")]
pub fn sse_event(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let (id, body) = text.split_once('\u{0}').unwrap_or(("", text));
    let id = (!id.is_empty() && !id.contains(['\n', '\r'])).then_some(id);
    let framed = crate::transport::sse::event(id, body);
    let framed = std::str::from_utf8(&framed).expect("an event is UTF-8");
    let (read_id, read_data) = read_sse(framed);
    assert_eq!(read_id.as_deref(), id);
    assert_eq!(read_data, body.replace("\r\n", "\n").replace('\r', "\n"));
}

/// A minimal SSE reader (one event): lines end at `\r\n`, `\n` or `\r`; `data:` lines join with
/// `\n`; one space after the colon is dropped.
#[cfg(feature = "http")]
fn read_sse(text: &str) -> (Option<String>, String) {
    let (mut id, mut data) = (None, Vec::new());
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    for line in normalized.split('\n') {
        if line.is_empty() {
            break;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => id = Some(value.to_owned()),
            "data" => data.push(value.to_owned()),
            _ => {}
        }
    }
    (id, data.join("\n"))
}

/// `Last-Event-ID` against a store holding a few events: a replay answers only with the named
/// event and those after it, of its stream.
pub fn last_event_id(data: &[u8]) {
    use crate::store::{EventStore, MemoryEventStore};
    let Some(last) = text(data) else { return };
    let store = MemoryEventStore::new();
    let runtime = runtime();
    runtime.block_on(async {
        for stream in ["g", "p1", "g", "p1"] {
            store
                .append("s", stream, "{}")
                .await
                .expect("the memory store");
        }
        if let Some((stream, events)) = store.replay("s", last).await.expect("the memory store") {
            assert!(
                last.starts_with(&format!("{stream}.")),
                "{last} replays {stream}"
            );
            assert!(
                events
                    .iter()
                    .all(|e| e.id.starts_with(&format!("{stream}.")))
            );
            assert_eq!(events.first().map(|e| e.id.as_str()), Some(last));
        }
        assert!(
            store
                .replay("other", last)
                .await
                .expect("the memory store")
                .is_none()
        );
    });
}

/// Opening an arbitrary `requestState` is an error, never a panic, and never succeeds.
pub fn request_state(data: &[u8]) {
    let Some(state) = text(data) else { return };
    let key = StateKey::from_bytes([7; 32]);
    let params = RawValue::from_string(r#"{"name":"t","arguments":{}}"#.into()).expect("JSON");
    let binding =
        crate::input::state::Binding::new("tools/call", Some("p"), Some((&*params).into()));
    assert!(crate::input::state::open(&key, &binding, state).is_err());
}

/// An `Mcp-Param-*` (or `Mcp-Name`) header value decodes to text, or is refused.
#[cfg(feature = "http")]
pub fn param_header(data: &[u8]) {
    let Some(value) = text(data) else { return };
    if let Some(decoded) = crate::transport::http::decode_header_for_fuzzing(value) {
        // Plain values are trimmed; a base64 value is its decoded text, whitespace included.
        assert!(!decoded.starts_with(char::is_whitespace) || value.trim().starts_with("=?base64?"));
    }
}

/// A skill URI is judged canonical or not; a canonical one has no dot segment or empty segment.
pub fn skill_uri(data: &[u8]) {
    let Some(uri) = text(data) else { return };
    if crate::skills::uri::check(uri).is_ok() {
        let rest = uri.split_once("://").map_or("", |(_, r)| r);
        assert!(
            rest.split('/')
                .all(|s| !s.is_empty() && s != "." && s != ".."),
            "{uri}"
        );
    }
}

/// A list cursor decodes to a positive offset of its own list, or to nothing.
pub fn cursor(data: &[u8]) {
    let Some(cursor) = text(data) else { return };
    for kind in ["t", "p", "x", "r", "s"] {
        if let Some(offset) = crate::session::decode_cursor(kind, cursor) {
            assert!(offset > 0);
        }
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime")
    })
}
