//! What a request names — the tool or prompt (`params.name`), the resource (`params.uri`), the
//! task (`params.taskId`) — decoded once, where its params are read, and handed to every step
//! after: the HTTP header checks, the middleware's `Call`, telemetry, task escalation and the
//! rooms. JSON may spell one string many ways (`"w\u0069pe"` is `"wipe"`); no later step decodes
//! these members again from text, so none can read them differently.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::jsonrpc::raw_str;

/// A request's named target, unescaped (borrowed from the body when there was nothing to
/// unescape). A member that is absent, `null` or not a string is `None`: the room that needs it
/// then reads its params for the exact error.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Target<'a> {
    name: Option<Cow<'a, str>>,
    uri: Option<Cow<'a, str>>,
    task_id: Option<Cow<'a, str>>,
}

/// One of the members a [`Target`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TargetMember {
    Name,
    Uri,
    TaskId,
}

impl<'a> Target<'a> {
    /// No target (a request made by phantom itself, such as a task's run).
    pub(crate) const NONE: &'static Target<'static> = &Target {
        name: None,
        uri: None,
        task_id: None,
    };

    /// Sets `member` from its value as sent: the one place these are decoded.
    #[inline]
    pub(crate) fn put(&mut self, member: TargetMember, raw: Option<&'a RawValue>) {
        *self.slot(member) = raw.and_then(raw_str);
    }

    /// Sets `member` to a string a reader found without escapes: its text is the string.
    #[inline]
    pub(crate) fn put_plain(&mut self, member: TargetMember, text: &'a str) {
        *self.slot(member) = Some(Cow::Borrowed(text));
    }

    #[inline]
    fn slot(&mut self, member: TargetMember) -> &mut Option<Cow<'a, str>> {
        match member {
            TargetMember::Name => &mut self.name,
            TargetMember::Uri => &mut self.uri,
            TargetMember::TaskId => &mut self.task_id,
        }
    }

    /// `params.name`, unescaped.
    pub(crate) fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// `params.uri`, unescaped.
    pub(crate) fn uri(&self) -> Option<&str> {
        self.uri.as_deref()
    }

    /// `params.taskId`, unescaped.
    pub(crate) fn task_id(&self) -> Option<&str> {
        self.task_id.as_deref()
    }

    /// What middleware is keyed by: the name, else the URI.
    pub(crate) fn named(&self) -> Option<&str> {
        self.name().or(self.uri())
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::{Target, TargetMember};

    fn raw(text: &str) -> &serde_json::value::RawValue {
        serde_json::from_str(text).expect("JSON")
    }

    #[test]
    fn a_member_is_unescaped_and_borrowed_when_plain() {
        let mut target = Target::default();
        target.put(TargetMember::Name, Some(raw(r#""w\u0069pe""#)));
        target.put(TargetMember::Uri, Some(raw(r#""esc:\/\/\/secret""#)));
        target.put(TargetMember::TaskId, Some(raw(r#""t-1""#)));
        assert_eq!(target.name(), Some("wipe"));
        assert_eq!(target.uri(), Some("esc:///secret"));
        assert!(matches!(target.task_id, Some(Cow::Borrowed("t-1"))));
        assert_eq!(target.named(), Some("wipe"));
        target.put(TargetMember::Name, Some(raw("5")));
        assert_eq!(target.name(), None);
        assert_eq!(target.named(), Some("esc:///secret"));
        target.put(TargetMember::Uri, None);
        assert_eq!(target.named(), None);
    }
}
