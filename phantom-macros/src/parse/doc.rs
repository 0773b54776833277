//! Doc comments as descriptions: the text of the `///` lines with the hard wraps of each
//! paragraph joined, as rustdoc renders them, so a client reads `"… to follow it."` rather than
//! `"… to\nfollow it."`.

use syn::{Attribute, Lit};

/// The description a doc comment gives: its lines (without the one leading space of each) with
/// the lines of each paragraph [joined](join); `None` when it is empty.
pub(super) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        let syn::Meta::NameValue(nv) = &attr.meta else {
            continue;
        };
        let syn::Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) = &nv.value
        else {
            continue;
        };
        let value = s.value();
        if value.contains('\n') {
            lines.extend(block_lines(&value));
        } else {
            lines.push(value.strip_prefix(' ').unwrap_or(&value).to_owned());
        }
    }
    let text = join(&lines);
    (!text.is_empty()).then_some(text)
}

/// The lines of a `/** … */` comment (one attribute of several lines), as rustdoc reads them:
/// without the blank first and last lines, and without the ` * ` that starts every line, or
/// else without the indentation the lines share.
fn block_lines(value: &str) -> Vec<String> {
    let mut lines: Vec<&str> = value.lines().collect();
    if lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    if lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let written = || lines.iter().filter(|l| !l.trim().is_empty());
    if written().all(|l| l.trim_start().starts_with('*')) {
        return lines
            .iter()
            .map(|l| {
                let l = l.trim_start();
                let l = l.strip_prefix('*').unwrap_or(l);
                l.strip_prefix(' ').unwrap_or(l).to_owned()
            })
            .collect();
    }
    let common = written().map(|l| indentation(l)).min().unwrap_or(0);
    lines
        .iter()
        .map(|l| l.chars().skip(common).collect())
        .collect()
}

/// What the last line written is, for the next one to join or not.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// Nothing to join: the start, a blank line, a heading, a table row, a quote, a rule, or a
    /// line ended by a hard break.
    No,
    /// A paragraph: the next line of text continues it.
    Paragraph,
    /// A list item: the next line of text continues it.
    Item,
}

/// Joins the lines of each paragraph (and of each list item) with single spaces. Kept as they
/// are: blank lines between paragraphs (one `\n\n`), fenced code blocks (```` ``` ```` or `~~~`)
/// and indented code blocks line for line, and list items (`- `, `* `, `+ `, `1. `, `1) `),
/// headings (`# …`), table rows (`| …`), quotes (`> …`) and rules (`---`) on lines of their own.
/// A line ending in two spaces or a `\` (a Markdown hard break) ends its line. Leading and
/// trailing blank lines are dropped.
fn join(lines: &[String]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut open = Open::No;
    // The fence of the open fenced code block: its character and length.
    let mut fence: Option<(char, usize)> = None;
    let mut indented_code = false;
    for raw in lines {
        if let Some((ch, len)) = fence {
            if fence_of(raw).is_some_and(|(c, n, info)| c == ch && n >= len && info.is_empty()) {
                fence = None;
            }
            out.push(raw.trim_end().to_owned());
            continue;
        }
        let line = raw.trim_end();
        let text = line.trim_start();
        if text.is_empty() {
            if out.last().is_some_and(|l| !l.is_empty()) {
                out.push(String::new());
            }
            open = Open::No;
            continue;
        }
        let indent = indentation(line);
        let after_blank = out.last().is_none_or(String::is_empty);
        if indent >= 4 && (indented_code || (after_blank && open == Open::No)) {
            indented_code = true;
            out.push(line.to_owned());
            continue;
        }
        indented_code = false;
        if let Some((ch, len, _)) = fence_of(line) {
            fence = Some((ch, len));
            out.push(line.to_owned());
            open = Open::No;
            continue;
        }
        if is_heading(text) || is_rule(text) || text.starts_with('|') || text.starts_with('>') {
            out.push(line.to_owned());
            open = Open::No;
            continue;
        }
        // A hard break: two trailing spaces, or a `\` (which is not shown).
        let (line, text, hard_break) = match line.strip_suffix('\\') {
            Some(kept) => (kept.trim_end(), text[..text.len() - 1].trim_end(), true),
            None => (line, text, raw.ends_with("  ")),
        };
        let next = if hard_break {
            Open::No
        } else {
            Open::Paragraph
        };
        if let Some(interrupts) = list_item(text)
            && (interrupts || open != Open::Paragraph)
        {
            out.push(line.to_owned());
            open = if hard_break { Open::No } else { Open::Item };
            continue;
        }
        match (open, out.last_mut()) {
            (Open::Paragraph | Open::Item, Some(last)) => {
                last.push(' ');
                last.push_str(text);
            }
            _ => out.push(text.to_owned()),
        }
        open = next;
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out.join("\n")
}

/// The columns of leading whitespace, a tab counting as four.
fn indentation(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// A code fence: three or more `` ` `` or `~`, indented less than four columns; its character,
/// its length and the info string after it.
fn fence_of(line: &str) -> Option<(char, usize, &str)> {
    if indentation(line) >= 4 {
        return None;
    }
    let text = line.trim_start();
    let ch = text.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = text.chars().take_while(|c| *c == ch).count();
    (len >= 3).then(|| (ch, len, text[len..].trim()))
}

/// `# Heading` to `###### Heading`.
fn is_heading(text: &str) -> bool {
    let hashes = text.chars().take_while(|c| *c == '#').count();
    (1..=6).contains(&hashes) && text[hashes..].chars().next().is_none_or(|c| c == ' ')
}

/// `---`, `***`, `___` (and `===`, a heading's underline).
fn is_rule(text: &str) -> bool {
    let compact: String = text.chars().filter(|c| *c != ' ').collect();
    compact.len() >= 3
        && ['-', '*', '_', '=']
            .iter()
            .any(|m| compact.chars().all(|c| c == *m))
}

/// Whether `text` starts a list item (`- `, `* `, `+ `, or `1. `, `1) ` with one to nine
/// digits), and if so whether it may interrupt a paragraph, as CommonMark says: a bullet item
/// may, a numbered one only when it starts at 1 (so a wrapped `2024. Other years` is text).
fn list_item(text: &str) -> Option<bool> {
    let mut chars = text.chars();
    match chars.next()? {
        '-' | '*' | '+' => chars.next().is_none_or(|c| c == ' ').then_some(true),
        c if c.is_ascii_digit() => {
            let digits = text.chars().take_while(char::is_ascii_digit).count();
            let rest = &text[digits..];
            let after = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')'))?;
            let item = digits <= 9 && after.chars().next().is_none_or(|c| c == ' ');
            item.then(|| text[..digits].parse::<u32>() == Ok(1))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{doc_text, join};

    fn joined(text: &str) -> String {
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        join(&lines)
    }

    #[test]
    fn the_lines_of_a_paragraph_are_joined_with_single_spaces() {
        assert_eq!(
            joined(
                "Searches the notes for a word and returns the ones that mention it, for the model to\nfollow it."
            ),
            "Searches the notes for a word and returns the ones that mention it, for the model to follow it."
        );
        assert_eq!(joined("one\n  two\nthree"), "one two three");
    }

    #[test]
    fn paragraphs_stay_apart_by_one_blank_line() {
        assert_eq!(
            joined("\nFirst\nparagraph.\n\n\nSecond\nparagraph.\n\n"),
            "First paragraph.\n\nSecond paragraph."
        );
    }

    #[test]
    fn fenced_code_is_kept_line_for_line() {
        assert_eq!(
            joined("Run it:\n```sh\ncargo run\n  --release\n\n```\nThen\nwait."),
            "Run it:\n```sh\ncargo run\n  --release\n\n```\nThen wait."
        );
        // A fence is closed only by a fence of its character, at least as long, with no info.
        assert_eq!(
            joined("~~~~\n```\nkept\n~~~\n~~~~\nafter\nit"),
            "~~~~\n```\nkept\n~~~\n~~~~\nafter it"
        );
    }

    #[test]
    fn indented_code_after_a_blank_line_is_kept() {
        assert_eq!(
            joined("Example:\n\n    let x = 1;\n    let y = 2;\n\nDone\nhere."),
            "Example:\n\n    let x = 1;\n    let y = 2;\n\nDone here."
        );
    }

    #[test]
    fn list_items_keep_their_lines_and_join_their_continuations() {
        assert_eq!(
            joined(
                "Modes:\n- `fast`: skips the\n  checks\n* `slow`\n+ `safe`\n  1. nested\n  2. too\nafter"
            ),
            "Modes:\n- `fast`: skips the checks\n* `slow`\n+ `safe`\n  1. nested\n  2. too after"
        );
        assert_eq!(joined("1) one\n2) two"), "1) one\n2) two");
    }

    #[test]
    fn a_number_inside_a_paragraph_is_not_a_list() {
        assert_eq!(
            joined("Counts the studies published in\n2024. Other years are ignored."),
            "Counts the studies published in 2024. Other years are ignored."
        );
        assert_eq!(
            joined("Steps:\n1. first\n2. second"),
            "Steps:\n1. first\n2. second"
        );
        assert_eq!(joined("a -b\n-c"), "a -b -c");
    }

    #[test]
    fn headings_tables_quotes_and_rules_keep_their_lines() {
        assert_eq!(
            joined(
                "# Usage\nCall it\nonce.\n## Notes\n| a | b |\n|---|---|\n> quoted\n> twice\n---\nend"
            ),
            "# Usage\nCall it once.\n## Notes\n| a | b |\n|---|---|\n> quoted\n> twice\n---\nend"
        );
        assert_eq!(joined("#hashtag\nword"), "#hashtag word");
    }

    #[test]
    fn a_hard_break_ends_its_line() {
        assert_eq!(
            joined("Line one  \nline two\\\nline three\nand on"),
            "Line one\nline two\nline three and on"
        );
    }

    #[test]
    fn doc_attributes_lose_one_leading_space_and_block_comments_their_stars() {
        let line: syn::ItemFn = syn::parse_quote! {
            /// Lists the notes
            /// of a user.
            ///
            ///     indented code
            fn f() {}
        };
        assert_eq!(
            doc_text(&line.attrs).as_deref(),
            Some("Lists the notes of a user.\n\n    indented code")
        );
        let block: syn::ItemFn = syn::parse_quote! {
            #[doc = "\n * Lists the notes\n * of a user.\n *\n * - one\n "]
            fn f() {}
        };
        assert_eq!(
            doc_text(&block.attrs).as_deref(),
            Some("Lists the notes of a user.\n\n- one")
        );
        let plain: syn::ItemFn = syn::parse_quote! {
            #[doc = "\n    Lists the notes\n    of a user.\n"]
            fn f() {}
        };
        assert_eq!(
            doc_text(&plain.attrs).as_deref(),
            Some("Lists the notes of a user.")
        );
        let empty: syn::ItemFn = syn::parse_quote! {
            ///
            fn f() {}
        };
        assert_eq!(doc_text(&empty.attrs), None);
    }
}
