//! `#[skill("skill://<prefix>/<name>")]`: a skill's directory URI, in the resource template
//! grammar, whose last segment is the skill's name.

use phantom_uri::Template;
use proc_macro2::Span;
use syn::{Attribute, ImplItemFn, LitStr};

use super::Marker;
use super::handler::handler;
use crate::ctxt::Ctxt;
use crate::model::{Item, Resource};

const HELP: &str = "help: write `#[skill(\"skill://<prefix>/<name>\")]`, e.g. `#[skill(\"skill://studies/<id>/study-review\")]`";

/// Parses a `#[skill]` method into the resource shape it shares (a template and a handler whose
/// parameters are URI parameters or context); `None` when it has no usable URI.
pub(super) fn parse(cx: &Ctxt, attr: &Attribute, f: &mut ImplItemFn) -> Option<Resource> {
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
