//! A message and the head of its params, read in one pass over its text.
//!
//! [`Incoming::parse`] captures the params raw (serde_json scans them to find where they end) and
//! [`ParamsHead::read`] then reads them again. Here the params are visited where they stand: their
//! head is read in the message's pass, and their text is cut from the body by the positions of
//! the keys serde_json borrowed from it. Anything out of the ordinary (a message that is not an
//! object, a member given twice, params that are not an object, a key with escapes where a
//! position is needed, any error) is read the usual way instead, so that every message reads
//! exactly as it does with the two passes, errors and their messages included.

use std::borrow::Cow;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::envelope::{MetaProbe, ParamsHead, lenient_meta};
use crate::protocol::{ErrorObject, Incoming, Key, Members, Params, RequestId, present};

/// What a message read in one pass leaves for the caller: the message, or the error to answer
/// (with the id, when it could be read).
pub(crate) type Read<'a> = Result<(Incoming<'a>, ParamsHead<'a>), (Option<RequestId>, ErrorObject)>;

/// Reads a message and the head of its params: scanned by hand when the message is an ordinary
/// one (`scan.rs`), else in one serde_json pass when it can be, else in two. `None` when it nests
/// arrays and objects deeper than `limit`: the scan measures the depth as it reads, and a text it
/// does not take is counted first, as [`Dispatcher::too_deep`](super::Dispatcher::too_deep)
/// counts it.
pub(crate) fn read_message_within(text: &str, limit: usize) -> Option<Read<'_>> {
    if let Some((read, deepest)) = super::scan::scan(text) {
        return (deepest <= limit).then_some(read);
    }
    if crate::protocol::nests_deeper_than(text.as_bytes(), limit) {
        return None;
    }
    Some(read_by_serde(text))
}

/// serde_json's readings: one pass when it can be, else two.
fn read_by_serde(text: &str) -> Read<'_> {
    if let Some(read) = one_pass(text) {
        return read;
    }
    let msg = Incoming::parse(text)?;
    let head = ParamsHead::read(msg.params());
    Ok((msg, head))
}

/// `None` when the message must be read the usual way.
fn one_pass(text: &str) -> Option<Read<'_>> {
    let mut de = serde_json::Deserializer::from_str(text);
    let seen = (&mut de).deserialize_map(MessageVisitor).ok()?;
    de.end().ok()?;
    let (params, head) = match seen.params {
        None => (None, ParamsHead::default()),
        Some(visited) => {
            let text = match visited.first_key {
                // `{}`: no key to find it by, and nothing in it to read.
                None => "{}",
                Some(first) => params_text(text, first, seen.after_params)?,
            };
            (Some(Params::validated(text)), visited.head)
        }
    };
    let members = Members {
        jsonrpc: seen.jsonrpc,
        id: seen.id,
        method: seen.method.map(|Key(m)| m),
        params,
        result: seen.result,
        error: seen.error,
    };
    Some(Incoming::from_members(members).map(|msg| (msg, head)))
}

/// The text of the params object: from the `{` before its first key to the `}` before the
/// message's next key (or its end). Only JSON whitespace can stand between them and these
/// positions, since serde_json has read the whole message as valid JSON.
fn params_text<'a>(
    text: &'a str,
    first_key: &'a str,
    next_key: Option<&'a str>,
) -> Option<&'a str> {
    let ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    let before = text.get(..offset(text, first_key)?.checked_sub(1)?)?;
    let start = before.trim_end_matches(ws).strip_suffix('{')?.len();
    let rest = match next_key {
        Some(next) => text
            .get(..offset(text, next)?.checked_sub(1)?)?
            .trim_end_matches(ws)
            .strip_suffix(',')?,
        None => text.trim_end_matches(ws).strip_suffix('}')?,
    };
    let end = rest.trim_end_matches(ws).len();
    text.get(start..end).filter(|p| p.ends_with('}'))
}

/// Where `part`, borrowed from `text`, starts in it.
fn offset(text: &str, part: &str) -> Option<usize> {
    let (at, base) = (part.as_ptr() as usize, text.as_ptr() as usize);
    let inside = at >= base && at + part.len() <= base + text.len();
    inside.then(|| at - base)
}

/// The members of a message, as `Incoming::parse` reads them, with the params visited.
#[derive(Default)]
struct Seen<'de> {
    jsonrpc: Option<Cow<'de, str>>,
    id: Option<Result<RequestId, ()>>,
    method: Option<Key<'de>>,
    params: Option<Visited<'de>>,
    result: Option<&'de RawValue>,
    error: Option<&'de RawValue>,
    /// The key after `params`, borrowed from the text: where the params end.
    after_params: Option<&'de str>,
}

/// Params that were an object: their head, and their first key (borrowed from the text).
struct Visited<'de> {
    head: ParamsHead<'de>,
    first_key: Option<&'de str>,
}

/// The error that sends a message to the usual reading (never shown: that reading answers).
fn unusual<E: serde::de::Error>() -> E {
    E::custom("read in two passes")
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Seen<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Seen<'de>, A::Error> {
        let mut seen = Seen::default();
        let mut taken = 0u8;
        let mut params_last = false;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if params_last {
                params_last = false;
                match key {
                    Cow::Borrowed(next) => seen.after_params = Some(next),
                    Cow::Owned(_) => return Err(unusual()),
                }
            }
            let Some(bit) = member_bit(&key) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if taken & bit != 0 {
                // Serde's derive refuses a member given twice; the usual reading says so.
                return Err(unusual());
            }
            taken |= bit;
            match bit {
                1 => seen.jsonrpc = map.next_value::<Option<Key<'de>>>()?.map(|Key(k)| k),
                2 => seen.id = map.next_value_seed(IdSeed)?,
                4 => seen.method = map.next_value::<Option<Key<'de>>>()?,
                8 => {
                    seen.params = map.next_value_seed(ParamsSeed)?;
                    params_last = true;
                }
                16 => seen.result = map.next_value::<Option<&'de RawValue>>()?,
                _ => seen.error = map.next_value::<Option<&'de RawValue>>()?,
            }
        }
        Ok(seen)
    }
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

/// The id, read as `Incoming::parse` reads it.
struct IdSeed;

impl<'de> DeserializeSeed<'de> for IdSeed {
    type Value = Option<Result<RequestId, ()>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        present(d)
    }
}

/// `params`: `null` (no params, as `Option` reads it) or an object, whose head is read.
struct ParamsSeed;

impl<'de> DeserializeSeed<'de> for ParamsSeed {
    type Value = Option<Visited<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ParamsSeed {
    type Value = Option<Visited<'de>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("params")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut head = ParamsHead::default();
        let mut first_key = None;
        let (mut taken, mut twice) = (0u8, false);
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if first_key.is_none() {
                match &key {
                    Cow::Borrowed(first) => first_key = Some(*first),
                    Cow::Owned(_) => return Err(unusual()),
                }
            }
            if key == "_meta" {
                twice |= taken & 64 != 0;
                taken |= 64;
                head.meta = map.next_value_seed(MetaSeed)?;
                continue;
            }
            let Some((bit, member)) = ParamsHead::member(&key) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            twice |= taken & bit != 0;
            taken |= bit;
            head.put(member, map.next_value::<Option<&'de RawValue>>()?);
        }
        if twice {
            // `ParamsHead::read` reads nothing of params that give a member twice.
            head = ParamsHead::default();
        }
        Ok(Some(Visited { head, first_key }))
    }
}

/// `params._meta`, read as `ParamsHead::read` reads it (an error reads the message the usual
/// way, where it makes the whole head empty).
struct MetaSeed;

impl<'de> DeserializeSeed<'de> for MetaSeed {
    type Value = Option<MetaProbe<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        lenient_meta(d)
    }
}

/// Panics unless [`read_message_within`] reads `text` as `Incoming::parse` and `ParamsHead::read` do,
/// and finds it too deep exactly when `nests_deeper_than` does (for the fuzz target and the
/// tests). Empty params may differ only in the spaces inside `{}`.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn same_as_two_passes(text: &str) {
    let two = Incoming::parse(text).map(|msg| {
        let head = ParamsHead::read(msg.params());
        (msg, head)
    });
    let one = read_message_within(text, usize::MAX).expect("no depth limit");
    let (one, two) = (format!("{one:?}"), format!("{two:?}"));
    // Too deep exactly when the bracket count says so, whichever reading measured it.
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
    use super::{one_pass, same_as_two_passes as same};

    #[test]
    fn ordinary_messages_take_one_pass_and_unusual_ones_two() {
        for ordinary in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
            r#" { "params" : { "x" : [ "}" ] } , "jsonrpc" : "2.0" , "id" : 1 , "method" : "m" } "#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a","name":"b"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
        ] {
            assert!(one_pass(ordinary).is_some(), "{ordinary}");
        }
        for unusual in [
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"\u006eame":"n"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1},"\u0078":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
        ] {
            assert!(one_pass(unusual).is_none(), "{unusual}");
        }
    }

    #[test]
    fn one_pass_reads_what_two_passes_read() {
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
