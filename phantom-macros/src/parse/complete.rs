//! `#[complete(with = "Self::f")]` on a prompt argument or a resource parameter.

use quote::ToTokens;
use syn::{Attribute, ExprPath};

use super::keys::{Keys, expected, key_table, lit_str};
use crate::ctxt::Ctxt;
use crate::model::Param;

const HELP: &str = "write `#[complete(with = \"Self::ids\")]` where `async fn ids(&self, value: &str, cx: &CompleteContext<'_>) -> Vec<String>`";

pub(super) const KEYS: Keys<Param> = key_table!("complete" for Param {
    "with" => |p, m| p.complete = Some(with(m)?),
});

/// `with = "path::to::f"`
fn with(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<ExprPath> {
    let lit = lit_str(meta).map_err(|e| expected(meta, &e, "a string literal", "\"Self::ids\""))?;
    lit.parse::<ExprPath>().map_err(|_| {
        syn::Error::new(
            lit.span(),
            format!(
                "`with` must name a function, found `{}`\n       help: {HELP}",
                lit.value()
            ),
        )
    })
}

/// Reads `#[complete(...)]` into the parameter.
pub(super) fn parse(cx: &Ctxt, attr: &Attribute, param: &mut Param) {
    param.complete_attr = Some(attr.to_token_stream());
    // `#[complete]` alone, or a list whose keys were all understood yet name no function.
    let reported = matches!(attr.meta, syn::Meta::List(_)) && !KEYS.parse_attr(cx, attr, param);
    if param.complete.is_none() && !reported {
        cx.error_spanned_by(
            attr,
            format!("`#[complete]` needs a completion function\n       help: {HELP}"),
        );
    }
}
