//! Expansion snapshots: every `tests/expand/<case>.rs` is expanded (each `#[mcp_router]` impl
//! replaced by what the macro emits), pretty-printed, and compared with the committed
//! `tests/expand/<case>.expanded.rs`. `PHANTOM_BLESS=1 cargo test -p phantom-macros` rewrites the
//! snapshots; review their diff before committing it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use quote::ToTokens;

/// The expansion of a file of Rust source, pretty-printed.
fn expand_file(path: &Path, src: &str) -> String {
    let mut file: syn::File =
        syn::parse_str(src).unwrap_or_else(|e| panic!("{} does not parse: {e}", shown(path)));
    let mut items = Vec::new();
    for item in std::mem::take(&mut file.items) {
        let syn::Item::Impl(mut imp) = item else {
            items.push(item);
            continue;
        };
        let Some(at) = imp
            .attrs
            .iter()
            .position(|a| a.path().is_ident("mcp_router"))
        else {
            items.push(syn::Item::Impl(imp));
            continue;
        };
        let args = match imp.attrs.remove(at).meta {
            syn::Meta::List(list) => list.tokens,
            _ => proc_macro2::TokenStream::new(),
        };
        let output = crate::expand_router(args, &imp.into_token_stream());
        let expanded: syn::File = syn::parse2(output)
            .unwrap_or_else(|e| panic!("the expansion of {} is not Rust source: {e}", shown(path)));
        items.extend(expanded.items);
    }
    file.items = items;
    prettyplease::unparse(&file)
}

/// A line diff of `expected` and `actual` (longest common subsequence), showing two lines of
/// context around each change.
fn diff(expected: &str, actual: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    // `lcs[i][j]`: the length of the longest common subsequence of `a[i..]` and `b[j..]`.
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // (sign, line number in `actual` or `expected`, text)
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', j + 1, a[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', i + 1, a[i]));
            i += 1;
        } else {
            ops.push(('+', j + 1, b[j]));
            j += 1;
        }
    }
    let changed = |k: usize| ops.get(k).is_some_and(|op| op.0 != ' ');
    let mut out = String::new();
    let mut skipped = true;
    for (k, &(sign, line, text)) in ops.iter().enumerate() {
        if (k.saturating_sub(2)..=k + 2).any(changed) {
            if skipped {
                let _ = writeln!(out, "@@ line {line} @@");
            }
            let _ = writeln!(out, "{sign} {text}");
            skipped = false;
        } else {
            skipped = true;
        }
    }
    out
}

/// `path` relative to the crate, as a reader finds it.
fn shown(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| !p.to_string_lossy().ends_with(".expanded.rs"))
        .collect();
    cases.sort();
    cases
}

#[test]
fn expansions_match_their_snapshots() {
    let bless = std::env::var("PHANTOM_BLESS").is_ok_and(|v| v == "1" || v == "true");
    let cases = cases();
    assert!(cases.len() >= 5, "expected the five cases in tests/expand");
    let mut failures = Vec::new();
    for case in &cases {
        let src = std::fs::read_to_string(case).expect("a readable case");
        let actual = expand_file(case, &src);
        let snapshot = case.with_extension("expanded.rs");
        if bless {
            std::fs::write(&snapshot, &actual).expect("a writable snapshot");
            continue;
        }
        match std::fs::read_to_string(&snapshot) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{} differs from the expansion of {} (- snapshot, + expansion):\n{}",
                shown(&snapshot),
                shown(case),
                diff(&expected, &actual)
            )),
            Err(_) => failures.push(format!(
                "{} is missing; the expansion of {} is:\n{actual}",
                shown(&snapshot),
                shown(case)
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\nif the change is intended, run `PHANTOM_BLESS=1 cargo test -p phantom-macros` and review the diff",
        failures.join("\n")
    );
}

#[test]
fn diff_shows_changed_lines_with_context() {
    let expected = "a\nb\nc\nd\ne\nf\ng\n";
    let actual = "a\nb\nc\nD\ne\nf\ng\n";
    assert_eq!(
        diff(expected, actual),
        "@@ line 2 @@\n  b\n  c\n- d\n+ D\n  e\n  f\n"
    );
}
