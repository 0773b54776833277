//! `#[tool(...)]`

use syn::meta::ParseNestedMeta;
use syn::{Attribute, ImplItemFn, Lit, LitStr};

use super::Marker;
use super::handler::handler;
use super::keys::{Keys, duration_ms, flag, icons, key_table, lit_str};
use crate::ctxt::Ctxt;
use crate::model::{Item, TaskOpts, Tool};

pub(super) const KEYS: Keys<Tool> = key_table!("tool" for item Tool {
    "read_only" => |t, m| t.read_only = flag(m)?,
    "destructive" => |t, m| t.destructive = Some(flag(m)?),
    "idempotent" => |t, m| t.idempotent = flag(m)?,
    "open_world" => |t, m| t.open_world = Some(flag(m)?),
    "meta" => |t, m| t.meta = meta(m)?,
    "requires" => |t, m| t.requires = requires(m)?,
    "timeout" => |t, m| t.timeout_ms = Some(duration_ms(m)?),
    "mode" => |t, m| t.task_mut(m).required = mode(m)?,
    "ttl" => |t, m| t.task_mut(m).ttl_ms = Some(duration_ms(m)?),
    "poll_interval" => |t, m| t.task_mut(m).poll_interval_ms = Some(duration_ms(m)?),
    "prepare" => |t, m| t.task_mut(m).prepare = flag(m)?,
    "ui" => |t, m| t.ui = Some(lit_str(m)?),
    "visibility" => |t, m| t.visibility = Some(visibility(m)?),
});

/// `visibility = ["model", "app"]` (its values are checked with the rest of the app keys).
fn visibility(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::ExprArray> {
    meta.value().and_then(|v| v.parse()).map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected a list for `visibility`\n       help: write `visibility = [\"model\", \"app\"]` (or `[\"app\"]` for a tool only its view calls)",
        )
    })
}

impl Tool {
    /// The task options a key writes into, noting that a task key was written.
    fn task_mut(&mut self, meta: &ParseNestedMeta<'_>) -> &mut TaskOpts {
        self.task_keys
            .get_or_insert_with(|| syn::spanned::Spanned::span(&meta.path));
        self.task.get_or_insert_with(TaskOpts::default)
    }
}

/// `mode = "optional" | "required"`
fn mode(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    let lit = lit_str(meta)?;
    match lit.value().as_str() {
        "optional" => Ok(false),
        "required" => Ok(true),
        other => Err(syn::Error::new(
            lit.span(),
            format!(
                "unknown task mode `{other}`\n       help: write `mode = \"optional\"` (runs inline for clients without the tasks extension) or `mode = \"required\"`"
            ),
        )),
    }
}

/// `requires = ["sampling", "elicitation.url"]`
fn requires(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    icons(meta).map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected a list of capability names for `requires`\n       help: write `requires = [\"sampling\", \"elicitation.url\"]`",
        )
    })
}

/// `meta(owner = "team", priority = 2)`
fn meta(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<(LitStr, Lit)>> {
    const HELP: &str = "help: write `meta(owner = \"team\", priority = 2)`";
    let mut entries = Vec::new();
    meta.parse_nested_meta(|entry| {
        let Some(key) = entry.path.get_ident() else {
            return Err(syn::Error::new_spanned(
                &entry.path,
                format!("`meta` keys are identifiers\n       {HELP}"),
            ));
        };
        let lit: Lit = entry.value().and_then(|v| v.parse()).map_err(|e| {
            syn::Error::new(
                e.span(),
                format!("expected a literal for `meta` key `{key}`\n       {HELP}"),
            )
        })?;
        if !matches!(
            lit,
            Lit::Str(_) | Lit::Int(_) | Lit::Float(_) | Lit::Bool(_)
        ) {
            return Err(syn::Error::new_spanned(
                lit,
                format!("`meta` values are string, integer, float or bool literals\n       {HELP}"),
            ));
        }
        entries.push((LitStr::new(&key.to_string(), key.span()), lit));
        Ok(())
    })?;
    Ok(entries)
}

/// Parses a `#[tool]` or `#[task_handler]` method.
pub(super) fn parse(cx: &Ctxt, marker: Marker, attr: &Attribute, f: &mut ImplItemFn) -> Tool {
    let mut t = Tool {
        item: Item::new(handler(cx, marker, f)),
        read_only: false,
        destructive: None,
        idempotent: false,
        open_world: None,
        meta: Vec::new(),
        requires: Vec::new(),
        timeout_ms: None,
        task: None,
        task_keys: None,
        ui: None,
        visibility: None,
    };
    if !matches!(attr.meta, syn::Meta::Path(_)) {
        KEYS.parse_attr(cx, attr, &mut t);
    }
    match marker {
        Marker::TaskHandler => {
            t.task.get_or_insert_with(TaskOpts::default);
        }
        _ => {
            if let Some(span) = t.task_keys {
                cx.error_at(
                    span,
                    "`mode`, `ttl`, `poll_interval` and `prepare` belong to tools that run as tasks\n       help: write `#[task_handler(mode = \"optional\", ttl = \"10m\")]` instead of `#[tool(...)]`",
                );
            }
            t.task = None;
        }
    }
    t
}
