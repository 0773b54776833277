//! `#[prompt(...)]`

use syn::{Attribute, ImplItemFn};

use super::Marker;
use super::handler::handler;
use super::keys::{Keys, key_table};
use crate::ctxt::Ctxt;
use crate::model::{Item, Prompt};

pub(super) const KEYS: Keys<Prompt> = key_table!("prompt" for item Prompt {});

/// Parses a `#[prompt]` method.
pub(super) fn parse(cx: &Ctxt, attr: &Attribute, f: &mut ImplItemFn) -> Prompt {
    let mut p = Prompt {
        item: Item::new(handler(cx, Marker::Prompt, f)),
    };
    if !matches!(attr.meta, syn::Meta::Path(_)) {
        KEYS.parse_attr(cx, attr, &mut p);
    }
    p
}
