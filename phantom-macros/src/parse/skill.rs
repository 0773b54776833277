//! `#[skill("skill://<prefix>/<name>")]`: a skill's directory URI, in the resource template
//! grammar, whose last segment is the skill's name.

use phantom_uri::Template;
use proc_macro2::Span;
use syn::{Attribute, Block, Expr, ImplItemFn, LitStr, Stmt};

use super::Marker;
use super::handler::handler;
use crate::ctxt::Ctxt;
use crate::model::{Item, Resource};

const HELP: &str = "help: write `#[skill(\"skill://<prefix>/<name>\")]`, e.g. `#[skill(\"skill://studies/<id>/study-review\")]`";

/// Parses a `#[skill]` method into the resource shape it shares (a template and a handler whose
/// parameters are URI parameters or context); `None` when it has no usable URI.
pub(super) fn parse(
    cx: &Ctxt,
    attr: &Attribute,
    f: &mut ImplItemFn,
    krate: &syn::Path,
) -> Option<Resource> {
    let handler = handler(cx, Marker::Skill, f);
    let lit = match &attr.meta {
        syn::Meta::List(list) => match syn::parse2::<LitStr>(list.tokens.clone()) {
            Ok(lit) => lit,
            Err(_) => {
                cx.error_spanned_by(
                    &list.tokens,
                    format!("`#[skill]` takes one string: the skill's URI\n       {HELP}"),
                );
                return None;
            }
        },
        _ => {
            cx.error_spanned_by(
                attr,
                format!("`#[skill]` needs the skill's URI\n       {HELP}"),
            );
            return None;
        }
    };
    let mut skill = Resource {
        item: Item::new(handler),
        lit: LitStr::new("", Span::call_site()),
        template: None,
        mime_type: None,
        size: None,
        app: crate::model::AppKeys::default(),
        embedded: embedded(&f.block, krate),
    };
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
