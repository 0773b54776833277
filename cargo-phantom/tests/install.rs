//! `install` for each host, in a temporary `HOME` and working directory: the file is written at
//! the host's documented path, parses, has the shape of the host's fixture, merges with what is
//! there (a backup kept), refuses to replace a different entry without `--force`; `--dry-run`
//! writes nothing.

mod common;

use std::path::{Path, PathBuf};

use common::{Sandbox, both};
use serde_json::{Value, json};

/// A value's shape: objects keep their keys, arrays their elements' shapes, and every other
/// value becomes the name of its JSON type.
fn shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::String(_) => json!("string"),
        Value::Number(_) => json!("number"),
        Value::Bool(_) => json!("boolean"),
        Value::Null => json!("null"),
    }
}

fn fixture(host: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{host}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The host's documented file, in the sandbox.
fn file_of(sandbox: &Sandbox, host: &str) -> PathBuf {
    match host {
        "claude-desktop" => sandbox
            .home()
            .join(".config/Claude/claude_desktop_config.json"),
        "claude-code" => sandbox.home().join(".claude.json"),
        "cursor" => sandbox.home().join(".cursor/mcp.json"),
        "vscode" => sandbox.work().join(".vscode/mcp.json"),
        _ => unreachable!(),
    }
}

const STDIO: &[&str] = &[
    "--name",
    "stdio-server",
    "--env",
    "API_KEY=secret",
    "--",
    "my-server",
    "--stdio",
];
const HTTP: &[&str] = &[
    "--name",
    "http-server",
    "--http",
    "http://127.0.0.1:4000/mcp",
    "--header",
    "Authorization: Bearer secret",
];

fn install(sandbox: &Sandbox, host: &str, entry: &[&str], extra: &[&str]) -> std::process::Output {
    let mut args = vec!["install", host];
    args.extend(extra);
    args.extend(entry);
    sandbox.run(&args)
}

fn writes_the_documented_shape(host: &str, http: bool) {
    let sandbox = Sandbox::new("install");
    let path = file_of(&sandbox, host);
    let out = install(&sandbox, host, STDIO, &[]);
    assert!(out.status.success(), "{}", both(&out));
    if http {
        let out = install(&sandbox, host, HTTP, &[]);
        assert!(out.status.success(), "{}", both(&out));
    }
    let written = read(&path);
    assert_eq!(shape(&written), shape(&fixture(host)), "{written}");
    assert_eq!(
        written,
        fixture(host),
        "the values are those of the command line"
    );

    // Merged into a file with other settings and servers; the old file kept as `.bak`.
    let key = if host == "vscode" {
        "servers"
    } else {
        "mcpServers"
    };
    let before = json!({"theme": "dark", key: {"other": {"command": "other-server", "args": []}}});
    std::fs::write(&path, serde_json::to_string(&before).unwrap()).unwrap();
    let out = install(&sandbox, host, STDIO, &[]);
    assert!(out.status.success(), "{}", both(&out));
    let merged = read(&path);
    assert_eq!(merged["theme"], "dark");
    assert_eq!(merged[key]["other"], before[key]["other"]);
    assert_eq!(
        merged[key]["stdio-server"],
        fixture(host)[key]["stdio-server"]
    );
    let mut backup = path.as_os_str().to_owned();
    backup.push(".bak");
    assert_eq!(read(Path::new(&backup)), before);

    // A different entry of the same name is kept unless `--force`.
    let changed = ["--name", "stdio-server", "--", "my-server", "--other"];
    let out = install(&sandbox, host, &changed, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("has an entry `stdio-server` already"),
        "{stderr}"
    );
    assert!(stderr.contains("help: pass `--force`"), "{stderr}");
    assert_eq!(read(&path), merged);
    let out = install(&sandbox, host, &changed, &["--force"]);
    assert!(out.status.success(), "{}", both(&out));
    assert_eq!(read(&path)[key]["stdio-server"]["args"], json!(["--other"]));

    // `--dry-run` prints the document and writes nothing.
    let now = std::fs::read(&path).unwrap();
    let backup_now = std::fs::read(&backup).unwrap();
    let dry = ["--name", "dry", "--", "my-server"];
    let out = install(&sandbox, host, &dry, &["--dry-run"]);
    assert!(out.status.success(), "{}", both(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"dry\""),
        "{}",
        both(&out)
    );
    assert_eq!(std::fs::read(&path).unwrap(), now);
    assert_eq!(std::fs::read(&backup).unwrap(), backup_now);
}

#[test]
fn claude_desktop() {
    writes_the_documented_shape("claude-desktop", false);
    // Its file starts stdio servers only: an HTTP entry is refused with what to do instead.
    let sandbox = Sandbox::new("install");
    let out = install(&sandbox, "claude-desktop", HTTP, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Connectors"),
        "{}",
        both(&out)
    );
}

#[test]
fn claude_code() {
    writes_the_documented_shape("claude-code", true);
    // Project scope: `.mcp.json` in the working directory, same shape.
    let sandbox = Sandbox::new("install");
    let out = install(&sandbox, "claude-code", STDIO, &["--scope", "project"]);
    assert!(out.status.success(), "{}", both(&out));
    let written = read(&sandbox.work().join(".mcp.json"));
    assert_eq!(
        written["mcpServers"]["stdio-server"],
        fixture("claude-code")["mcpServers"]["stdio-server"]
    );
    assert!(!sandbox.home().join(".claude.json").exists());
}

#[test]
fn cursor() {
    writes_the_documented_shape("cursor", true);
}

#[test]
fn vscode() {
    writes_the_documented_shape("vscode", true);
}

#[test]
fn mcp_json_prints_or_writes_the_generic_document() {
    let sandbox = Sandbox::new("install");
    let out = install(&sandbox, "mcp-json", STDIO, &[]);
    assert!(out.status.success(), "{}", both(&out));
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        printed["mcpServers"]["stdio-server"],
        fixture("mcp-json")["mcpServers"]["stdio-server"]
    );
    let target = sandbox.work().join("mcp.json");
    let file = target.to_string_lossy();
    for entry in [STDIO, HTTP] {
        let out = install(&sandbox, "mcp-json", entry, &["--config", &file]);
        assert!(out.status.success(), "{}", both(&out));
    }
    assert_eq!(read(&target), fixture("mcp-json"));
    assert_eq!(
        std::fs::read_dir(sandbox.home()).unwrap().count(),
        0,
        "HOME is untouched"
    );
}

#[test]
fn a_relative_command_is_made_absolute() {
    let sandbox = Sandbox::new("install");
    std::fs::create_dir_all(sandbox.work().join("bin")).unwrap();
    std::fs::write(sandbox.work().join("bin/server"), "").unwrap();
    let out = install(&sandbox, "cursor", &["--", "./bin/server", "--stdio"], &[]);
    assert!(out.status.success(), "{}", both(&out));
    let written = read(&file_of(&sandbox, "cursor"));
    let command = written["mcpServers"]["server"]["command"].as_str().unwrap();
    assert!(Path::new(command).is_absolute(), "{written}");
    assert!(command.ends_with("/bin/server"), "{written}");
}
