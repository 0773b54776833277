//! The signature of a `#[tool]`, `#[prompt]` or `#[resource]` method: its receiver, its
//! parameters (with `#[arg]` and `#[complete]` read and stripped) and its return type.

use syn::spanned::Spanned;
use syn::{Attribute, FnArg, ImplItemFn, Pat, PatType, ReturnType};

use super::doc::doc_text;
use super::{Marker, arg, complete};
use crate::ctxt::{Ctxt, code};
use crate::model::{Handler, Param};

/// Reads the signature of a handler and strips `#[arg]` / `#[complete]` from its parameters.
pub(super) fn handler(cx: &Ctxt, marker: Marker, f: &mut ImplItemFn) -> Handler {
    let sig = &mut f.sig;
    let what = marker.name();
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            format!("`#[{what}]` handlers cannot be generic\n       help: use concrete types; phantom builds one schema per handler"),
        );
    }
    let mut params = Vec::new();
    let mut receiver_ok = false;
    for (i, input) in sig.inputs.iter_mut().enumerate() {
        match input {
            FnArg::Receiver(r) => {
                if !(r.reference.is_some() && r.mutability.is_none() && r.colon_token.is_none()) {
                    let found = code(&*r);
                    cx.error_spanned_by(
                        &*r,
                        format!("`#[{what}]` handlers take `&self`, found `{found}`\n       help: write `&self`; the server is shared by concurrent requests (use interior mutability for state)"),
                    );
                }
                receiver_ok = true;
            }
            FnArg::Typed(pt) => {
                if i == 0 {
                    cx.error_spanned_by(
                        &*pt,
                        format!("`#[{what}]` handlers take `&self` first\n       help: add `&self` as the first parameter"),
                    );
                    receiver_ok = true;
                }
                params.push(param(cx, marker, pt));
            }
        }
    }
    if !receiver_ok {
        cx.error_at(
            sig.ident.span(),
            format!("`#[{what}]` handler `{}` has no `&self`\n       help: add `&self` as the first parameter", sig.ident),
        );
    }
    let ret = match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => Some((**ty).clone()),
    };
    Handler {
        ident: sig.ident.clone(),
        is_async: sig.asyncness.is_some(),
        params,
        ret,
        doc: doc_text(&f.attrs),
    }
}

const ARG_ON_RESOURCE: &str = "`#[arg]` does not apply to resource parameters; their names come from the URI template\n       help: remove `#[arg(...)]`; describe the resource in its doc comment or with `description = \"…\"`";

const COMPLETE_ON_SKILL: &str = "`#[complete]` does not apply to skill parameters: MCP completes prompt arguments and resource template parameters\n       help: remove `#[complete(...)]`";

const COMPLETE_ON_TOOL: &str = "`#[complete]` applies to prompt arguments and resource parameters, not tool arguments\n       help: remove `#[complete(...)]`; MCP has no completion of tool arguments";

/// One typed parameter: its name, its type, and its `#[arg]` / `#[complete]` (stripped).
fn param(cx: &Ctxt, marker: Marker, pt: &mut PatType) -> Param {
    let ident = match &*pt.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
        other => {
            cx.error_spanned_by(
                other,
                "handler parameters must be plain names\n       help: bind the parameter to a name such as `query`, and destructure it in the body",
            );
            syn::Ident::new("__phantom_invalid", other.span())
        }
    };
    let mut param = Param {
        ident,
        ty: (*pt.ty).clone(),
        description: None,
        rename: None,
        complete: None,
        header: None,
        complete_attr: None,
    };
    pt.attrs.retain(|attr| {
        let (parse, misplaced): (fn(&Ctxt, &Attribute, &mut Param), _) =
            if attr.path().is_ident("arg") {
                (
                    arg::parse,
                    matches!(marker, Marker::Resource | Marker::Skill).then_some(ARG_ON_RESOURCE),
                )
            } else if attr.path().is_ident("complete") {
                (
                    complete::parse,
                    match marker {
                        Marker::Tool | Marker::TaskHandler => Some(COMPLETE_ON_TOOL),
                        Marker::Skill => Some(COMPLETE_ON_SKILL),
                        _ => None,
                    },
                )
            } else {
                return true;
            };
        match misplaced {
            Some(message) => cx.error_spanned_by(attr, message),
            None => parse(cx, attr, &mut param),
        }
        false
    });
    param
}
