//! Tokens → [`model`](crate::model): the walk over the impl block, marker recognition and
//! stripping; doc comments become descriptions in [`doc`]. Each attribute's grammar lives in its
//! own file, over the shared key table of [`keys`].

mod arg;
mod callback;
mod complete;
mod doc;
#[cfg(test)]
mod grammars;
mod handler;
mod keys;
mod prompt;
mod resource;
mod router;
mod skill;
mod tool;

use syn::{Attribute, ImplItem, ItemImpl};

use crate::ctxt::Ctxt;
use crate::model::{Callback, Router, RouterAttrs};

pub(crate) use router::attrs as router_attrs;

/// The marker attributes `#[mcp_router]` understands on methods.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Tool,
    Prompt,
    Resource,
    Skill,
    /// `#[task_handler]`: a tool that runs as a task.
    TaskHandler,
}

impl Marker {
    fn name(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::Resource => "resource",
            Self::Skill => "skill",
            Self::TaskHandler => "task_handler",
        }
    }
}

/// Recognises `#[tool]`, `#[phantom::tool]` (or `#[<crate>::tool]`): the full path, not just its
/// last segment, so another crate's `#[x::tool]` is left alone.
fn marker_of(attr: &Attribute, krate: &syn::Path) -> Option<Marker> {
    let path = attr.path();
    let last = path.segments.last()?.ident.to_string();
    let marker = match last.as_str() {
        "tool" => Marker::Tool,
        "prompt" => Marker::Prompt,
        "resource" => Marker::Resource,
        "skill" => Marker::Skill,
        "task_handler" => Marker::TaskHandler,
        _ => return None,
    };
    of_phantom(path, krate).then_some(marker)
}

/// Whether `path` names an item of phantom: written bare (`tool`), as `phantom::tool`, or under
/// the router's `crate = "…"` path.
pub(super) fn of_phantom(path: &syn::Path, krate: &syn::Path) -> bool {
    let n = path.segments.len();
    n == 1 || {
        let prefix: Vec<String> = path
            .segments
            .iter()
            .take(n - 1)
            .map(|s| s.ident.to_string())
            .collect();
        let krate: Vec<String> = krate.segments.iter().map(|s| s.ident.to_string()).collect();
        prefix == krate || prefix == ["phantom"]
    }
}

/// Reads the impl block: collects handlers and callbacks, strips markers, leaves the rest.
pub(crate) fn router(cx: &Ctxt, attrs: RouterAttrs, item: &mut ItemImpl) -> Router {
    let krate = attrs
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(phantom));
    if let Some((_, path, _)) = &item.trait_ {
        cx.error_spanned_by(
            path,
            "`#[mcp_router]` goes on an inherent impl block, not a trait impl\n       help: write `#[mcp_router] impl MyServer { … }`",
        );
    }
    if !item.generics.params.is_empty() {
        cx.error_spanned_by(
            &item.generics,
            "`#[mcp_router]` does not support generic impl blocks\n       help: implement the router for a concrete type; keep generic state in a field (e.g. `Arc<dyn Store>`)",
        );
    }
    let mut router = Router {
        attrs,
        self_ty: (*item.self_ty).clone(),
        tools: Vec::new(),
        prompts: Vec::new(),
        resources: Vec::new(),
        skills: Vec::new(),
        callbacks: Vec::new(),
        methods: Vec::new(),
        marker_paths: Vec::new(),
    };
    let mut kept = Vec::with_capacity(item.items.len());
    for impl_item in std::mem::take(&mut item.items) {
        let ImplItem::Fn(mut f) = impl_item else {
            kept.push(impl_item);
            continue;
        };
        router.methods.push(f.sig.clone());
        let mut markers = Vec::new();
        f.attrs.retain(|a| match marker_of(a, &krate) {
            Some(m) => {
                markers.push((m, a.clone()));
                false
            }
            None => true,
        });
        for (_, attr) in &markers {
            let path = attr.path();
            if !router.marker_paths.iter().any(|p| p == path) {
                router.marker_paths.push(path.clone());
            }
        }
        if markers.len() > 1 {
            cx.error_spanned_by(
                &markers[1].1,
                format!(
                    "`{}` already has `#[{}]`; a method is one tool, prompt, resource or skill\n       help: remove one of the attributes",
                    f.sig.ident,
                    markers[0].0.name()
                ),
            );
        }
        match markers.first() {
            Some((marker @ (Marker::Tool | Marker::TaskHandler), attr)) => {
                let t = tool::parse(cx, *marker, attr, &mut f);
                router.tools.push(t);
            }
            Some((Marker::Prompt, attr)) => {
                let p = prompt::parse(cx, attr, &mut f);
                router.prompts.push(p);
            }
            Some((Marker::Resource, attr)) => {
                if let Some(r) = resource::parse(cx, attr, &mut f) {
                    router.resources.push(r);
                }
            }
            Some((Marker::Skill, attr)) => {
                if let Some(s) = skill::parse(cx, attr, &mut f, &krate) {
                    router.skills.push(s);
                }
            }
            None => {
                if let Some(spec) = callback::recognise(cx, &f) {
                    router.callbacks.push(Callback { spec, item: f });
                    continue;
                }
            }
        }
        kept.push(ImplItem::Fn(f));
    }
    item.items = kept;
    router
}
