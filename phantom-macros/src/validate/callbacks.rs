//! Checks of callback signatures: `async`, not generic, `&self`, the number of parameters.

use quote::ToTokens;
use syn::FnArg;

use crate::ctxt::Ctxt;
use crate::model::{CallbackSpec, Router};

pub(super) fn callbacks(cx: &Ctxt, router: &Router) {
    for cb in &router.callbacks {
        let CallbackSpec {
            name, arity, shape, ..
        } = *cb.spec;
        let sig = &cb.item.sig;
        let receiver_ok = matches!(sig.inputs.first(), Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() && r.colon_token.is_none());
        let count = sig
            .inputs
            .iter()
            .filter(|a| matches!(a, FnArg::Typed(_)))
            .count();
        if sig.asyncness.is_none() {
            cx.error_spanned_by(
                sig.fn_token,
                format!("callback `{name}` must be an `async fn`\n       help: write `{shape}`"),
            );
        } else if !sig.generics.params.is_empty() {
            cx.error_spanned_by(
                &sig.generics,
                format!("callback `{name}` cannot be generic\n       help: write `{shape}`"),
            );
        } else if !receiver_ok {
            let found = match sig.inputs.first() {
                Some(FnArg::Receiver(r)) => r.to_token_stream(),
                _ => sig.ident.to_token_stream(),
            };
            cx.error_spanned_by(
                found,
                format!("callback `{name}` takes `&self`\n       help: write `{shape}`"),
            );
        } else if count != arity {
            let plural = if arity == 1 { "" } else { "s" };
            cx.error_at(
                sig.ident.span(),
                format!(
                    "callback `{name}` takes {arity} parameter{plural} after `&self`, found {count}\n       help: write `{shape}`"
                ),
            );
        }
    }
}
