//! `#[tool(...)]`

use syn::spanned::Spanned;
use syn::{Attribute, ImplItemFn, Lit, LitStr};

use super::Marker;
use super::handler::handler;
use super::keys::{Keys, flag, icons, key_table};
use crate::ctxt::Ctxt;
use crate::model::{Item, Tool};

const KEYS: Keys<Tool> = key_table!("tool" for item Tool {
    "read_only" => |t, m| t.read_only = flag(m)?,
    "destructive" => |t, m| t.destructive = Some(flag(m)?),
    "idempotent" => |t, m| t.idempotent = flag(m)?,
    "open_world" => |t, m| t.open_world = Some(flag(m)?),
    "meta" => |t, m| t.meta = meta(m)?,
    "requires" => |t, m| t.requires = requires(m)?,
});

/// `requires = ["sampling", "elicitation.url"]`
fn requires(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    icons(meta).map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected a list of capability names for `requires`\n       help: write `requires = [\"sampling\", \"elicitation.url\"]`",
        )
    })
}

/// `meta(owner = "team", weight = 2)`
fn meta(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Vec<(LitStr, Lit)>> {
    let mut entries = Vec::new();
    meta.parse_nested_meta(|entry| {
        let key = entry
            .path
            .get_ident()
            .map(ToString::to_string)
            .ok_or_else(|| {
                entry.error(
                    "`meta` keys are identifiers or string literals: `meta(owner = \"team\")`",
                )
            })?;
        let lit: Lit = entry.value()?.parse()?;
        match lit {
            Lit::Str(_) | Lit::Int(_) | Lit::Float(_) | Lit::Bool(_) => {}
            ref other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "`meta` values are string, integer, float or bool literals",
                ));
            }
        }
        entries.push((LitStr::new(&key, entry.path.span()), lit));
        Ok(())
    })?;
    Ok(entries)
}

/// Parses a `#[tool]` method.
pub(super) fn parse(cx: &Ctxt, attr: &Attribute, f: &mut ImplItemFn) -> Tool {
    let mut t = Tool {
        item: Item::new(handler(cx, Marker::Tool, f)),
        read_only: false,
        destructive: None,
        idempotent: false,
        open_world: None,
        meta: Vec::new(),
        requires: Vec::new(),
    };
    if !matches!(attr.meta, syn::Meta::Path(_)) {
        KEYS.parse_attr(cx, attr, &mut t);
    }
    t
}
