//! The one reader of the server's inbound messages: every JSON-RPC message a transport hands the
//! dispatcher (an HTTP body, each item of a legacy batch, a stdio line, the test kit's in-process
//! client) is read here, once, into the message and the head of its params (its `_meta` envelope,
//! the decoded target, the raw `arguments`, `inputResponses` and `requestState`).
//!
//! The reading is the hand scan (`scan.rs`) for the messages it is sure to read exactly as
//! serde_json does — nearly all of them — and serde_json's (`Incoming::parse`, then
//! `ParamsHead::read`) for the rest. serde_json's reading is the reference: the scan's tests,
//! a property test and the fuzz target `jsonrpc` hold the scan to it, errors and their messages
//! included. Nothing else in the server decodes a message's envelope (`tests/hygiene.rs`).

use super::envelope::ParamsHead;
use crate::protocol::{ErrorObject, Incoming, RequestId};

/// What a message read leaves for the caller: the message and the head of its params, or the
/// error to answer (with the id, when it could be read).
pub(crate) type Read<'a> = Result<(Incoming<'a>, ParamsHead<'a>), (Option<RequestId>, ErrorObject)>;

/// Reads a message and the head of its params: scanned by hand when the message is an ordinary
/// one, else by serde_json. `None` when it nests arrays and objects deeper than `limit`: the
/// scan measures the depth as it reads, and a text it does not take is counted first, as
/// [`Dispatcher::too_deep`](super::Dispatcher::too_deep) counts it.
pub(crate) fn read_message_within(text: &str, limit: usize) -> Option<Read<'_>> {
    if let Some((read, deepest)) = super::scan::scan(text) {
        return (deepest <= limit).then_some(read);
    }
    if crate::protocol::nests_deeper_than(text.as_bytes(), limit) {
        return None;
    }
    Some(by_serde(text))
}

/// serde_json's reading: the message, then the head of its params.
fn by_serde(text: &str) -> Read<'_> {
    let msg = Incoming::parse(text)?;
    let head = ParamsHead::read(msg.params());
    Ok((msg, head))
}

/// The members of a message phantom reads, a bit each (to tell a member given twice):
/// `jsonrpc` 1, `id` 2, `method` 4, `params` 8, `result` 16, `error` 32.
pub(super) fn member_bit(key: &str) -> Option<u8> {
    Some(match key {
        "jsonrpc" => 1,
        "id" => 2,
        "method" => 4,
        "params" => 8,
        "result" => 16,
        "error" => 32,
        _ => return None,
    })
}

/// Panics unless [`read_message_within`] reads `text` as serde_json does, and finds it too deep
/// exactly when `nests_deeper_than` does (for the fuzz target and the tests). Empty params may
/// differ only in the spaces inside `{}`.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn same_as_serde(text: &str) {
    let one = read_message_within(text, usize::MAX).expect("no depth limit");
    let (one, two) = (format!("{one:?}"), format!("{:?}", by_serde(text)));
    for limit in [0, 1, 2, 3, 5, 8] {
        let too_deep = crate::protocol::nests_deeper_than(text.as_bytes(), limit);
        assert_eq!(
            read_message_within(text, limit).is_none(),
            too_deep,
            "{text} at {limit}"
        );
    }
    if one != two {
        let spaced = |s: &str| s.replace(['{', ' ', '\t', '\n', '\r'], "");
        assert_eq!(spaced(&one), spaced(&two), "{text}");
        assert!(one.contains("Params(\"{}\")"), "{text}: {one} != {two}");
    }
}

#[cfg(test)]
mod tests {
    use super::same_as_serde as same;

    #[test]
    fn every_reading_is_serde_json_s() {
        let meta =
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":7}"#;
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            &format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"e",{meta}}}}}"#
            ),
            &format!(
                r#" {{ "params" : {{ {meta} , "uri" : "a:b" }} , "jsonrpc" : "2.0" , "id" : "x" , "method" : "m" }} "#
            ),
            &format!(
                "{{\n\"params\":\t{{\r\n\"name\":null,{meta}}}\n,\"id\":2,\"method\":\"m\",\"jsonrpc\":\"2.0\"}}\n"
            ),
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{ }}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a","name":"b"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{},"_meta":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":null,"name":"n"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":[1],"name":"n"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"\u006eame":"n"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":1,"name":"n"},"\u0069d2":3}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"b":[{"}":"{"}]}},"x":"}"}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"m","params":{"name":"n"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"ok":true}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"n"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"n"}} x"#,
            r#"{"jsonrpc":2,"id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":null,"params":{"name":"n"}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
            r#""text""#,
            "",
        ] {
            same(text);
        }
    }
}
