//! The key table every attribute is parsed with. An attribute declares its keys once, as a
//! [`Keys`] table; the same table dispatches each `key = value` and lists the candidates of the
//! "unknown key" hint, so the hint cannot drift from what is parsed.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Lit, LitStr};

use crate::ctxt::{Ctxt, closest};

/// A [`Keys`] table: `key_table!("attr" for T { "key" => |target, meta| statement, … })`; each
/// statement reads the value with `meta` (using `?`) and stores it in `target`.
///
/// `key_table!("attr" for item T { … })` starts the table with the keys every listed handler has
/// (`name`, `title`, `description`, `icons`), read into `T`'s [`Item`](crate::model::Item).
macro_rules! key_table {
    ($attr:literal for item $t:ty { $($rest:tt)* }) => {
        $crate::parse::keys::key_table!($attr for $t {
            "name" => |x, m| (x.item.name, x.item.name_span) = $crate::parse::keys::name(m)?,
            "title" => |x, m| x.item.title = Some($crate::parse::keys::lit_str(m)?),
            "description" => |x, m| x.item.description = Some($crate::parse::keys::lit_str(m)?),
            "icons" => |x, m| x.item.icons = $crate::parse::keys::icons(m)?,
            "scopes" => |x, m| x.item.scopes = $crate::parse::keys::scopes(m)?,
            $($rest)*
        })
    };
    ($attr:literal for $t:ty { $($name:literal => |$target:ident, $meta:ident| $body:expr),* $(,)? }) => {
        $crate::parse::keys::Keys::<$t> {
            attr: $attr,
            keys: &[$($crate::parse::keys::Key {
                name: $name,
                parse: |$target, $meta| {
                    $body;
                    Ok(())
                },
            }),*],
        }
    };
}
pub(super) use key_table;

/// One key of an attribute and how its value is read into `T`.
pub(super) struct Key<T> {
    pub(super) name: &'static str,
    pub(super) parse: fn(&mut T, &ParseNestedMeta<'_>) -> syn::Result<()>,
}

/// The keys of `#[attr(...)]`.
pub(super) struct Keys<T: 'static> {
    pub(super) attr: &'static str,
    pub(super) keys: &'static [Key<T>],
}

impl<T> Keys<T> {
    /// Reads one `key = value` into `target`. An unknown key is reported (with the closest known
    /// key, or all of them) and its value skipped so parsing carries on; then `Ok(false)`.
    pub(super) fn parse(
        &self,
        cx: &Ctxt,
        target: &mut T,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<bool> {
        match self.keys.iter().find(|k| meta.path.is_ident(k.name)) {
            Some(key) => (key.parse)(target, meta).map(|()| true),
            None => {
                self.unknown(cx, meta);
                Ok(false)
            }
        }
    }

    /// Reads every key of `#[attr(k = v, …)]` into `target`, recording errors in `cx`. Returns
    /// whether every key was read without an error.
    pub(super) fn parse_attr(&self, cx: &Ctxt, attr: &Attribute, target: &mut T) -> bool {
        let mut clean = true;
        let res = attr.parse_nested_meta(|meta| {
            clean &= self.parse(cx, target, &meta)?;
            Ok(())
        });
        if let Err(e) = res {
            cx.syn_error(e);
            clean = false;
        }
        clean
    }

    /// Reads the keys nested in `key(…)` into `target`; an unknown one is an error (with the
    /// same hint as at the top level).
    pub(super) fn parse_nested(
        &self,
        target: &mut T,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        meta.parse_nested_meta(|inner| {
            match self.keys.iter().find(|k| inner.path.is_ident(k.name)) {
                Some(key) => (key.parse)(target, &inner),
                None => Err(syn::Error::new_spanned(
                    &inner.path,
                    self.unknown_message(&inner),
                )),
            }
        })
    }

    fn unknown(&self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) {
        cx.error_spanned_by(&meta.path, self.unknown_message(meta));
        skip_value(meta);
    }

    fn unknown_message(&self, meta: &ParseNestedMeta<'_>) -> String {
        let found = meta
            .path
            .get_ident()
            .map_or_else(|| "?".to_owned(), ToString::to_string);
        let names = self.keys.iter().map(|k| k.name);
        let hint = match closest(&found, names.clone()) {
            Some(k) => format!("did you mean `{k}`?"),
            None => format!(
                "expected one of {}",
                names
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!(
            "unknown `#[{}]` key `{found}`\n       help: {hint}",
            self.attr
        )
    }
}

/// Skips the value of a key that was not understood, so parsing carries on after it.
fn skip_value(meta: &ParseNestedMeta<'_>) {
    if meta.input.peek(syn::Token![=]) {
        let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(|m| {
            let _ = m.value().and_then(|v| v.parse::<syn::Expr>());
            Ok(())
        });
    }
}

/// The name of the key being read, for messages.
fn key(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map_or_else(|| "?".to_owned(), ToString::to_string)
}

/// A value that did not parse, reworded at the same place: what `key` expects, and what to write.
pub(super) fn expected(
    meta: &ParseNestedMeta<'_>,
    err: &syn::Error,
    what: &str,
    example: &str,
) -> syn::Error {
    let key = key(meta);
    syn::Error::new(
        err.span(),
        format!("expected {what} for `{key}`\n       help: write `{key} = {example}`"),
    )
}

/// `key = "…"`
pub(super) fn lit_str(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()
        .and_then(|v| v.parse::<LitStr>())
        .map_err(|e| expected(meta, &e, "a string literal", "\"…\""))
}

/// `key = 1024`
pub(super) fn lit_int(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::LitInt> {
    meta.value()
        .and_then(|v| v.parse::<syn::LitInt>())
        .map_err(|e| expected(meta, &e, "an integer literal", "1024"))
}

/// `key = "30s"`: a positive duration, in milliseconds (a whole number and `ms`, `s` or `m`).
pub(super) fn duration_ms(meta: &ParseNestedMeta<'_>) -> syn::Result<u64> {
    let lit = lit_str(meta)?;
    parse_duration(&lit.value()).ok_or_else(|| {
        let key = key(meta);
        syn::Error::new(
            lit.span(),
            format!(
                "expected a duration such as \"30s\", \"500ms\" or \"2m\" for `{key}`\n       help: write `{key} = \"30s\"`"
            ),
        )
    })
}

/// `"500ms"`, `"30s"`, `"2m"` in milliseconds; `None` for anything else, or zero.
fn parse_duration(text: &str) -> Option<u64> {
    let digits = text.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = text.split_at(digits);
    let n: u64 = n.parse().ok()?;
    let ms = match unit {
        "ms" => n,
        "s" => n.checked_mul(1000)?,
        "m" => n.checked_mul(60_000)?,
        _ => return None,
    };
    (ms > 0).then_some(ms)
}

/// `name = "…"`: the value and its span.
pub(super) fn name(meta: &ParseNestedMeta<'_>) -> syn::Result<(String, Span)> {
    let lit = lit_str(meta)?;
    Ok((lit.value(), lit.span()))
}

/// `flag` or `flag = true|false`.
pub(super) fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(true);
    }
    let value = meta.value()?;
    value.parse::<syn::LitBool>().map(|b| b.value).map_err(|e| {
        let key = key(meta);
        syn::Error::new(
            e.span(),
            format!("expected `true` or `false` for `{key}`\n       help: write `{key}` or `{key} = false`"),
        )
    })
}

/// `icons = ["…", "…"]` (also read by `requires`, which words its own error)
pub(super) fn icons(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    string_list(meta, "[\"https://…/icon.png\"]")
}

/// `scopes = ["notes:write"]`: the OAuth scopes a caller's token must grant (any listed handler).
pub(super) fn scopes(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<LitStr>> {
    icons(meta).map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected a list of OAuth scopes for `scopes`\n       help: write `scopes = [\"notes:write\"]`",
        )
    })
}

/// `key = ["…", "…"]`; `example` is what the error suggests writing.
pub(super) fn string_list(meta: &ParseNestedMeta<'_>, example: &str) -> syn::Result<Vec<LitStr>> {
    let fail = |e: &syn::Error| expected(meta, e, "a list of string literals", example);
    let arr: syn::ExprArray = meta.value().and_then(|v| v.parse()).map_err(|e| fail(&e))?;
    arr.elems
        .iter()
        .map(|e| match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => Ok(s.clone()),
            other => Err(fail(&syn::Error::new_spanned(other, ""))),
        })
        .collect()
}
