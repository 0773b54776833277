//! [`Ctxt`]: collects every error of one expansion so a mistake is reported once, with the rest.

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// An error accumulator. [`Ctxt::check`] must be called before it is dropped.
pub(crate) struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Self {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records an error spanning `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error at a span.
    pub(crate) fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.syn_error(syn::Error::new(span, message));
    }

    /// Records a `syn` error.
    pub(crate) fn syn_error(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(err);
    }

    /// Consumes the context: `Err` with every error combined, if any was recorded.
    pub(crate) fn check(self) -> syn::Result<()> {
        let errors = self.errors.borrow_mut().take().expect("Ctxt checked twice");
        let mut iter = errors.into_iter();
        let Some(mut first) = iter.next() else {
            return Ok(());
        };
        for e in iter {
            first.combine(e);
        }
        Err(first)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("phantom-macros: Ctxt dropped without check()");
        }
    }
}

/// Edit distance (optimal string alignment: a swap of two neighbours costs 1), for "did you mean".
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The closest candidate: within a small edit distance, or one that starts with `name`
/// (`mime` → `mime_type`).
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (name.chars().count() / 4).clamp(1, 3);
    candidates
        .into_iter()
        .filter_map(|c| {
            let d = distance(name, c);
            if d <= limit {
                Some((d, c))
            } else if name.len() >= 3 && c.starts_with(name) {
                Some((limit + 1, c))
            } else {
                None
            }
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// A conservative [`closest`] for names whose near miss is itself an error (a helper method named
/// almost like a callback): edit distance 1, or 2 for long names; no prefixes.
pub(crate) fn near_miss<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = if name.chars().count() >= 12 { 2 } else { 1 };
    candidates
        .into_iter()
        .map(|c| (distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Tokens as a person writes them (`&'a [u64]`, `Option<String>`), for quoting code in errors.
pub(crate) fn code(tokens: &impl ToTokens) -> String {
    const TIGHTEN: &[(&str, &str)] = &[
        (" :: ", "::"),
        (":: ", "::"),
        (" : ", ": "),
        (" < ", "<"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("& ", "&"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        (" ;", ";"),
    ];
    TIGHTEN
        .iter()
        .fold(tokens.to_token_stream().to_string(), |text, (from, to)| {
            text.replace(from, to)
        })
}
