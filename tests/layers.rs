//! The runtime's layers point one way (`docs/ARCHITECTURE.md`, "Layers"): every `crate::…` path
//! (and every `super::…` path that climbs to the crate root) in `phantom/src` is read, and a room
//! that names a room of a higher layer fails this test, naming the file and the import. Inside
//! L4 the feature rooms have an order ([`FEATURES`]): one that names a room after it fails too.
//!
//! `tests/layers/upward.txt` lists the upward imports that are still being untangled, one
//! `file -> room` per line: an unlisted one fails, and so does a listed one that is gone, so the
//! list only shrinks.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, lowest first. A room may use its own layer and the layers below it.
const LAYERS: &[&[&str]] = &[
    &["protocol", "error", "content"],
    &["kernel", "store"],
    &["session", "auth", "authz", "telemetry"],
    &["extract", "input"],
    FEATURES,
    &["router", "registry", "server"],
    &["dispatch", "node"],
    &["transport", "testing", "client", "gateway"],
];

/// The feature rooms (L4) in the order they may use each other: a room may use the rooms before
/// it, never one after it. `docs/ARCHITECTURE.md` lists them in this order, with the reason for
/// each place.
const FEATURES: &[&str] = &[
    "logging",
    "apps",
    "completion",
    "prompts",
    "resources",
    "tools",
    "tasks",
    "skills",
    "subscriptions",
];

/// Files that sit above every layer: the crate root and what generated code and fuzz targets name.
const ROOT: &[&str] = &["lib", "__private", "__fuzz"];

fn layer_of(room: &str) -> Option<usize> {
    LAYERS.iter().position(|rooms| rooms.contains(&room))
}

/// Whether feature room `from` names feature room `to` that comes after it in [`FEATURES`].
fn out_of_order(from: &str, to: &str) -> bool {
    let rank = |room| FEATURES.iter().position(|r| *r == room);
    matches!((rank(from), rank(to)), (Some(from), Some(to)) if to > from)
}

/// What the crate root re-exports, by name: `pub use session::{Request, Session};` in `lib.rs`
/// makes `crate::Session` a path into the `session` room.
fn root_names(lib: &str) -> Vec<(String, String)> {
    let code = code_only(lib);
    let mut names = Vec::new();
    for (at, _) in code.match_indices("pub use ") {
        let rest = &code[at + "pub use ".len()..];
        let Some(end) = rest.find(';') else { continue };
        let path = rest[..end].trim();
        let room = ident_at(path, 0);
        if layer_of(room).is_none() {
            continue;
        }
        let group = match path.find('{') {
            Some(open) => &path[open + 1..path.len() - 1],
            None => path.rsplit("::").next().unwrap_or(path),
        };
        for name in group.split(',') {
            let name = name.trim().rsplit("::").next().unwrap_or("").trim();
            if !name.is_empty() {
                names.push((name.to_owned(), room.to_owned()));
            }
        }
    }
    names
}

/// The room a file belongs to, and the module path of the file below the crate root.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("a file of src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    match stem {
        "mod" | "lib" => {}
        "private" if parts.is_empty() => parts.push("__private".into()),
        _ => parts.push(stem.into()),
    }
    parts
}

/// The text of `source` with comments, string and char literals blanked out.
fn code_only(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &source[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').map_or(source.len(), |n| i + n);
            i = end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(source.len(), |n| i + n + 2);
            out.extend(source[i..end].chars().filter(|c| *c == '\n'));
            i = end;
        } else if let Some(hashes) = raw_string_start(rest) {
            let close = format!("\"{}", "#".repeat(hashes));
            let open = 2 + hashes + usize::from(rest.starts_with("br"));
            let end = rest[open..]
                .find(&close)
                .map_or(source.len(), |n| i + open + n + close.len());
            out.push_str("\"\"");
            i = end;
        } else if rest.starts_with('"') {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = j + 1;
        } else if rest.starts_with('\'') && char_literal_len(rest).is_some() {
            out.push_str("' '");
            i += char_literal_len(rest).unwrap_or(1);
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn raw_string_start(rest: &str) -> Option<usize> {
    let tail = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r'))?;
    let hashes = tail.bytes().take_while(|b| *b == b'#').count();
    tail[hashes..].starts_with('"').then_some(hashes)
}

/// The length of a char literal at the start of `rest` (`'a'`, `'\n'`, `'\u{1F600}'`), or `None`
/// for a lifetime.
fn char_literal_len(rest: &str) -> Option<usize> {
    let body = &rest[1..];
    if let Some(esc) = body.strip_prefix('\\') {
        let end = esc.find('\'')?;
        (end <= 10).then_some(end + 3)
    } else {
        let c = body.chars().next()?;
        body[c.len_utf8()..]
            .starts_with('\'')
            .then_some(c.len_utf8() + 2)
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn ident_at(code: &str, at: usize) -> &str {
    let len = code[at..].bytes().take_while(|b| is_ident(*b)).count();
    &code[at..at + len]
}

/// The first segments (rooms) that the paths starting at `at` name: one for `crate::tools::…`,
/// several for `crate::{tools::…, prompts}`.
fn first_segments(code: &str, at: usize) -> Vec<String> {
    let rest = code[at..].trim_start();
    let offset = code.len() - rest.len();
    if let Some(group) = rest.strip_prefix('{') {
        let mut depth = 0usize;
        let mut names = Vec::new();
        let mut expect_name = true;
        for (n, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => expect_name = true,
                c if expect_name && depth == 0 && (c.is_ascii_alphabetic() || c == '_') => {
                    names.push(ident_at(code, offset + 1 + n).to_owned());
                    expect_name = false;
                }
                _ => {}
            }
        }
        names
    } else {
        vec![ident_at(code, offset).to_owned()]
    }
}

/// Every room `file` names through `crate::…` or a `super::` chain that climbs to the root.
fn imports(module: &[String], code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let bytes = code.as_bytes();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && (is_ident(bytes[at - 1]) || bytes[at - 1] == b'$') {
            continue;
        }
        found.extend(first_segments(code, at + "crate::".len()));
    }
    for (at, _) in code.match_indices("super::") {
        if at > 0 && (is_ident(bytes[at - 1]) || bytes[at - 1] == b':') {
            continue;
        }
        let mut depth = 0;
        let mut next = at;
        while code[next..].starts_with("super::") {
            depth += 1;
            next += "super::".len();
        }
        // `super` of a file's module; inline `mod tests` add one level, which only reaches the
        // file's own module, so a chain climbs to the root only when it is longer than the path.
        if depth >= module.len() && depth <= module.len() + 1 {
            let climbed = depth - module.len();
            if climbed == 0 || code[..at].contains("mod tests") {
                found.extend(first_segments(code, next));
            }
        }
    }
    found.retain(|room| !room.is_empty() && room != "self");
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable src") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every upward import in the tree at `src` (and every import of a feature room that comes later
/// in [`FEATURES`]), as `file -> room` lines (file relative to `src`).
fn upward_imports(src: &Path) -> Result<BTreeSet<String>, String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let aliases = root_names(&fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    let mut upward = BTreeSet::new();
    for file in files {
        let module = module_of(src, &file);
        let room = module.first().map_or("lib", String::as_str);
        if ROOT.contains(&room) {
            continue;
        }
        let layer = layer_of(room).ok_or_else(|| {
            format!(
                "{}: room `{room}` is in no layer; add it to LAYERS here and to docs/ARCHITECTURE.md",
                file.display()
            )
        })?;
        let code = code_only(&fs::read_to_string(&file).expect("readable file"));
        for target in imports(&module, &code) {
            let target = aliases
                .iter()
                .find(|(name, _)| *name == target)
                .map_or(target, |(_, room)| room.clone());
            if target == room || ROOT.contains(&target.as_str()) && target != "__private" {
                continue;
            }
            let Some(target_layer) = layer_of(&target) else {
                // A crate-root item (a macro, a re-export) rather than a room.
                continue;
            };
            if target_layer > layer || target == "__private" || out_of_order(room, &target) {
                let rel = file.strip_prefix(src).expect("in src");
                upward.insert(format!("{} -> {target}", rel.display()));
            }
        }
    }
    Ok(upward)
}

fn allowed(list: &Path) -> BTreeSet<String> {
    fs::read_to_string(list)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

fn check(src: &Path, list: &Path) -> Result<(), String> {
    let found = upward_imports(src)?;
    let listed = allowed(list);
    let mut problems = Vec::new();
    for import in found.difference(&listed) {
        let (file, room) = import.split_once(" -> ").expect("formatted above");
        let from_room = room_of(file);
        if out_of_order(from_room, room) {
            problems.push(format!(
                "phantom/src/{file} imports `crate::{room}`: the L4 room `{from_room}` comes before `{room}` in the order of feature rooms and may not use it (move what they share below L4, or invert the dependency with a trait defined in `{from_room}`)"
            ));
            continue;
        }
        let (from, to) = (layer_of(from_room), layer_of(room));
        problems.push(format!(
            "phantom/src/{file} imports `crate::{room}`: L{} may not use L{} (move what it needs down, or invert the dependency with a trait defined in the lower room)",
            from.unwrap_or(0),
            to.unwrap_or(0),
        ));
    }
    for gone in listed.difference(&found) {
        problems.push(format!(
            "`{gone}` is listed in tests/layers/upward.txt but no longer imported: delete the line"
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn room_of(file: &str) -> &str {
    let first = file.split('/').next().unwrap_or(file);
    first.trim_end_matches(".rs")
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

#[test]
fn rooms_import_only_from_their_layer_and_below() {
    let root = workspace();
    if let Err(problems) = check(
        &root.join("phantom/src"),
        &root.join("tests/layers/upward.txt"),
    ) {
        panic!("upward imports in phantom/src:\n{problems}");
    }
}

/// The check run on a copy of `phantom/src` whose `file` starts with `import`.
fn check_with(file: &str, import: &str) -> Result<(), String> {
    let root = workspace();
    let tag = file.replace(['/', '.'], "-");
    let scratch = std::env::temp_dir().join(format!("phantom-layers-{}-{tag}", std::process::id()));
    let _ = fs::remove_dir_all(&scratch);
    copy_dir(&root.join("phantom/src"), &scratch);
    let victim = scratch.join(file);
    let text = fs::read_to_string(&victim).expect("the file injected into");
    fs::write(&victim, format!("{import}\n{text}")).expect("writable");
    let outcome = check(&scratch, &root.join("tests/layers/upward.txt"));
    let _ = fs::remove_dir_all(&scratch);
    outcome
}

#[test]
fn a_deliberate_upward_import_fails_naming_file_and_import() {
    let outcome = check_with("protocol/mod.rs", "use crate::dispatch::Dispatcher;");
    let problems = outcome.expect_err("an upward import must fail the check");
    assert!(
        problems
            .contains("phantom/src/protocol/mod.rs imports `crate::dispatch`: L0 may not use L6"),
        "{problems}"
    );
}

#[test]
fn a_deliberate_import_against_the_order_of_feature_rooms_fails_naming_file_and_import() {
    let outcome = check_with("tools/mod.rs", "use crate::tasks::Running;");
    let problems = outcome.expect_err("an import of a later feature room must fail the check");
    assert!(
        problems.contains(
            "phantom/src/tools/mod.rs imports `crate::tasks`: the L4 room `tools` comes before `tasks` in the order of feature rooms and may not use it"
        ),
        "{problems}"
    );
    assert_eq!(problems.lines().count(), 1, "{problems}");
}

#[test]
fn a_feature_room_may_use_the_rooms_before_it() {
    check_with("tasks/mod.rs", "use crate::tools::Table;").expect("tasks comes after tools");
    assert!(out_of_order("completion", "prompts"));
    assert!(!out_of_order("prompts", "completion"));
    assert!(
        !out_of_order("tools", "session"),
        "other layers are not ordered here"
    );
}

/// The order written in `docs/ARCHITECTURE.md` ("Layers": the numbered list under L4).
fn documented_order(architecture: &str) -> Vec<String> {
    let mut lines = architecture
        .lines()
        .skip_while(|line| !line.starts_with("- **L4**"));
    lines.next();
    lines
        .map(str::trim_start)
        .map_while(|line| {
            let (number, rest) = line.split_once(". `")?;
            number.parse::<usize>().ok()?;
            Some(rest.split('`').next().unwrap_or("").to_owned())
        })
        .collect()
}

#[test]
fn the_order_of_feature_rooms_is_the_documented_one() {
    let architecture =
        fs::read_to_string(workspace().join("docs/ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    assert_eq!(
        documented_order(&architecture),
        FEATURES,
        "docs/ARCHITECTURE.md (\"Layers\", L4) and FEATURES in tests/layers.rs must list the feature rooms in one order"
    );
}

#[test]
fn root_re_exports_resolve_to_their_rooms() {
    let names = root_names(
        "pub use session::{Request, Session};\npub use transport::http;\npub use extract::ctx::Ctx;\nmod x;",
    );
    let names: Vec<(&str, &str)> = names
        .iter()
        .map(|(n, r)| (n.as_str(), r.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("Request", "session"),
            ("Session", "session"),
            ("http", "transport"),
            ("Ctx", "extract")
        ]
    );
}

#[test]
fn grouped_and_super_paths_are_read() {
    let code = code_only(
        "use crate::{tools::X, prompts::{A, B}};\n// use crate::dispatch::Y;\nlet s = \"crate::router\";\nsuper::server::Z;",
    );
    let module = vec!["tools".to_owned()];
    let found = imports(&module, &code);
    let found: Vec<&str> = found.iter().map(String::as_str).collect();
    assert_eq!(found, ["prompts", "server", "tools"]);
}

/// The calls that decode a message's envelope, and the files allowed to make them: the one reader
/// (`dispatch/read.rs`), its scan, and the definitions.
const ENVELOPE_DECODERS: &[(&str, &[&str])] = &[
    (
        "Incoming::parse(",
        &["dispatch/read.rs", "protocol/jsonrpc.rs"],
    ),
    (
        "ParamsHead::read(",
        &["dispatch/read.rs", "dispatch/envelope.rs"],
    ),
    (
        "Incoming::from_members(",
        &["dispatch/scan.rs", "protocol/jsonrpc.rs"],
    ),
    ("scan::scan(", &["dispatch/read.rs"]),
];

/// The Rust files under `dir`, in order, each as its path from `src` and its text.
fn sources(src: &Path, dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let rel = file.strip_prefix(src).expect("in src");
            let rel = rel.to_string_lossy().replace('\\', "/");
            (rel, fs::read_to_string(&file).expect("readable file"))
        })
        .collect()
}

/// Every call of an envelope decoder outside the one reader, as `file: call` lines.
fn other_envelope_readers(src: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for (rel, source) in sources(src, src) {
        let code = code_only(&source);
        for (call, allowed) in ENVELOPE_DECODERS {
            if code.contains(call) && !allowed.contains(&rel.as_str()) {
                found.push(format!("{rel}: {call}"));
            }
        }
    }
    found
}

#[test]
fn inbound_messages_have_one_reader() {
    let others = other_envelope_readers(&workspace().join("phantom/src"));
    assert!(
        others.is_empty(),
        "a message's envelope is decoded outside `dispatch::read_message_within` (read it there, \
         once, and hand the message and its head on):\n{}",
        others.join("\n")
    );
}

#[test]
fn a_second_reader_of_the_envelope_fails() {
    let root = workspace();
    let scratch = std::env::temp_dir().join(format!("phantom-readers-{}", std::process::id()));
    let _ = fs::remove_dir_all(&scratch);
    copy_dir(&root.join("phantom/src"), &scratch);
    let victim = scratch.join("transport/http/post.rs");
    let text = fs::read_to_string(&victim).expect("post.rs");
    fs::write(
        &victim,
        format!("{text}\nfn again(t: &str) {{ let _ = crate::protocol::Incoming::parse(t); }}\n"),
    )
    .expect("writable");
    let others = other_envelope_readers(&scratch);
    let _ = fs::remove_dir_all(&scratch);
    assert_eq!(others, ["transport/http/post.rs: Incoming::parse("]);
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("scratch dir");
    for entry in fs::read_dir(from).expect("readable") {
        let path = entry.expect("entry").path();
        let dest = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_dir(&path, &dest);
        } else {
            fs::copy(&path, &dest).expect("copied");
        }
    }
}

/// The wire names of MCP's methods, as `Method::as_str` spells them in `protocol/method.rs`.
fn method_names(method_rs: &str) -> BTreeSet<String> {
    let start = method_rs
        .find("pub fn as_str(self)")
        .expect("`Method::as_str` in protocol/method.rs");
    let body = &method_rs[start..];
    let body = &body[..body.find("\n    }\n").expect("the end of `as_str`")];
    body.lines()
        .filter_map(|line| {
            let (_, name) = line.split_once("=> \"")?;
            Some(name.split('"').next()?.to_owned())
        })
        .collect()
}

/// The string literals of `source` outside comments, with their line numbers.
fn string_literals(source: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let code = match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        };
        let mut parts = code.split('"');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            found.push((n + 1, inside.to_owned()));
        }
    }
    found
}

/// Every quoted MCP method name in the client's files, as `file:line: "name"` lines.
fn client_method_literals(src: &Path) -> Vec<String> {
    let names =
        method_names(&fs::read_to_string(src.join("protocol/method.rs")).expect("method.rs"));
    let mut found = Vec::new();
    for (rel, source) in sources(src, &src.join("client")) {
        for (line, literal) in string_literals(&source) {
            if names.contains(&literal) {
                found.push(format!("{rel}:{line}: \"{literal}\""));
            }
        }
    }
    found
}

/// Closed sets are enums (`STYLE.md`): the client names MCP methods by `Method`, never by a
/// string it could misspell.
#[test]
fn the_client_names_methods_by_method_not_by_string() {
    let found = client_method_literals(&workspace().join("phantom/src"));
    assert!(
        found.is_empty(),
        "an MCP method name written as a string in `phantom/src/client/` (write \
         `Method::X.as_str()`, or match on `Method::parse`):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_method_literal_in_the_client_fails() {
    let root = workspace();
    let scratch = std::env::temp_dir().join(format!("phantom-methods-{}", std::process::id()));
    let _ = fs::remove_dir_all(&scratch);
    copy_dir(&root.join("phantom/src"), &scratch);
    let victim = scratch.join("client/calls.rs");
    let text = fs::read_to_string(&victim).expect("calls.rs");
    let lines = text.lines().count();
    fs::write(
        &victim,
        format!(
            "{text}\n// \"tools/list\" in a comment is prose\nconst LIST: &str = \"tools/list\";\n"
        ),
    )
    .expect("writable");
    let found = client_method_literals(&scratch);
    let _ = fs::remove_dir_all(&scratch);
    assert_eq!(
        found,
        [format!("client/calls.rs:{}: \"tools/list\"", lines + 3)]
    );
}
