//! `#[resource("template", ...)]`

use proc_macro2::{Span, TokenStream};
use syn::{Attribute, ImplItemFn, LitStr};

use super::Marker;
use super::handler::handler;
use super::keys::{Keys, flag, key_table, lit_int, lit_str, string_list};
use crate::ctxt::Ctxt;
use crate::model::{AppKeys, Item, Resource};
use phantom_uri::Template;

pub(super) const KEYS: Keys<Resource> = key_table!("resource" for item Resource {
    "mime_type" => |r, m| r.mime_type = Some(lit_str(m)?),
    "size" => |r, m| r.size = Some(lit_int(m)?),
    "csp" => |r, m| CSP_KEYS.parse_nested(r.app.written(m), m)?,
    "permissions" => |r, m| r.app.written(m).permissions = string_list(m, "[\"clipboard_write\"]")?,
    "domain" => |r, m| r.app.written(m).domain = Some(lit_str(m)?),
    "prefers_border" => |r, m| r.app.written(m).prefers_border = Some(flag(m)?),
});

/// `csp(connect = [...], resources = [...], frames = [...], base_uri = [...])` of a `ui://`
/// resource: the origins its view may reach.
pub(super) const CSP_KEYS: Keys<AppKeys> = key_table!("resource(csp)" for AppKeys {
    "connect" => |a, m| a.connect = string_list(m, "[\"https://api.example.com\"]")?,
    "resources" => |a, m| a.resources = string_list(m, "[\"https://cdn.example.com\"]")?,
    "frames" => |a, m| a.frames = string_list(m, "[\"https://player.example.com\"]")?,
    "base_uri" => |a, m| a.base_uri = string_list(m, "[\"https://example.com\"]")?,
});

impl AppKeys {
    /// The app keys, noting where the first was written.
    fn written(&mut self, meta: &syn::meta::ParseNestedMeta<'_>) -> &mut Self {
        self.first
            .get_or_insert_with(|| syn::spanned::Spanned::span(&meta.path));
        self
    }
}

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
        app: AppKeys::default(),
        embedded: None,
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
