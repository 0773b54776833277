//! `new`, then `cargo test` in the new crate, built against this checkout (`--path`): it passes
//! at once, for the HTTP-and-stdio crate and for `--stdio-only`.

mod common;

use std::process::Command;

use common::{Sandbox, both, test_target_dir, workspace};

/// `cargo test` in `dir`, with the workspace's lock file (no other versions are resolved) and
/// the tests' shared target directory (dependencies are built once across runs).
fn cargo_test(sandbox: &Sandbox, dir: &std::path::Path) -> std::process::Output {
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.args(["test", "--quiet"]).current_dir(dir);
    sandbox.isolate(&mut command);
    command.env("CARGO_TARGET_DIR", test_target_dir());
    command.output().expect("cargo runs")
}

fn new_then_test(name: &str, extra: &[&str]) -> String {
    let sandbox = Sandbox::new("new");
    let phantom = workspace().join("phantom");
    let mut args = vec!["new", name, "--path", phantom.to_str().unwrap()];
    args.extend(extra);
    let out = sandbox.run(&args);
    assert!(out.status.success(), "{}", both(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("cd {name} && cargo test")));
    let dir = sandbox.work().join(name);
    let tested = cargo_test(&sandbox, &dir);
    assert!(tested.status.success(), "{}", both(&tested));
    let stdout = String::from_utf8_lossy(&tested.stdout);
    assert!(stdout.contains("1 passed"), "{}", both(&tested));
    // No warning either: what `new` writes compiles clean.
    assert!(
        !String::from_utf8_lossy(&tested.stderr).contains("warning"),
        "{}",
        both(&tested)
    );

    // Once made, the name is taken; a bad name says what a name may be.
    let again = sandbox.run(&["new", name]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("exists already"),
        "{}",
        both(&again)
    );
    std::fs::read_to_string(dir.join("Cargo.toml")).unwrap()
}

#[test]
fn new_crate_tests_pass() {
    let manifest = new_then_test("demo_new", &[]);
    assert!(manifest.contains("phantom-mcp = { path = "), "{manifest}");
    assert!(
        !manifest.contains("[package.metadata.phantom]"),
        "{manifest}"
    );
}

#[test]
fn stdio_only_crate_tests_pass() {
    let manifest = new_then_test("demo-stdio", &["--stdio-only"]);
    assert!(manifest.contains("transport = \"stdio\""), "{manifest}");
}

#[test]
fn bad_names_are_refused_with_help() {
    let sandbox = Sandbox::new("new");
    for name in ["9lives", "my server", "-x"] {
        let out = sandbox.run(&["new", "--", name]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", both(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("help: start with a letter"), "{stderr}");
    }
    assert_eq!(std::fs::read_dir(sandbox.work()).unwrap().count(), 0);
}

#[test]
fn redis_and_client_are_added_beside_phantom_and_resolve() {
    let sandbox = Sandbox::new("new");
    let phantom = workspace().join("phantom");
    let name = "demo_redis";
    let out = sandbox.run(&[
        "new",
        name,
        "--path",
        phantom.to_str().unwrap(),
        "--redis",
        "--client",
    ]);
    assert!(out.status.success(), "{}", both(&out));
    let dir = sandbox.work().join(name);
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let redis = workspace().join("phantom-redis").canonicalize().unwrap();
    let redis = redis.to_string_lossy().replace('\\', "/");
    assert!(
        manifest.contains(&format!("phantom-redis = {{ path = \"{redis}\" }}")),
        "{manifest}"
    );
    assert!(manifest.contains("features = [\"client\"] }"), "{manifest}");
    // The manifest resolves against the checkout (both path dependencies found, the feature known).
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command
        .args(["metadata", "--format-version", "1", "--offline"])
        .current_dir(&dir);
    sandbox.isolate(&mut command);
    let resolved = command.output().expect("cargo runs");
    assert!(resolved.status.success(), "{}", both(&resolved));
    let metadata: serde_json::Value = serde_json::from_slice(&resolved.stdout).unwrap();
    let packages: Vec<&str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(packages.contains(&"phantom-redis"), "{packages:?}");
}

#[test]
fn new_from_a_checkouts_build_says_how_to_depend_on_the_checkout() {
    let sandbox = Sandbox::new("new");
    let out = sandbox.run(&["new", "demo_hint"]);
    assert!(out.status.success(), "{}", both(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let phantom = workspace().join("phantom").canonicalize().unwrap();
    assert!(
        stdout.contains(&format!(
            "cargo phantom new demo_hint --path {}",
            phantom.display()
        )),
        "{stdout}"
    );
    let manifest =
        std::fs::read_to_string(sandbox.work().join("demo_hint").join("Cargo.toml")).unwrap();
    assert!(manifest.contains("phantom-mcp = \"0.1\""), "{manifest}");
}
