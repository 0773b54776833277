//! An ordinary message read by hand ([`Scan`]), in one pass over its bytes.
//!
//! serde_json's visitor pays for its generality on every request: each key and each value goes
//! through a trait call, and the params' text has to be found again afterwards. This scan reads
//! the shape that nearly every message has, where it stands: the members of the message, the
//! head of its params (their text is the span the scan walked), and `_meta`'s envelope.
//!
//! It is the fast path of the one reader ([`read_message_within`](super::read_message_within)):
//! it accepts only what it is sure to read exactly as serde_json reads it, and answers `None` for
//! anything else, which is then read by serde_json:
//! what [`Scan`] does not take, a string serde_json would decode (the id, `jsonrpc`, `method`)
//! with an escape, an id that is not a plain integer or string, a member given twice, a `_meta`
//! that is neither an object nor `null`. The fuzz target `jsonrpc` and the tests below hold it
//! to that.

use std::sync::Arc;

use super::envelope::{Member, MetaProbe, ParamsHead};
use super::read::{Read, member_bit};
use crate::protocol::scan::{Kind, Scan};
use crate::protocol::{Incoming, Members, Params, RequestId};

/// The message and the head of its params, and the deepest nesting of arrays and objects in it;
/// `None` when serde_json must read it.
pub(super) fn scan(text: &str) -> Option<(Read<'_>, usize)> {
    let mut at = Scan::new(text);
    let (members, head) = message(&mut at)?;
    if !at.finished() {
        return None;
    }
    let deepest = usize::try_from(at.deepest()).ok()?;
    Some((
        Incoming::from_members(members).map(|msg| (msg, head)),
        deepest,
    ))
}

fn message<'a>(at: &mut Scan<'a>) -> Option<(Members<'a>, ParamsHead<'a>)> {
    let mut members = Members {
        jsonrpc: None,
        id: None,
        method: None,
        params: None,
        result: None,
        error: None,
    };
    let mut head = ParamsHead::default();
    let mut taken = 0u8;
    at.members(|at, name| {
        let Some(bit) = member_bit(name) else {
            return at.skip_value();
        };
        // A member given twice is refused by serde's derive: serde_json says how.
        (taken & bit == 0).then_some(())?;
        taken |= bit;
        match bit {
            1 => members.jsonrpc = at.opt_str()?,
            2 => members.id = Some(id(at)?),
            4 => members.method = at.opt_str()?,
            8 => match at.kind()? {
                Kind::Null => at.word(b"null")?,
                Kind::Object => {
                    let start = at.at;
                    head = params(at)?;
                    let text = at.text.get(start..at.at)?;
                    members.params = Some(Params::validated(text));
                }
                _ => return None,
            },
            16 => members.result = at.opt_value()?,
            _ => members.error = at.opt_value()?,
        }
        Some(())
    })?;
    Some((members, head))
}

/// The id as the other readings read it: a string without escapes or an integer of up to 18
/// digits is taken; `null`, `true` and `false` are a present id that is not valid.
fn id(at: &mut Scan<'_>) -> Option<Result<RequestId, ()>> {
    match at.peek()? {
        b'"' => {
            let s = at.plain_str()?;
            Some(Ok(RequestId::String(Arc::from(s))))
        }
        b'n' => at.word(b"null").map(|()| Err(())),
        b't' => at.word(b"true").map(|()| Err(())),
        b'f' => at.word(b"false").map(|()| Err(())),
        b'-' | b'0'..=b'9' => {
            let text = at.number()?;
            let (negative, digits) = match text.strip_prefix('-') {
                Some(digits) => (true, digits),
                None => (false, text),
            };
            // `-0`, fractions, exponents and long integers are serde_json's to read (the
            // grammar already refused leading zeros).
            if digits.len() > 18 || (negative && digits == "0") {
                return None;
            }
            let mut n = 0i64;
            for b in digits.bytes() {
                b.is_ascii_digit().then_some(())?;
                n = n * 10 + i64::from(b - b'0');
            }
            Some(Ok(RequestId::Number(if negative { -n } else { n })))
        }
        _ => None,
    }
}

/// The params object, at its `{`: its head.
fn params<'a>(at: &mut Scan<'a>) -> Option<ParamsHead<'a>> {
    let mut head = ParamsHead::default();
    let mut taken = 0u8;
    at.members(|at, name| {
        if name == "_meta" {
            (taken & 64 == 0).then_some(())?;
            taken |= 64;
            head.meta = meta(at)?;
            return Some(());
        }
        let Some((bit, member)) = ParamsHead::member(name) else {
            return at.skip_value();
        };
        (taken & bit == 0).then_some(())?;
        taken |= bit;
        // A target string without escapes is its own text (`bench/NOTES.md`, round 20); one with
        // escapes is read as a value and decoded by `Target::put`.
        if let Member::Target(target) = member
            && matches!(at.kind()?, Kind::String)
            && let Some(text) = at.plain_str()
        {
            head.target.put_plain(target, text);
            return Some(());
        }
        head.put(member, at.opt_value()?);
        Some(())
    })?;
    Some(head)
}

/// `_meta`: an object's envelope keys, or `null` (no envelope).
fn meta<'a>(at: &mut Scan<'a>) -> Option<Option<MetaProbe<'a>>> {
    match at.kind()? {
        Kind::Null => at.word(b"null").map(|()| None),
        Kind::Object => {
            let mut probe = MetaProbe::default();
            at.members(|at, name| match probe.slot(name) {
                Some(slot) => at.value().map(|value| *slot = Some(value)),
                None => at.skip_value(),
            })?;
            Some(Some(probe))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::read::same_as_serde as same;
    use super::scan;

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"0.1"},"io.modelcontextprotocol/clientCapabilities":{},"progressToken":7}"#;

    #[test]
    fn ordinary_messages_are_scanned_and_read_as_serde_json_reads_them() {
        for text in [
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello"}},{META}}}}}"#
            ),
            r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"echo","arguments":{"text":"h\u00e9\n\"","n":[1,-2.5e+3,true,false,null,{},[],{"k\t":[[{}]]}]}}}"#.to_owned(),
            format!(" {{ \"params\" : {{ {META} , \"uri\" : \"a:b\" }} ,\n\"jsonrpc\"\t: \"2.0\" , \"id\" : -12 , \"method\" : \"m\" }} \r\n"),
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{ }}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":0,"method":"m","params":null,"x":{"y":[1,2]}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":null,"name":null,"taskId":"t"}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"progressToken":1,"progressToken":2}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":1,"result":{"ok":true}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#.to_owned(),
            r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":1}"#.to_owned(),
            r#"{}"#.to_owned(),
        ] {
            assert!(scan(&text).is_some(), "{text}");
            assert_eq!(
                scan(&text).map(|(_, deepest)| crate::protocol::nests_deeper_than(text.as_bytes(), deepest)),
                Some(false),
                "{text}"
            );
            same(&text);
        }
    }

    #[test]
    fn the_unusual_is_left_to_serde_json() {
        for text in [
            // Escapes where a name or a decoded string is read.
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"\u006eame":"n"}}"#,
            r#"{"jsonrpc":"2.0","id":"\u0031","method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m\n"}"#,
            r#"{"json\u0072pc":"2.0","id":1,"method":"m"}"#,
            // Ids serde_json reads as floats or refuses, and ids of other types.
            r#"{"jsonrpc":"2.0","id":-0,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1e2,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":[1],"method":"m"}"#,
            // Members given twice, unexpected types.
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a","name":"b"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{},"_meta":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#,
            r#"{"jsonrpc":2,"id":1,"method":"m"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
            // Not JSON, in places the scan only skips.
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":["a","b":1]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"a":1,}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"a" 1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":[01]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":[1.]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":[-]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":[1e]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":["\x"]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":["\u12"]}}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"arguments\":[\"\t\"]}}",
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":[nul]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":[1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m""#,
            "",
        ] {
            assert!(scan(text).is_none(), "{text}");
            same(text);
        }
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"arguments":{}1{}}}}}"#,
            "[".repeat(120),
            "]".repeat(120)
        );
        assert!(scan(&deep).is_none());
        same(&deep);
    }

    mod properties {
        use proptest::prelude::*;
        use serde_json::Value;

        use super::super::super::read::same_as_serde as same;

        fn value() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::from),
                any::<i64>().prop_map(Value::from),
                any::<f64>()
                    .prop_filter("finite", |f| f.is_finite())
                    .prop_map(Value::from),
                "[a-z\\\\\"\u{0}-\u{1f}\u{e9}\u{1f600}]{0,6}".prop_map(Value::String),
            ];
            leaf.prop_recursive(6, 32, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                    prop::collection::btree_map(
                        "(name|uri|_meta|id|[a-z\\\\\"]{1,3}|io.modelcontextprotocol/protocolVersion)",
                        inner,
                        0..4
                    )
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
                ]
            })
        }

        proptest! {
            #[test]
            fn a_message_reads_as_serde_json_reads_it(
                id in prop_oneof![any::<i64>().prop_map(Value::from), "[a-z\\\\]{0,3}".prop_map(Value::from), Just(Value::Null)],
                params in value(),
                meta in value(),
                extra in value(),
                pretty in any::<bool>(),
            ) {
                let msg = serde_json::json!({
                    "jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": "echo", "arguments": params, "_meta": meta},
                    "extra": extra,
                });
                let text = if pretty {
                    serde_json::to_string_pretty(&msg)
                } else {
                    serde_json::to_string(&msg)
                }.expect("serializes");
                same(&text);
            }

            #[test]
            fn a_changed_byte_reads_as_serde_json_reads_it(
                at in any::<prop::sample::Index>(),
                byte in prop::sample::select(b"{}[]:,\"\\ 0-.eEtfnu1a\t".to_vec()),
                params in value(),
            ) {
                let msg = serde_json::json!({
                    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "echo", "arguments": params, "_meta": {"progressToken": 1}},
                });
                let mut bytes = serde_json::to_vec(&msg).expect("serializes");
                let i = at.index(bytes.len());
                bytes[i] = byte;
                if let Ok(text) = std::str::from_utf8(&bytes) {
                    same(text);
                }
            }
        }
    }
}
