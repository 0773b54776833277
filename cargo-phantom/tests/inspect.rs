//! `inspect`: the report of `examples/studies` (over HTTP and stdio) has no portability finding,
//! so `--strict` passes; a server that lists schemars' own spelling (`examples/nonportable.rs`
//! of this crate) has findings, and `--strict` fails.

mod common;

use std::path::PathBuf;

use common::{Sandbox, both, json_of, serve_studies, studies};

/// `examples/nonportable`: beside the test binaries when `cargo test` built it as an example
/// (`cargo test -p cargo-phantom`); else (`--all-targets` builds examples as tests) built into
/// the tests' own target directory.
fn nonportable() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let path = debug.join("examples").join("nonportable");
    if path.is_file() {
        return path;
    }
    common::built(
        "cargo-phantom",
        "examples/nonportable",
        &["--example", "nonportable"],
    )
}

#[test]
fn studies_passes_strict_over_http_and_stdio() {
    let sandbox = Sandbox::new("inspect");
    let served = serve_studies();
    let report = json_of(&sandbox.run(&["inspect", "--strict", "--json", &served.url]));
    assert_eq!(report["findings"], serde_json::json!([]), "{report}");
    assert_eq!(report["serverInfo"]["name"], "studies");
    assert!(report["capabilities"]["tools"].is_object(), "{report}");
    let search = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "search");
    let search = search.expect("search is listed");
    assert_eq!(search["annotations"]["readOnlyHint"], true, "{search}");
    assert_eq!(search["inputSchema"]["required"][0], "query", "{search}");
    assert!(!report["skills"].as_array().unwrap().is_empty(), "{report}");
    assert_eq!(
        report["resourceTemplates"][0]["uriTemplate"],
        "studies:///studies/{id}"
    );

    let stdio = sandbox.run(&[
        "inspect",
        "--strict",
        "--era",
        "legacy",
        "--",
        &studies().to_string_lossy(),
        "--stdio",
    ]);
    assert!(stdio.status.success(), "{}", both(&stdio));
    let text = String::from_utf8_lossy(&stdio.stdout);
    assert!(text.starts_with("server studies "), "{text}");
    assert!(text.contains("portability findings (0)"), "{text}");
}

#[test]
fn a_nonportable_schema_fails_strict() {
    let sandbox = Sandbox::new("inspect");
    let server = nonportable();
    let server = server.to_string_lossy();
    let report = json_of(&sandbox.run(&["inspect", "--json", "--", &server]));
    let findings = report["findings"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = findings
        .iter()
        .map(|f| (f["kind"].as_str().unwrap(), f["pointer"].as_str().unwrap()))
        .collect();
    assert!(kinds.contains(&("format", "/properties/times")), "{report}");
    assert!(
        kinds.contains(&("type-array", "/properties/separator")),
        "{report}"
    );

    let strict = sandbox.run(&["inspect", "--strict", "--", &server]);
    assert_eq!(strict.status.code(), Some(1), "{}", both(&strict));
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert!(
        stderr.contains("error: 2 portability finding(s) (--strict)"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&strict.stdout).contains("non-standard `format` `uint32`"));
}
