//! Lists as a session sees them: the paginated lists, their opaque cursors, and the allow-list
//! that applies to each.

use base64::Engine as _;
use serde_json::json;

use super::{AllowList, Session, allowed};
use crate::error::Error;
use crate::kernel::Page;

/// Items per page when [`Config::page_size`](crate::Config::page_size) is not set.
pub(crate) const DEFAULT_PAGE_SIZE: usize = 100;

/// The lists a server serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    ResourceTemplates,
    Resources,
    /// `skills/list` (paged over skill routes; never cached, never changed at run time).
    Skills,
}

impl ListKind {
    /// Lists whose first page a dispatcher serializes once.
    pub(crate) const CACHED: [Self; 3] = [Self::Tools, Self::Prompts, Self::ResourceTemplates];

    /// The result member holding the items.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Prompts => "prompts",
            Self::ResourceTemplates => "resourceTemplates",
            Self::Resources => "resources",
            Self::Skills => "skills",
        }
    }

    /// The tag a cursor of this list starts with, so one list's cursor is rejected by another.
    pub(crate) fn tag(self) -> &'static str {
        match self {
            Self::Tools => "t",
            Self::Prompts => "p",
            Self::ResourceTemplates => "x",
            Self::Resources => "r",
            Self::Skills => "s",
        }
    }

    pub(crate) fn allow_list(self, session: &Session) -> &Option<AllowList> {
        match self {
            Self::Tools => &session.allowed_tools,
            Self::Prompts => &session.allowed_prompts,
            Self::ResourceTemplates | Self::Resources => &session.allowed_resource_templates,
            Self::Skills => &session.allowed_skills,
        }
    }
}

/// Pages `items` (in declaration order) for a session: skips names the allow-list excludes, starts
/// at the cursor's offset, and returns the cursor of the next page.
pub(crate) fn paginate<'a, T>(
    kind: ListKind,
    items: impl Iterator<Item = (&'a str, T)>,
    allow: &Option<AllowList>,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<Page<T>, Error> {
    let start = match cursor {
        None => 0,
        Some(c) => decode_cursor(kind.tag(), c).ok_or_else(|| {
            Error::invalid_params("invalid cursor").with_data(json!({ "cursor": c }))
        })?,
    };
    let mut out = Vec::new();
    let mut next = None;
    for (offset, (name, item)) in items.enumerate().skip(start) {
        if !allowed(allow, name) {
            continue;
        }
        if out.len() == page_size {
            next = Some(encode_cursor(kind.tag(), offset));
            break;
        }
        out.push(item);
    }
    Ok(Page {
        items: out,
        next_cursor: next,
    })
}

fn encode_cursor(kind: &str, offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{kind}{offset}"))
}

pub(crate) fn decode_cursor(kind: &str, cursor: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    text.strip_prefix(kind)?.parse().ok().filter(|&n| n > 0)
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::{decode_cursor, encode_cursor};

    proptest! {
        #[test]
        fn a_cursor_decodes_to_its_offset_for_its_own_list_only(offset in 1usize.., kind in "[a-z]") {
            let cursor = encode_cursor(&kind, offset);
            prop_assert_eq!(decode_cursor(&kind, &cursor), Some(offset));
            let other = if kind == "t" { "p" } else { "t" };
            prop_assert_eq!(decode_cursor(other, &cursor), None);
        }

        #[test]
        fn any_text_decodes_to_an_offset_or_nothing(text in "\\PC{0,64}") {
            if let Some(n) = decode_cursor("t", &text) {
                prop_assert!(n > 0);
            }
        }
    }
}
