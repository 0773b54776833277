//! JSON read by hand, in one pass over its bytes, for the shapes phantom reads on every request
//! (a message's members, its params' head, a tool's arguments): keys without escapes matched
//! where they stand, values handed on as the text they span, everything checked as it goes to be
//! JSON as serde_json would find it.
//!
//! Each method answers `None` for what it does not take: an escape where a name or a decoded
//! string is read, a value of another type, nesting deeper than [`MAX_DEPTH`], and every error.
//! The caller then reads the text with serde_json instead, which gives the same result, or the
//! error to answer.

use std::borrow::Cow;

use serde_json::value::RawValue;

/// Deeper than this, the text is left to serde_json (whose own limit is 128).
const MAX_DEPTH: u32 = 100;

/// A position in the text. Every method leaves `at` after what it read, and answers `None` for
/// what the scan does not take.
pub(crate) struct Scan<'a> {
    pub(crate) text: &'a str,
    bytes: &'a [u8],
    /// Where the scan stands, in bytes.
    pub(crate) at: usize,
    /// The objects [`members`](Self::members) is inside of now, and the deepest nesting of
    /// arrays and objects met so far (as `nests_deeper_than` counts it).
    level: u32,
    deepest: u32,
}

/// What a value of the envelope is, by its first byte.
pub(crate) enum Kind {
    Null,
    String,
    Object,
    Other,
}

impl<'a> Scan<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            at: 0,
            level: 0,
            deepest: 0,
        }
    }

    /// The deepest nesting of arrays and objects the scan has met.
    pub(crate) fn deepest(&self) -> u32 {
        self.deepest
    }

    /// Whether only whitespace is left.
    #[inline]
    pub(crate) fn finished(&mut self) -> bool {
        self.ws();
        self.at == self.bytes.len()
    }

    /// A number, by JSON's grammar: its text.
    #[inline]
    pub(crate) fn number(&mut self) -> Option<&'a str> {
        let start = self.at;
        self.skip_number()?;
        self.text.get(start..self.at)
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, not taken.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<u8> {
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
    #[inline]
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    #[inline]
    pub(crate) fn kind(&mut self) -> Option<Kind> {
        Some(match self.peek()? {
            b'n' => Kind::Null,
            b'"' => Kind::String,
            b'{' => Kind::Object,
            _ => Kind::Other,
        })
    }

    /// A string without escapes, at its opening quote: its text.
    #[inline]
    pub(crate) fn plain_str(&mut self) -> Option<&'a str> {
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
    #[inline]
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

    #[inline]
    pub(crate) fn word(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// Any value: its text.
    #[inline]
    pub(crate) fn value(&mut self) -> Option<&'a RawValue> {
        self.ws();
        let start = self.at;
        self.skip_value()?;
        raw(self.text.get(start..self.at)?)
    }

    /// Any value, after whitespace. Arrays and objects are walked with a stack of one bit per
    /// open bracket (set for an object), not by recursion.
    pub(crate) fn skip_value(&mut self) -> Option<()> {
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
                    self.deepest = self.deepest.max(self.level + depth + 1);
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
    #[inline]
    fn key(&mut self) -> Option<()> {
        (self.peek()? == b'"').then_some(())?;
        self.skip_str()?;
        self.eat(b':')
    }

    /// A key read for its name (no escapes), and its colon.
    #[inline]
    fn name(&mut self) -> Option<&'a str> {
        (self.peek()? == b'"').then_some(())?;
        let name = self.plain_str()?;
        self.eat(b':')?;
        Some(name)
    }

    /// The members of an object, each handed to `member` with the scan at its value; `member`
    /// reads the value. `None` from `member` leaves the message to serde_json.
    #[inline]
    pub(crate) fn members(
        &mut self,
        mut member: impl FnMut(&mut Self, &'a str) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        self.level += 1;
        self.deepest = self.deepest.max(self.level);
        if self.peek()? == b'}' {
            self.at += 1;
            self.level -= 1;
            return Some(());
        }
        loop {
            let name = self.name()?;
            member(self, name)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    self.level -= 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string or `null` (`Option<Key>` as the other readings read `jsonrpc` and `method`).
    #[inline]
    pub(crate) fn opt_str(&mut self) -> Option<Option<Cow<'a, str>>> {
        match self.kind()? {
            Kind::Null => self.word(b"null").map(|()| None),
            Kind::String => self.plain_str().map(|s| Some(Cow::Borrowed(s))),
            _ => None,
        }
    }

    /// A value or `null` (`Option<&RawValue>`).
    #[inline]
    pub(crate) fn opt_value(&mut self) -> Option<Option<&'a RawValue>> {
        match self.kind()? {
            Kind::Null => self.word(b"null").map(|()| None),
            _ => self.value().map(Some),
        }
    }
}

/// Where the first byte a string ends or changes at is: a quote, a backslash, or a control
/// character (which JSON wants escaped). Eight bytes at a time: in each word, a byte is flagged
/// where it is zero after an exclusive or with `"` or `\\`, or where subtracting `0x20` borrows.
/// The lowest flag is always a byte that matches (a false flag only appears above a true one).
#[inline]
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
    use proptest::prelude::*;

    use super::{Scan, handed_over, special};

    #[test]
    fn raw_values_are_not_scanned_again() {
        let raw = handed_over(r#"{"a":[1,"b"]}"#).expect("serde_json takes a handed-over value");
        assert_eq!(raw.get(), r#"{"a":[1,"b"]}"#);
    }

    #[test]
    fn skipped_values_are_json_as_serde_json_finds_it() {
        for text in [
            r#"{"a":[1,-2.5e+3,true,false,null,{},[],{"k\t":[[{}]]}],"b":"\u00e9\n"}"#,
            " [ 1 , { \"a\" : \"b\" } ] ",
            r#""""#,
            "0",
            "-0.0e-0",
            r#"["a","b":1]"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            "[01]",
            "[1.]",
            "[-]",
            "[1e]",
            r#"["\x"]"#,
            r#"["\u12"]"#,
            "[\"\t\"]",
            "[nul]",
            "[1}",
            "{\"a\":1",
            "",
        ] {
            let mut at = Scan::new(text);
            let scanned = at.value().is_some() && at.finished();
            let serde = serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
            assert_eq!(scanned, serde, "{text}");
        }
        let deep = format!("{}1{}", "[".repeat(120), "]".repeat(120));
        assert!(Scan::new(&deep).value().is_none());
    }

    #[test]
    fn the_deepest_nesting_is_counted_as_the_bracket_count_counts_it() {
        for (text, deepest) in [
            ("1", 0),
            ("[]", 1),
            (r#"{"a":[]}"#, 2),
            (r#"{"a":[1,{"b":{}}],"c":"[[[["}"#, 4),
            (r#"[[[[1]]],[2]]"#, 4),
        ] {
            let mut at = Scan::new(text);
            assert!(at.value().is_some(), "{text}");
            assert_eq!(at.deepest(), deepest, "{text}");
            let limit = deepest as usize;
            assert!(
                !crate::protocol::nests_deeper_than(text.as_bytes(), limit),
                "{text}"
            );
            if let Some(less) = limit.checked_sub(1) {
                assert!(
                    crate::protocol::nests_deeper_than(text.as_bytes(), less),
                    "{text}"
                );
            }
        }
        let mut at = Scan::new(r#"{"a":{"b":[[]]},"c":{}}"#);
        at.members(|at, _| at.skip_value()).expect("an object");
        assert_eq!(at.deepest(), 4);
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
            prop_assert_eq!(special(&bytes), naive);
        }
    }
}
