//! Checks of resources: templates that collide, URI parameters ↔ arguments, `#[complete]` on
//! parameters that are not in the template.

use crate::ctxt::{Ctxt, closest};
use crate::model::{Resource, Router};

pub(super) fn resources(cx: &Ctxt, router: &Router) {
    templates(cx, &router.resources, "resource template");
    templates(cx, &router.skills, "skill URI");
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
