//! The docs agree with the code where a check can say so (the attribute grammars are checked
//! against the parsers' key tables in `phantom-macros`, `parse/grammars.rs`):
//!
//! - every context parameter type (an `impl FromContext for …` in `phantom/src/extract`) is named
//!   in the context row of each attribute's typing table and in the README;
//! - a limitation is written `Not yet: … (pinned by `test_name`)`, and the test it names exists:
//!   any other "not yet" (or "yet to", "no … yet") in the README, `docs/`, the attribute docs,
//!   the rustdoc of `phantom/src` and the examples fails this test;
//! - every constructor and setter of `input::Form` and `input::Field` is in a doc example.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_owned()
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The types phantom hands a handler from the request's context: `impl … FromContext<'a> for
/// [&'a ]path::Type`, by last path segment.
fn context_types() -> Vec<String> {
    let mut sources = Vec::new();
    files(&root().join("phantom/src/extract"), "rs", &mut sources);
    let mut types = Vec::new();
    for line in sources
        .iter()
        .flat_map(|p| read(p).lines().map(str::to_owned).collect::<Vec<_>>())
    {
        let Some(rest) = line.trim().strip_prefix("impl") else {
            continue;
        };
        let Some((_, ty)) = rest.split_once("FromContext<'a> for ") else {
            continue;
        };
        let ty = ty.trim_end_matches('{').trim().trim_start_matches("&'a ");
        let name = ty.rsplit("::").next().expect("a type");
        types.push(name.to_owned());
    }
    types.sort();
    assert!(
        types.len() >= 5,
        "the context types were read from phantom/src/extract: {types:?}"
    );
    types
}

#[test]
fn every_context_parameter_is_named_where_handlers_are_documented() {
    let types = context_types();
    let docs = root().join("phantom/src/docs");
    for (attr, row) in [
        ("tool", "| context |"),
        ("prompt", "| context |"),
        ("resource", "| other parameters |"),
        ("skill", "| other parameters |"),
    ] {
        let text = read(&docs.join(format!("{attr}.md")));
        let line = text
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("#[{attr}]: a `{row}` row in its typing table"));
        for ty in &types {
            assert!(
                line.contains(&format!("`{ty}`")) || line.contains(&format!("`&{ty}`")),
                "#[{attr}]'s context row does not name `{ty}`: {line}"
            );
        }
    }
    let readme = read(&root().join("README.md"));
    let start = readme
        .find("**Context parameters**")
        .expect("the README's context parameters");
    let paragraph = &readme[start..start + readme[start..].find("\n- ").unwrap_or(400)];
    for ty in &types {
        assert!(
            paragraph.contains(&format!("`{ty}`")) || paragraph.contains(&format!("`&{ty}`")),
            "the README's context parameters do not name `{ty}`: {paragraph}"
        );
    }
}

/// The prose that says something does not work yet.
fn says_not_yet(line: &str) -> bool {
    let words: Vec<String> = line
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words
        .windows(2)
        .any(|w| (w[0] == "not" && w[1] == "yet") || (w[0] == "yet" && w[1] == "to"))
        || words
            .windows(3)
            .any(|w| (w[0] == "not" || w[0] == "no") && w[2] == "yet")
        || words.windows(4).any(|w| w[0] == "no" && w[3] == "yet")
}

/// The prose of a file: a Markdown file's lines, a Rust file's `///` and `//!` lines, without
/// fenced code blocks (a string in an example is not a claim).
fn doc_lines(path: &Path) -> Vec<(usize, String)> {
    let text = read(path);
    let rust = path.extension().is_some_and(|e| e == "rs");
    let mut fenced = false;
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let doc = if rust {
                let t = l.trim_start();
                (t.starts_with("///") || t.starts_with("//!")).then(|| t[3..].to_owned())?
            } else {
                l.to_owned()
            };
            if doc.trim_start().starts_with("```") {
                fenced = !fenced;
                return None;
            }
            (!fenced).then_some((i + 1, doc))
        })
        .collect()
}

/// Whether some test in `tests/` or `examples/` is `fn name(`.
fn test_exists(name: &str, tests: &[String]) -> bool {
    let needle = format!("fn {name}(");
    tests.iter().any(|t| t.contains(&needle))
}

#[test]
fn every_not_yet_names_the_test_that_pins_it() {
    let root = root();
    let mut docs = vec![root.join("README.md")];
    files(&root.join("docs"), "md", &mut docs);
    files(&root.join("phantom/src"), "md", &mut docs);
    files(&root.join("phantom/src"), "rs", &mut docs);
    files(&root.join("phantom-macros/src"), "rs", &mut docs);
    let mut examples = Vec::new();
    files(&root.join("examples"), "rs", &mut examples);
    docs.extend(examples.iter().cloned());
    let mut test_files = Vec::new();
    files(&root.join("tests"), "rs", &mut test_files);
    test_files.extend(examples);
    let tests: Vec<String> = test_files.iter().map(|p| read(p)).collect();

    let mut unpinned = Vec::new();
    for path in &docs {
        let lines = doc_lines(path);
        for (k, (n, line)) in lines.iter().enumerate() {
            if !says_not_yet(line) {
                continue;
            }
            // The pin may close the sentence on the next line or two.
            let around: String = lines[k..lines.len().min(k + 3)]
                .iter()
                .map(|(_, l)| l.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let pinned = around
                .split("pinned by `")
                .nth(1)
                .and_then(|rest| rest.split('`').next())
                .map(|name| name.rsplit("::").next().unwrap_or(name).to_owned());
            match pinned {
                Some(name) if test_exists(&name, &tests) => {}
                Some(name) => unpinned.push(format!(
                    "{}:{n}: pinned by `{name}`, which no test defines",
                    path.strip_prefix(&root).unwrap_or(path).display()
                )),
                None => unpinned.push(format!(
                    "{}:{n}: {}",
                    path.strip_prefix(&root).unwrap_or(path).display(),
                    line.trim()
                )),
            }
        }
    }
    assert!(
        unpinned.is_empty(),
        "a limitation is written `Not yet: … (pinned by `test_name`)` with a test that shows it; \
         fix these or say what works:\n{}",
        unpinned.join("\n")
    );
}

#[test]
fn the_not_yet_reader_reads_what_it_should() {
    assert!(says_not_yet("9. Not yet: task notifications."));
    assert!(says_not_yet("carry no event ids yet"));
    assert!(says_not_yet("which phantom does not serve yet"));
    assert!(says_not_yet("it is yet to land"));
    assert!(!says_not_yet("a task still running"));
    assert!(!says_not_yet("yet the task goes on"));
}

/// The examples' table rows (README and ARCHITECTURE) name every example binary.
#[test]
fn the_example_lists_name_every_example() {
    let root = root();
    let manifest = read(&root.join("examples/Cargo.toml"));
    let bins: Vec<&str> = manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|section| {
            let line = section
                .lines()
                .find(|l| l.trim_start().starts_with("name"))?;
            line.split('"').nth(1)
        })
        .collect();
    assert!(bins.contains(&"studies"), "the manifest reads: {bins:?}");
    for doc in ["README.md", "docs/ARCHITECTURE.md"] {
        let text = read(&root.join(doc));
        let row = text
            .lines()
            .find(|l| l.starts_with("| `examples/`"))
            .unwrap_or_else(|| panic!("{doc} has an `examples/` row"));
        let missing: Vec<&&str> = bins
            .iter()
            .filter(|b| !row.contains(&format!("`{b}`")))
            .collect();
        assert!(
            missing.is_empty(),
            "{doc}'s `examples/` row leaves out {missing:?}: name each example there"
        );
    }
}

/// Every constructor and setter of `input::Form` and `input::Field` is shown in a doc example of
/// `phantom/src/input/form.rs`, so that the docs show each way to build a form (`Field::choice`,
/// `.default(…)`) and a reader never has to find one in the source.
#[test]
fn every_form_and_field_method_is_shown_in_an_example() {
    let path = root().join("phantom/src/input/form.rs");
    let text = read(&path);
    let mut example = String::new();
    let mut fenced = false;
    for line in text.lines() {
        let Some(doc) = line.trim_start().strip_prefix("///") else {
            continue;
        };
        if doc.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if fenced {
            example.push_str(doc);
            example.push('\n');
        }
    }
    let methods: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("    pub fn "))
        .filter_map(|rest| rest.split(['(', '<']).next())
        .collect();
    assert!(methods.len() >= 20, "the methods were read: {methods:?}");
    for method in methods {
        assert!(
            example.contains(&format!("::{method}("))
                || example.contains(&format!(".{method}("))
                || example.contains(&format!("::{method}::<")),
            "`{method}` of `Form`/`Field` is in no doc example of {}",
            path.display()
        );
    }
}
