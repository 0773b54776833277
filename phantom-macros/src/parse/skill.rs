//! `#[skill("skill://<prefix>/<name>")]`: a skill's directory URI, in the resource template
//! grammar, whose last segment is the skill's name.

use phantom_uri::{Segment, Template};
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
    };
    match Template::parse(&lit.value()) {
        Ok(t) => match check(&t) {
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

/// The skill's name, or what is wrong with its URI.
fn check(t: &Template) -> Result<String, String> {
    if t.scheme != "skill" {
        return Err(format!(
            "a skill's URI has the scheme `skill`, found `{}`\n       {HELP}",
            t.scheme
        ));
    }
    if !matches!(t.segments.first(), Some(Segment::Literal(_))) {
        return Err(format!(
            "the first segment of a skill's URI is a literal prefix, not a parameter\n       {HELP}"
        ));
    }
    if t.segments.iter().any(|s| matches!(s, Segment::Rest(_))) {
        return Err(format!(
            "a skill's URI cannot have a `<rest..>` parameter: the files of the skill follow its last segment\n       {HELP}"
        ));
    }
    if t.segments.len() < 2 {
        return Err(format!(
            "a skill's URI is a prefix, then the skill's name: `skill://<prefix>/<name>`\n       {HELP}"
        ));
    }
    let Some(Segment::Literal(name)) = t.segments.last() else {
        return Err(format!(
            "the last segment of a skill's URI is the skill's name, a literal, not a parameter\n       {HELP}"
        ));
    };
    if !phantom_uri::skill::valid_name(name) {
        return Err(format!(
            "`{name}` is not a skill name: names are 1 to 64 lowercase letters, digits and single hyphens, neither first nor last\n       help: write e.g. `{}`",
            suggest(name)
        ));
    }
    Ok(name.clone())
}

/// `name` made a valid skill name, for the help text.
fn suggest(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = match c {
            'A'..='Z' => c.to_ascii_lowercase(),
            'a'..='z' | '0'..='9' => c,
            _ => '-',
        };
        if !(c == '-' && (out.is_empty() || out.ends_with('-'))) {
            out.push(c);
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() {
        "my-skill".into()
    } else {
        out.chars().take(64).collect()
    }
}
