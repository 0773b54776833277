//! `#[skill("skill://<prefix>/<name>")]`: a skill's directory URI, in the resource template
//! grammar, whose last segment is the skill's name.

use phantom_uri::Template;
use proc_macro2::Span;
use syn::{Attribute, Block, Expr, ImplItemFn, LitStr, Stmt};

use super::Marker;
use super::handler::handler;
use super::keys::{Keys, key_table};
use crate::ctxt::Ctxt;
use crate::model::{Item, Resource};

const HELP: &str = "help: write `#[skill(\"skill://<prefix>/<name>\")]`, e.g. `#[skill(\"skill://studies/<id>/study-review\")]`";

/// What a `#[skill]` takes after its URI: the scopes a caller's token must grant.
pub(super) const KEYS: Keys<Vec<LitStr>> = key_table!("skill" for Vec<LitStr> {
    "scopes" => |s, m| *s = super::keys::scopes(m)?,
});

/// Parses a `#[skill]` method into the resource shape it shares (a template and a handler whose
/// parameters are URI parameters or context); `None` when it has no usable URI.
pub(super) fn parse(
    cx: &Ctxt,
    attr: &Attribute,
    f: &mut ImplItemFn,
    krate: &syn::Path,
) -> Option<Resource> {
    let handler = handler(cx, Marker::Skill, f);
    let syn::Meta::List(list) = &attr.meta else {
        cx.error_spanned_by(
            attr,
            format!("`#[skill]` needs the skill's URI\n       {HELP}"),
        );
        return None;
    };
    let mut lit: Option<LitStr> = None;
    let mut scopes = Vec::new();
    let parser = |input: syn::parse::ParseStream<'_>| -> syn::Result<()> {
        lit = Some(input.parse()?);
        if input.is_empty() {
            return Ok(());
        }
        input.parse::<syn::Token![,]>()?;
        let rest: proc_macro2::TokenStream = input.parse()?;
        let keys = syn::meta::parser(|meta| KEYS.parse(cx, &mut scopes, &meta).map(drop));
        syn::parse::Parser::parse2(keys, rest)
    };
    let parsed = syn::parse::Parser::parse2(parser, list.tokens.clone());
    let Some(lit) = lit else {
        cx.error_spanned_by(
            &list.tokens,
            format!(
                "`#[skill]` takes the skill's URI, then `scopes = [\"…\"]` if any\n       {HELP}"
            ),
        );
        return None;
    };
    if let Err(e) = parsed {
        cx.syn_error(e);
    }
    let mut skill = Resource {
        item: Item::new(handler),
        lit: LitStr::new("", Span::call_site()),
        template: None,
        mime_type: None,
        size: None,
        app: crate::model::AppKeys::default(),
        embedded: embedded(&f.block, krate),
    };
    skill.item.scopes = scopes;
    match Template::parse(&lit.value()) {
        Ok(t) => match phantom_uri::skill::route_name(&t) {
            Ok(name) => {
                skill.item.name = name;
                skill.item.name_span = lit.span();
                skill.template = Some(t);
            }
            Err(e) => cx.error_at(lit.span(), e),
        },
        Err(e) => cx.error_at(
            lit.span(),
            format!("{}\n       help: {}", e.message(), e.help()),
        ),
    }
    skill.lit = lit;
    Some(skill)
}

/// The directory of a body that is only `embed_skill!("dir")`, or `Some(embed_skill!("dir"))`,
/// with the macro named `embed_skill`, `phantom::embed_skill` or `<crate>::embed_skill`.
fn embedded(block: &Block, krate: &syn::Path) -> Option<LitStr> {
    let [stmt] = block.stmts.as_slice() else {
        return None;
    };
    let mac = match stmt {
        Stmt::Macro(m) if m.semi_token.is_none() => &m.mac,
        Stmt::Expr(expr, None) => embed_call(expr)?,
        _ => return None,
    };
    let named =
        mac.path.segments.last()?.ident == "embed_skill" && super::of_phantom(&mac.path, krate);
    if !named {
        return None;
    }
    syn::parse2(mac.tokens.clone()).ok()
}

/// The macro of `embed_skill!(…)` or `Some(embed_skill!(…))`.
fn embed_call(expr: &Expr) -> Option<&syn::Macro> {
    match expr {
        Expr::Macro(m) => Some(&m.mac),
        Expr::Call(call) if call.args.len() == 1 => match (&*call.func, call.args.first()?) {
            (Expr::Path(f), Expr::Macro(m)) if f.qself.is_none() && f.path.is_ident("Some") => {
                Some(&m.mac)
            }
            _ => None,
        },
        _ => None,
    }
}
