//! `#[prompt(...)]`

use syn::{Attribute, ImplItemFn};

use super::Marker;
use super::handler::handler;
use super::keys::{Keys, icons, key_table, lit_str, name};
use crate::ctxt::Ctxt;
use crate::model::Prompt;

const KEYS: Keys<Prompt> = key_table!("prompt" for Prompt {
    "name" => |p, m| (p.name, p.name_span) = name(m)?,
    "title" => |p, m| p.title = Some(lit_str(m)?),
    "description" => |p, m| p.description = Some(lit_str(m)?),
    "icons" => |p, m| p.icons = icons(m)?,
});

/// Parses a `#[prompt]` method.
pub(super) fn parse(cx: &Ctxt, attr: &Attribute, f: &mut ImplItemFn) -> Prompt {
    let handler = handler(cx, Marker::Prompt, f);
    let mut p = Prompt {
        name: handler.ident.to_string(),
        name_span: handler.ident.span(),
        handler,
        title: None,
        description: None,
        icons: Vec::new(),
    };
    if !matches!(attr.meta, syn::Meta::Path(_)) {
        KEYS.parse_attr(cx, attr, &mut p);
    }
    p
}
