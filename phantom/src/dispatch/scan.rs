//! An ordinary message read by hand, in one pass over its bytes.
//!
//! serde_json's visitor pays for its generality on every request: each key and each value goes
//! through a trait call, and the params' text has to be found again afterwards. This scan reads
//! the shape that nearly every message has, where it stands: the members of the message, the
//! head of its params (their text is the span the scan walked), and `_meta`'s envelope. It checks
//! as it goes that the text is JSON, as serde_json's reading would.
//!
//! It accepts only what it is sure to read exactly as [`read_message`](super::read_message)'s
//! other readings do, and answers `None` for anything else, which is then read by serde_json:
//! a key with an escape, a string serde_json would decode (the id, `jsonrpc`, `method`) with an
//! escape, an id that is not a plain integer or string, a member given twice, a `_meta` that is
//! neither an object nor `null`, a value of an unexpected type, nesting deeper than
//! [`MAX_DEPTH`], and every error. The fuzz target `jsonrpc` and the tests below hold it to that.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::value::RawValue;

use super::envelope::{MetaProbe, ParamsHead};
use super::read::{Read, member_bit};
use crate::protocol::{Incoming, Members, Params, RequestId};

/// Deeper than this, the message is left to serde_json (whose own limit is 128).
const MAX_DEPTH: u32 = 100;

/// The message and the head of its params, or `None` when serde_json must read it.
pub(super) fn scan(text: &str) -> Option<Read<'_>> {
    let mut at = Scan {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    let members = at.message()?;
    at.ws();
    if at.at != at.bytes.len() {
        return None;
    }
    let (members, head) = members;
    Some(Incoming::from_members(members).map(|msg| (msg, head)))
}

/// A position in the text. Every method leaves `at` after what it read, and answers `None` for
/// what the scan does not take.
struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

/// What a value of the envelope is, by its first byte.
enum Kind {
    Null,
    String,
    Object,
    Other,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, not taken.
    fn peek(&mut self) -> Option<u8> {
        match self.bytes.get(self.at) {
            // Most messages have no whitespace between tokens.
            Some(&b) if b > b' ' => Some(b),
            _ => {
                self.ws();
                self.bytes.get(self.at).copied()
            }
        }
    }

    /// Takes `byte` after whitespace.
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn kind(&mut self) -> Option<Kind> {
        Some(match self.peek()? {
            b'n' => Kind::Null,
            b'"' => Kind::String,
            b'{' => Kind::Object,
            _ => Kind::Other,
        })
    }

    /// A string without escapes, at its opening quote: its text.
    fn plain_str(&mut self) -> Option<&'a str> {
        let start = self.at + 1;
        let rest = self.bytes.get(start..)?;
        let len = special(rest)?;
        // The quote ends it; an escape or a control character is not taken.
        (rest[len] == b'"').then_some(())?;
        self.at = start + len + 1;
        // Both ends are at ASCII quotes, so on character boundaries.
        self.text.get(start..start + len)
    }

    /// Any string, at its opening quote, escapes checked as serde_json checks them when it skips
    /// a string.
    fn skip_str(&mut self) -> Option<()> {
        self.at += 1;
        loop {
            let rest = self.bytes.get(self.at..)?;
            let len = special(rest)?;
            self.at += len + 1;
            match rest[len] {
                b'"' => return Some(()),
                b'\\' => {}
                _ => return None,
            }
            match *self.bytes.get(self.at)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 1,
                b'u' => {
                    let hex = self.bytes.get(self.at + 1..self.at + 5)?;
                    hex.iter().all(u8::is_ascii_hexdigit).then_some(())?;
                    self.at += 5;
                }
                _ => return None,
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.bytes.get(self.at) {
            self.at += 1;
        }
        self.at - start
    }

    /// A number, by JSON's grammar.
    fn skip_number(&mut self) -> Option<()> {
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at)? {
            b'0' => self.at += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            (self.digits() > 0).then_some(())?;
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            (self.digits() > 0).then_some(())?;
        }
        Some(())
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// Any value: its text.
    fn value(&mut self) -> Option<&'a RawValue> {
        self.ws();
        let start = self.at;
        self.skip_value()?;
        raw(self.text.get(start..self.at)?)
    }

    /// Any value, after whitespace. Arrays and objects are walked with a stack of one bit per
    /// open bracket (set for an object), not by recursion.
    fn skip_value(&mut self) -> Option<()> {
        let (mut depth, mut objects) = (0u32, 0u128);
        loop {
            // A value.
            match self.peek()? {
                b'"' => self.skip_str()?,
                b'-' | b'0'..=b'9' => self.skip_number()?,
                b't' => self.word(b"true")?,
                b'f' => self.word(b"false")?,
                b'n' => self.word(b"null")?,
                open @ (b'[' | b'{') => {
                    self.at += 1;
                    if depth == MAX_DEPTH {
                        return None;
                    }
                    let object = open == b'{';
                    if self.peek()? == open + 2 {
                        // `[]` or `{}` (`]` and `}` are two bytes after their openers).
                        self.at += 1;
                    } else {
                        depth += 1;
                        objects = objects << 1 | u128::from(object);
                        if object {
                            self.key()?;
                        }
                        continue;
                    }
                }
                _ => return None,
            }
            // What follows a value inside arrays and objects: another one, or the close.
            loop {
                if depth == 0 {
                    return Some(());
                }
                let object = objects & 1 == 1;
                match self.peek()? {
                    b',' => {
                        self.at += 1;
                        if object {
                            self.key()?;
                        }
                        break;
                    }
                    close if close == if object { b'}' } else { b']' } => {
                        self.at += 1;
                        depth -= 1;
                        objects >>= 1;
                    }
                    _ => return None,
                }
            }
        }
    }

    /// An object's key and its colon, any escapes allowed (the key is skipped).
    fn key(&mut self) -> Option<()> {
        (self.peek()? == b'"').then_some(())?;
        self.skip_str()?;
        self.eat(b':')
    }

    /// A key read for its name (no escapes), and its colon.
    fn name(&mut self) -> Option<&'a str> {
        (self.peek()? == b'"').then_some(())?;
        let name = self.plain_str()?;
        self.eat(b':')?;
        Some(name)
    }

    /// The members of an object, each handed to `member` with the scan at its value; `member`
    /// reads the value. `None` from `member` leaves the message to serde_json.
    fn members(&mut self, mut member: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            let name = self.name()?;
            member(self, name)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string or `null` (`Option<Key>` as the other readings read `jsonrpc` and `method`).
    fn opt_str(&mut self) -> Option<Option<Cow<'a, str>>> {
        match self.kind()? {
            Kind::Null => self.word(b"null").map(|()| None),
            Kind::String => self.plain_str().map(|s| Some(Cow::Borrowed(s))),
            _ => None,
        }
    }

    /// A value or `null` (`Option<&RawValue>`).
    fn opt_value(&mut self) -> Option<Option<&'a RawValue>> {
        match self.kind()? {
            Kind::Null => self.word(b"null").map(|()| None),
            _ => self.value().map(Some),
        }
    }

    /// The id as the other readings read it: a string without escapes or an integer of up to
    /// 18 digits is taken; `null`, `true` and `false` are a present id that is not valid.
    fn id(&mut self) -> Option<Result<RequestId, ()>> {
        match self.peek()? {
            b'"' => {
                let s = self.plain_str()?;
                Some(Ok(RequestId::String(Arc::from(s))))
            }
            b'n' => self.word(b"null").map(|()| Err(())),
            b't' => self.word(b"true").map(|()| Err(())),
            b'f' => self.word(b"false").map(|()| Err(())),
            b'-' | b'0'..=b'9' => {
                let start = self.at;
                self.skip_number()?;
                let text = self.text.get(start..self.at)?;
                let digits = text.strip_prefix('-').unwrap_or(text);
                // `-0`, fractions, exponents and long integers are serde_json's to read.
                let plain = digits.len() <= 18
                    && digits.bytes().all(|b| b.is_ascii_digit())
                    && (digits == "0" || !digits.starts_with('0'))
                    && text != "-0";
                plain.then(|| text.parse().ok().map(|n| Ok(RequestId::Number(n))))?
            }
            _ => None,
        }
    }

    fn message(&mut self) -> Option<(Members<'a>, ParamsHead<'a>)> {
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
        self.members(|at, name| {
            let Some(bit) = member_bit(name) else {
                return at.skip_value();
            };
            // A member given twice is refused by serde's derive: serde_json says how.
            (taken & bit == 0).then_some(())?;
            taken |= bit;
            match bit {
                1 => members.jsonrpc = at.opt_str()?,
                2 => members.id = Some(at.id()?),
                4 => members.method = at.opt_str()?,
                8 => match at.kind()? {
                    Kind::Null => at.word(b"null")?,
                    Kind::Object => {
                        let start = at.at;
                        head = at.params()?;
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

    /// The params object, at its `{`: its head.
    fn params(&mut self) -> Option<ParamsHead<'a>> {
        let mut head = ParamsHead::default();
        let mut taken = 0u8;
        self.members(|at, name| {
            if name == "_meta" {
                (taken & 64 == 0).then_some(())?;
                taken |= 64;
                head.meta = at.meta()?;
                return Some(());
            }
            let Some((bit, slot)) = head.slot(name) else {
                return at.skip_value();
            };
            (taken & bit == 0).then_some(())?;
            taken |= bit;
            *slot = at.opt_value()?;
            Some(())
        })?;
        Some(head)
    }

    /// `_meta`: an object's envelope keys, or `null` (no envelope).
    fn meta(&mut self) -> Option<Option<MetaProbe<'a>>> {
        match self.kind()? {
            Kind::Null => self.word(b"null").map(|()| None),
            Kind::Object => {
                let mut probe = MetaProbe::default();
                self.members(|at, name| match probe.slot(name) {
                    Some(slot) => at.value().map(|value| *slot = Some(value)),
                    None => at.skip_value(),
                })?;
                Some(Some(probe))
            }
            _ => None,
        }
    }
}

/// Where the first byte a string ends or changes at is: a quote, a backslash, or a control
/// character (which JSON wants escaped). Eight bytes at a time: in each word, a byte is flagged
/// where it is zero after an exclusive or with `"` or `\\`, or where subtracting `0x20` borrows.
/// The lowest flag is always a byte that matches (a false flag only appears above a true one).
fn special(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |w: u64| w.wrapping_sub(ONES) & !w;
    let mut chunks = bytes.chunks_exact(8);
    for (i, chunk) in chunks.by_ref().enumerate() {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let flags = (zero(w ^ (ONES * u64::from(b'"')))
            | zero(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w))
            & HIGH;
        if flags != 0 {
            return Some(i * 8 + flags.trailing_zeros() as usize / 8);
        }
    }
    let done = bytes.len() - chunks.remainder().len();
    let at = chunks
        .remainder()
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    Some(done + at)
}

/// Text the scan has checked is one JSON value, as a `RawValue`, without scanning it again
/// (serde_json only builds one from text it scans, unless it is handed over as below).
fn raw(text: &str) -> Option<&RawValue> {
    handed_over(text)
        .or_else(|_| serde_json::from_str(text))
        .ok()
}

/// A `RawValue` handed over the way serde_json's own deserializer hands a borrowed one over: a
/// map of one entry under its private name. Should that name ever change, this fails and `raw`
/// scans the text instead (a test notices).
fn handed_over(text: &str) -> Result<&RawValue, serde_json::Error> {
    use serde::Deserialize;
    use serde::de::value::{BorrowedStrDeserializer, MapDeserializer};
    const RAW_VALUE: &str = "$serde_json::private::RawValue";
    let entry = (RAW_VALUE, BorrowedStrDeserializer::new(text));
    <&RawValue>::deserialize(MapDeserializer::new(std::iter::once(entry)))
}

#[cfg(test)]
mod tests {
    use super::super::read::same_as_two_passes as same;
    use super::{handed_over, scan};

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"0.1"},"io.modelcontextprotocol/clientCapabilities":{},"progressToken":7}"#;

    #[test]
    fn raw_values_are_not_scanned_again() {
        let raw = handed_over(r#"{"a":[1,"b"]}"#).expect("serde_json takes a handed-over value");
        assert_eq!(raw.get(), r#"{"a":[1,"b"]}"#);
    }

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

        use super::super::super::read::same_as_two_passes as same;

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
            fn a_string_ends_where_a_byte_by_byte_search_says(
                bytes in prop::collection::vec(prop_oneof![
                    Just(b'"'), Just(b'\\'), 0u8..0x20, 0x20u8..0x80, 0x80u8..=0xff,
                    Just(b'a'), Just(b'a'), Just(b'a'), Just(b'a'),
                ], 0..40),
            ) {
                let naive = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
                prop_assert_eq!(super::super::special(&bytes), naive);
            }

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
