//! Methods without a marker: router callbacks (recognised by name), near misses of a callback
//! (reported), and helpers (left alone).

use syn::{FnArg, ImplItemFn, Signature, Type};

use crate::ctxt::{Ctxt, near_miss};
use crate::model::{CALLBACKS, CallbackSpec};

/// Types only a callback's parameters have, by last path segment: a hint that a method named
/// almost like a callback was meant to be one (the trait system, not this list, checks types).
const CALLBACK_TYPES: &[&str] = &["Session", "Request", "Cursor"];

/// The callback a method without a marker overrides: the one it is named after. A method named
/// almost like a callback is reported when its signature looks like the callback's
/// ([`looks_like`]); otherwise, like any other method, it is a helper (`None`).
pub(super) fn recognise(cx: &Ctxt, f: &ImplItemFn) -> Option<&'static CallbackSpec> {
    let name = f.sig.ident.to_string();
    if let Some(spec) = CALLBACKS.iter().find(|c| c.name == name) {
        return Some(spec);
    }
    let near = near_miss(&name, CALLBACKS.iter().map(|c| c.name))
        .and_then(|near| CALLBACKS.iter().find(|c| c.name == near));
    if let Some(spec) = near
        && looks_like(&f.sig, spec.arity)
    {
        let near = spec.name;
        cx.error_at(
            f.sig.ident.span(),
            format!(
                "`{name}` is not a router callback; did you mean `{near}`?\n       help: rename it to `{near}` to override the callback, or move this helper to another `impl` block"
            ),
        );
    }
    None
}

/// Whether a method looks like a callback taking `arity` parameters after `&self`: it has a
/// receiver, and it is `async` with that many parameters, or one of its parameters has a type
/// only callbacks take. `fn terminated(&self) -> bool` does not look like `terminate`.
fn looks_like(sig: &Signature, arity: usize) -> bool {
    if sig.receiver().is_none() {
        return false;
    }
    let mut types = sig.inputs.iter().filter_map(|arg| match arg {
        FnArg::Typed(pt) => Some(&*pt.ty),
        FnArg::Receiver(_) => None,
    });
    (sig.asyncness.is_some() && types.clone().count() == arity)
        || types.any(|ty| names_any(ty, CALLBACK_TYPES))
}

/// Whether a path segment of `ty` (under references, generics, tuples, slices) is one of `names`.
fn names_any(ty: &Type, names: &[&str]) -> bool {
    match ty {
        Type::Reference(r) => names_any(&r.elem, names),
        Type::Paren(p) => names_any(&p.elem, names),
        Type::Group(g) => names_any(&g.elem, names),
        Type::Slice(s) => names_any(&s.elem, names),
        Type::Array(a) => names_any(&a.elem, names),
        Type::Tuple(t) => t.elems.iter().any(|e| names_any(e, names)),
        Type::Path(p) => p.path.segments.iter().any(|seg| {
            names.iter().any(|n| seg.ident == n)
                || matches!(&seg.arguments, syn::PathArguments::AngleBracketed(args)
                    if args.args.iter().any(|a| matches!(a, syn::GenericArgument::Type(t) if names_any(t, names))))
        }),
        _ => false,
    }
}
