//! `#[mcp_router(...)]`: the server's identity.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;

use super::keys::{Keys, duration_ms, expected, icons, key_table, lit_str};
use crate::ctxt::Ctxt;
use crate::model::RouterAttrs;

pub(super) const KEYS: Keys<RouterAttrs> = key_table!("mcp_router" for RouterAttrs {
    "name" => |a, m| a.name = Some(lit_str(m)?),
    "version" => |a, m| a.version = Some(lit_str(m)?),
    "title" => |a, m| a.title = Some(lit_str(m)?),
    "instructions" => |a, m| a.instructions = Some(lit_str(m)?),
    "icons" => |a, m| a.icons = icons(m)?,
    "website_url" => |a, m| a.website_url = Some(lit_str(m)?),
    "crate" => |a, m| a.krate = Some(krate(m)?),
    "tool_timeout" => |a, m| a.tool_timeout_ms = Some(duration_ms(m)?),
});

/// `crate = "path::to::phantom"`
fn krate(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::Path> {
    let lit = lit_str(meta)?;
    lit.parse()
        .map_err(|e| expected(meta, &e, "the path of the phantom crate", "\"my_phantom\""))
}

/// Parses the arguments of `#[mcp_router(...)]`.
pub(crate) fn attrs(cx: &Ctxt, args: TokenStream) -> RouterAttrs {
    let mut attrs = RouterAttrs::default();
    let parser = syn::meta::parser(|meta| KEYS.parse(cx, &mut attrs, &meta).map(drop));
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(e);
    }
    attrs
}
