//! Checks of resources and skills: templates that collide, URI parameters ↔ arguments,
//! `#[complete]` on parameters that are not in the template, the types of `<rest..>` parameters,
//! and the names of embedded skills.

use phantom_uri::Segment;

use crate::ctxt::{Ctxt, closest};
use crate::model::{Resource, Router};

pub(super) fn resources(cx: &Ctxt, router: &Router) {
    templates(cx, &router.resources, "resource template");
    templates(cx, &router.skills, "skill URI");
    embedded_names(cx, &router.skills);
    tail_types(cx, &router.resources);
}

/// Types that parse one value and never a `/`: a `<rest..>` parameter of one of these could
/// only match a tail of one segment, which `<name>` says.
const SCALARS: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char",
];

/// `<rest..>` parameters take the rest of the URI (`a/b/c`, percent-decoded) as one string: an
/// argument of a scalar type (`u64`, `bool`, …) would fail on every tail of several segments.
fn tail_types(cx: &Ctxt, resources: &[Resource]) {
    for res in resources {
        let Some(template) = &res.template else {
            continue;
        };
        let Some(Segment::Rest(name)) = template.segments.last() else {
            continue;
        };
        let Some(p) = res.item.handler.params.iter().find(|p| p.ident == name) else {
            continue;
        };
        let Some(scalar) = scalar(&p.ty) else {
            continue;
        };
        cx.error_spanned_by(
            &p.ty,
            format!(
                "tail parameter `<{name}..>` cannot be a `{scalar}`: it takes the rest of the URI, one or more segments (`a/b/c`), and a `{scalar}` never parses a `/`\n       help: take `{name}: String` (or `PathBuf`, or your own `FromStr` type), or write `<{name}>` to match one segment"
            ),
        );
    }
}

/// The name of a scalar type written `u64`, `std::primitive::u64` or `core::primitive::u64`.
fn scalar(ty: &syn::Type) -> Option<&'static str> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let segments: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let last = match segments.as_slice() {
        [last] if p.path.leading_colon.is_none() => last,
        [root, primitive, last]
            if (root == "std" || root == "core") && primitive == "primitive" =>
        {
            last
        }
        _ => return None,
    };
    if p.path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    SCALARS.iter().copied().find(|s| s == last)
}

/// A skill whose body is `embed_skill!("dir")`: the skill's name (its directory's, and the
/// `name` of its SKILL.md) must be the last segment of its URI, which the runtime checks on
/// every read. Read here as `embed_skill!` reads it; when `embed_skill!` will fail on its own,
/// nothing is said.
fn embedded_names(cx: &Ctxt, skills: &[Resource]) {
    for skill in skills {
        let (Some(dir), Some(_)) = (&skill.embedded, &skill.template) else {
            continue;
        };
        let given = dir.value();
        let Some(embedded) = crate::embed::embedded_name(&given) else {
            continue;
        };
        let route = &skill.item.name;
        if embedded == *route {
            continue;
        }
        let uri = skill.lit.value();
        let fixed = match uri.rsplit_once('/') {
            Some((prefix, _)) => format!("{prefix}/{embedded}"),
            None => uri.clone(),
        };
        cx.error_at(
            skill.lit.span(),
            format!(
                "the skill embedded from `{given}` is named `{embedded}`, but the URI `{uri}` names it `{route}`\n       help: end the URI with the skill's name: `#[skill(\"{fixed}\")]`; or rename the skill to `{route}`: its directory and the `name` in its SKILL.md"
            ),
        );
    }
}

/// The checks resources and skills share: no two templates match the same URIs, and every URI
/// parameter has its argument.
fn templates(cx: &Ctxt, items: &[Resource], kind: &str) {
    let parsed: Vec<_> = items
        .iter()
        .filter_map(|r| r.template.as_ref().map(|t| (r, t)))
        .collect();
    for (i, (res, template)) in parsed.iter().enumerate() {
        for (other, other_t) in &parsed[..i] {
            if template == other_t {
                cx.error_at(
                    res.lit.span(),
                    format!(
                        "duplicate {kind} `{}`: `{}` already serves it\n       help: remove one of the two handlers",
                        res.lit.value(),
                        other.item.handler.ident
                    ),
                );
            } else if template.collides_with(other_t) {
                cx.error_at(
                    res.lit.span(),
                    format!(
                        "{kind} `{}` collides with `{}` of `{}`: both match the same URIs\n       help: make one segment a literal, or merge the two handlers",
                        res.lit.value(),
                        other.lit.value(),
                        other.item.handler.ident
                    ),
                );
            }
        }
        let params: Vec<&str> = template.params().collect();
        let args: Vec<String> = res
            .item
            .handler
            .params
            .iter()
            .map(|p| p.ident.to_string())
            .collect();
        for param in &params {
            if args.iter().any(|a| a == param) {
                continue;
            }
            let unmatched = args
                .iter()
                .filter(|a| !params.contains(&a.as_str()))
                .map(String::as_str);
            let help = match closest(param, unmatched) {
                Some(arg) => format!(
                    "rename the argument `{arg}` to `{param}`, or the parameter to `<{arg}>`"
                ),
                None => format!(
                    "add an argument `{param}: T` where `T: phantom::resources::FromUriParam`, or remove `<{param}>`"
                ),
            };
            cx.error_at(
                res.lit.span(),
                format!("URI parameter `<{param}>` has no matching argument in `{}`\n       help: {help}", res.item.handler.ident),
            );
        }
        for p in &res.item.handler.params {
            let Some(attr) = &p.complete_attr else {
                continue;
            };
            if !params.contains(&p.ident.to_string().as_str()) {
                cx.error_spanned_by(
                    attr,
                    format!(
                        "`#[complete]` on `{}`, which is not a URI parameter of `{}`\n       help: remove `#[complete(...)]`; only `<param>` segments are completed",
                        p.ident,
                        res.lit.value()
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ctxt::Ctxt;
    use crate::model::RouterAttrs;

    /// The messages of the errors parsing and validating `item` records.
    fn errors(mut item: syn::ItemImpl) -> Vec<String> {
        let cx = Ctxt::new();
        let router = crate::parse::router(&cx, RouterAttrs::default(), &mut item);
        crate::validate::router(&cx, &router);
        match cx.check() {
            Ok(()) => Vec::new(),
            Err(errors) => errors.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    /// The ui case `skill/fail/embedded_name_differs.rs` reads its fixture relative to trybuild's
    /// project under the target directory; here the same fixture is read relative to this
    /// crate's Cargo.toml, wherever the target directory is.
    #[test]
    fn an_embedded_skill_must_be_named_as_its_uri_says() {
        let dir = "../tests/ui/skill/fixtures/triage-failures";
        let named = |uri: &str| -> syn::ItemImpl {
            syn::parse_quote! {
                impl S {
                    #[skill(#uri)]
                    fn triage(&self) -> Skill {
                        phantom::embed_skill!(#dir)
                    }
                }
            }
        };
        assert_eq!(
            errors(named("skill://ci/triage")),
            [format!(
                "the skill embedded from `{dir}` is named `triage-failures`, but the URI `skill://ci/triage` names it `triage`\n       help: end the URI with the skill's name: `#[skill(\"skill://ci/triage-failures\")]`; or rename the skill to `triage`: its directory and the `name` in its SKILL.md"
            )]
        );
        assert_eq!(
            errors(named("skill://ci/triage-failures")),
            Vec::<String>::new()
        );
        // A directory `embed_skill!` cannot read is left for `embed_skill!` to report.
        let missing: syn::ItemImpl = syn::parse_quote! {
            impl S {
                #[skill("skill://ci/triage")]
                fn triage(&self) -> Option<Skill> {
                    Some(phantom::embed_skill!("skills/does-not-exist"))
                }
            }
        };
        assert_eq!(errors(missing), Vec::<String>::new());
    }

    #[test]
    fn a_tail_parameter_cannot_be_a_scalar() {
        let page: syn::ItemImpl = syn::parse_quote! {
            impl S {
                #[resource("myapp:///pages/<page..>")]
                async fn page(&self, page: std::primitive::u64) -> String {
                    page.to_string()
                }
                #[resource("myapp:///files/<path..>")]
                async fn file(&self, path: std::path::PathBuf) -> String {
                    path.display().to_string()
                }
            }
        };
        assert_eq!(
            errors(page),
            [
                "tail parameter `<page..>` cannot be a `u64`: it takes the rest of the URI, one or more segments (`a/b/c`), and a `u64` never parses a `/`\n       help: take `page: String` (or `PathBuf`, or your own `FromStr` type), or write `<page>` to match one segment"
            ]
        );
    }
}
