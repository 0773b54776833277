//! `#[arg(...)]` on a tool or prompt argument.

use syn::Attribute;

use super::keys::{Keys, key_table, lit_str};
use crate::ctxt::Ctxt;
use crate::model::Param;

pub(super) const KEYS: Keys<Param> = key_table!("arg" for Param {
    "description" => |p, m| p.description = Some(lit_str(m)?),
    "rename" => |p, m| p.rename = Some(lit_str(m)?),
    "header" => |p, m| p.header = Some(lit_str(m)?),
});

/// Reads `#[arg(...)]` into the parameter.
pub(super) fn parse(cx: &Ctxt, attr: &Attribute, param: &mut Param) {
    KEYS.parse_attr(cx, attr, param);
}
