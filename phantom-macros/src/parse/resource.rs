//! `#[resource("template", ...)]`

use proc_macro2::{Span, TokenStream};
use syn::{Attribute, ImplItemFn, LitStr};

use super::Marker;
use super::handler::handler;
use super::keys::{Keys, key_table, lit_int, lit_str};
use crate::ctxt::Ctxt;
use crate::model::{Item, Resource};
use phantom_uri::Template;

const KEYS: Keys<Resource> = key_table!("resource" for item Resource {
    "mime_type" => |r, m| r.mime_type = Some(lit_str(m)?),
    "size" => |r, m| r.size = Some(lit_int(m)?),
});

const HELP: &str = "help: write `#[resource(\"myapp:///items/<id>\")]`";

/// Parses a `#[resource]` method; `None` when it has no usable URI template.
pub(super) fn parse(cx: &Ctxt, attr: &Attribute, f: &mut ImplItemFn) -> Option<Resource> {
    let handler = handler(cx, Marker::Resource, f);
    let syn::Meta::List(list) = &attr.meta else {
        cx.error_spanned_by(
            attr,
            format!("`#[resource]` needs a URI template\n       {HELP}"),
        );
        return None;
    };
    let mut lit: Option<LitStr> = None;
    let mut r = Resource {
        item: Item::new(handler),
        lit: LitStr::new("", Span::call_site()),
        template: None,
        mime_type: None,
        size: None,
    };
    let parser = |input: syn::parse::ParseStream<'_>| -> syn::Result<()> {
        if input.peek(LitStr) {
            lit = Some(input.parse()?);
            if input.is_empty() {
                return Ok(());
            }
            input.parse::<syn::Token![,]>()?;
        }
        let rest: TokenStream = input.parse()?;
        let keys = syn::meta::parser(|meta| KEYS.parse(cx, &mut r, &meta).map(drop));
        syn::parse::Parser::parse2(keys, rest)
    };
    if let Err(e) = syn::parse::Parser::parse2(parser, list.tokens.clone()) {
        cx.syn_error(e);
    }
    let Some(lit) = lit else {
        cx.error_spanned_by(
            attr,
            format!("`#[resource]` needs a URI template as its first argument\n       {HELP}"),
        );
        return None;
    };
    match Template::parse(&lit.value()) {
        Ok(t) if t.scheme == "skill" => cx.error_at(
            lit.span(),
            "the `skill://` scheme belongs to skills
       help: declare a skill with `#[skill(\"skill://<prefix>/<name>\")]`; its files are read as resources",
        ),
        Ok(t) => r.template = Some(t),
        Err(e) => cx.error_at(
            lit.span(),
            format!("{}\n       help: {}", e.message(), e.help()),
        ),
    }
    r.lit = lit;
    Some(r)
}
