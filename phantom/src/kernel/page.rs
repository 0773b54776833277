//! One page of a list, and the cursor of the next.

use serde::{Deserialize, Serialize};

/// An opaque pagination cursor, as the client sent it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cursor(pub String);

/// One page of a list: what a list callback returns, and what a
/// client's list calls answer (feature `client`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    /// The items.
    pub items: Vec<T>,
    /// The cursor of the next page; `None` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

impl<T> Page<T> {
    /// A last page.
    pub fn last(items: Vec<T>) -> Self {
        Self {
            items,
            next_cursor: None,
        }
    }
}
