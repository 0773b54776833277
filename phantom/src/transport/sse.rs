//! Server-sent events framing: each event is built into one buffer and written with one write.

use bytes::Bytes;

/// `id: <id>\ndata: <data>\n\n` (the JSON text has no raw newlines, so one `data:` line suffices).
pub fn event(id: Option<&str>, data: &str) -> Bytes {
    crate::telemetry::metrics::sse_event("sent");
    frame(id, data)
}

/// [`event`] for a stored event sent again after a `Last-Event-ID` (counted apart).
pub fn replayed(id: &str, data: &str) -> Bytes {
    crate::telemetry::metrics::sse_event("replayed");
    frame(Some(id), data)
}

fn frame(id: Option<&str>, data: &str) -> Bytes {
    // Sized exactly for the usual text (one line): `Bytes` then takes the buffer as it is,
    // with no shared header allocated beside it.
    let id_line = id.map_or(0, |id| "id: \n".len() + id.len());
    let mut out = Vec::with_capacity(id_line + "data: \n\n".len() + data.len());
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"data: ");
    if memchr::memchr2(b'\n', b'\r', data.as_bytes()).is_some() {
        // Never produced by serde_json, but keep the framing valid for any text: a reader ends a
        // line at `\r\n`, `\n` or `\r`, so each of them starts a new `data:` line.
        let normalized = data.replace("\r\n", "\n").replace('\r', "\n");
        out.extend_from_slice(normalized.replace('\n', "\ndata: ").as_bytes());
    } else {
        out.extend_from_slice(data.as_bytes());
    }
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// The priming event of 2025-11-25 streams: an id, `retry`, and empty data.
pub fn priming(id: &str, retry_ms: u64) -> Bytes {
    Bytes::from(format!("id: {id}\nretry: {retry_ms}\ndata: \n\n"))
}

/// The last frame of a stream the server ends as it shuts down: `retry` alone (no data, so no
/// event), telling the client when to reconnect, which a balancer then sends to another node.
pub fn retry(retry_ms: u64) -> Bytes {
    Bytes::from(format!("retry: {retry_ms}\n\n"))
}

/// A keep-alive comment line.
pub fn keep_alive() -> Bytes {
    Bytes::from_static(b": keep-alive\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames() {
        assert_eq!(&event(Some("p1.2"), "{}")[..], b"id: p1.2\ndata: {}\n\n");
        assert_eq!(&event(None, "a\nb")[..], b"data: a\ndata: b\n\n");
        assert_eq!(
            &event(None, "a\rb\r\nc\r")[..],
            b"data: a\ndata: b\ndata: c\ndata: \n\n"
        );
        assert_eq!(&priming("g.1", 500)[..], b"id: g.1\nretry: 500\ndata: \n\n");
        assert_eq!(&retry(1000)[..], b"retry: 1000\n\n");
    }

    #[test]
    fn an_event_of_one_line_fills_its_buffer_exactly() {
        for (id, data) in [(None, "{}"), (Some("p1.2"), r#"{"a":"é"}"#), (Some(""), "")] {
            let frame = Vec::from(event(id, data));
            assert_eq!(frame.len(), frame.capacity(), "{id:?} {data}");
        }
    }
}
