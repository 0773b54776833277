//! Lists as a session sees them: the paginated lists, their opaque cursors, and the allow-list
//! that applies to each.

use std::collections::HashSet;
use std::sync::Arc;

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

/// An entry added at run time to a list, known by its name.
pub(crate) trait Entry {
    fn name(&self) -> &str;
}

/// What runtime registration changed in one list: the entries added, the names (declared or
/// added) disabled, and the list's first page once something changed. Swapped in whole.
pub(crate) struct Added<E> {
    pub(crate) entries: Vec<Arc<E>>,
    /// Names (declared or added) that are disabled: unlisted and unreachable.
    pub(crate) disabled: HashSet<String>,
    /// The first page of the list without a cursor or an allow-list, once something changed.
    pub(crate) first_page: Option<String>,
}

impl<E> Default for Added<E> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            disabled: HashSet::new(),
            first_page: None,
        }
    }
}

impl<E> Clone for Added<E> {
    fn clone(&self) -> Self {
        Self {
            entries: self.entries.clone(),
            disabled: self.disabled.clone(),
            first_page: self.first_page.clone(),
        }
    }
}

impl<E: Entry> Added<E> {
    /// Whether the list differs from the declared one.
    pub(crate) fn changes(&self) -> bool {
        !self.entries.is_empty() || !self.disabled.is_empty()
    }

    /// The added entry named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<E>> {
        self.entries.iter().find(|a| a.name() == name)
    }
}

/// A room's table for one served instance: its declared entries (built once per type) and what
/// runtime registration added (`A`), swapped in whole.
pub(crate) struct Table<D: 'static, A> {
    pub(crate) declared: &'static D,
    pub(crate) added: arc_swap::ArcSwap<A>,
}

impl<D: 'static, A: Default> Table<D, A> {
    /// The table of a new instance: the declared entries, nothing added.
    pub(crate) fn new(declared: &'static D) -> Self {
        Self {
            declared,
            added: arc_swap::ArcSwap::default(),
        }
    }
}

/// An entry found in a list: declared, or added.
pub(crate) enum Found<D, E> {
    Declared(D),
    Added(Arc<E>),
}

/// The entry named `name` as a session finds it: `None` when the allow-list hides it, it is
/// disabled, or neither the added entries nor `declared` have it.
pub(crate) fn find<D, E: Entry>(
    allow: &Option<AllowList>,
    added: &Added<E>,
    name: &str,
    declared: impl FnOnce() -> Option<D>,
) -> Option<Found<D, E>> {
    if !allowed(allow, name) {
        return None;
    }
    if added.changes() {
        if added.disabled.contains(name) {
            return None;
        }
        if let Some(entry) = added.get(name) {
            return Some(Found::Added(Arc::clone(entry)));
        }
    }
    declared().map(Found::Declared)
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
