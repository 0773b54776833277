//! `new`: a crate from the README quickstart — the dependencies, a tool, a resource, a prompt
//! and an in-process test — that `cargo test` passes at once.

use std::path::Path;
use std::process::ExitCode;

use crate::cli::NewArgs;
use crate::{Failure, Outcome};

const MAIN: &str = include_str!("../templates/main.rs");
const MAIN_HTTP: &str = include_str!("../templates/main_http.rs");
const MAIN_STDIO: &str = include_str!("../templates/main_stdio.rs");
const MANIFEST: &str = include_str!("../templates/manifest.toml");
const GITIGNORE: &str = "/target\n";

/// The version requirement of phantom-mcp a new crate starts with: this tool's own minor.
fn phantom_requirement() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let minor: Vec<&str> = version.split('.').take(2).collect();
    format!("\"{}\"", minor.join("."))
}

/// `my_server` → `MyServer`.
fn type_name(name: &str) -> String {
    name.split(['_', '-'])
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

fn check_name(name: &str) -> Result<(), Failure> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return Err(
            Failure::new(format!("`{name}` is not a crate name this can use"))
                .help("start with a letter, then letters, digits, `_` or `-` (`my-server`)"),
        );
    }
    if type_name(name) == "Self" || matches!(name, "test" | "core" | "std" | "alloc" | "proc_macro")
    {
        return Err(Failure::new(format!("`{name}` is reserved")).help("choose another name"));
    }
    Ok(())
}

/// The `phantom/` directory of the checkout this tool was built from, when it was (installed
/// from crates.io, its sources have no such sibling).
fn checkout() -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()?
        .join("phantom");
    let dir = std::fs::canonicalize(dir).ok()?;
    dir.join("Cargo.toml").is_file().then_some(dir)
}

/// A dependency table's value: `{ path = "…" }` or the version requirement, with `features`.
fn dependency(source: &str, features: &[&str]) -> String {
    if features.is_empty() {
        return source.to_owned();
    }
    let list = features
        .iter()
        .map(|f| format!("\"{f}\""))
        .collect::<Vec<_>>()
        .join(", ");
    match source.strip_prefix("{ ").and_then(|s| s.strip_suffix(" }")) {
        Some(inner) => format!("{{ {inner}, features = [{list}] }}"),
        None => format!("{{ version = {source}, features = [{list}] }}"),
    }
}

/// The files of the crate, as (path, contents).
fn files(args: &NewArgs) -> Result<Vec<(&'static str, String)>, Failure> {
    let name = args.name.as_str();
    let phantom = match &args.path {
        Some(dir) => {
            let dir = std::fs::canonicalize(dir).map_err(|e| {
                Failure::new(format!("cannot find `{}`: {e}", dir.display()))
                    .help("give the `phantom/` directory of a phantom checkout")
            })?;
            if !dir.join("Cargo.toml").is_file() {
                return Err(Failure::new(format!("`{}` has no Cargo.toml", dir.display()))
                    .help("give the `phantom/` directory of a phantom checkout (the package `phantom-mcp`)"));
            }
            let path = dir.to_string_lossy().replace('\\', "/");
            format!("{{ path = \"{path}\" }}")
        }
        None => phantom_requirement(),
    };
    // `phantom-redis` sits beside `phantom/` in a checkout, and has the same version.
    let redis = match &args.path {
        Some(_) => phantom.replace("/phantom\" }", "/phantom-redis\" }"),
        None => phantom_requirement(),
    };
    let mut dependencies = String::new();
    if args.redis {
        dependencies.push_str(&format!("phantom-redis = {redis}\n"));
    }
    let features: &[&str] = if args.client { &["client"] } else { &[] };
    let phantom = dependency(&phantom, features);
    let (main, extra_features) = if args.stdio_only {
        (MAIN_STDIO, "")
    } else {
        (MAIN_HTTP, ", \"net\"")
    };
    let fill = |template: &str| {
        template
            .replace("{{main}}", main.trim_end())
            .replace("{{Type}}", &type_name(name))
            .replace("{{scheme}}", &name.replace('_', "-").to_ascii_lowercase())
            .replace("{{phantom}}", &phantom)
            .replace("{{tokio_features}}", extra_features)
            .replace("{{dependencies}}", &dependencies)
            .replace("{{name}}", name)
    };
    let mut manifest = fill(MANIFEST);
    if args.stdio_only {
        // `dev` reads it: a stdio server is started by its host, not served on an address.
        manifest.push_str("\n[package.metadata.phantom]\ntransport = \"stdio\"\n");
    }
    Ok(vec![
        ("Cargo.toml", manifest),
        ("src/main.rs", fill(MAIN)),
        (".gitignore", GITIGNORE.to_owned()),
    ])
}

/// `cargo phantom new`.
pub(crate) fn run(args: &NewArgs) -> Outcome {
    check_name(&args.name)?;
    let root = Path::new(&args.name);
    if root.exists() {
        return Err(Failure::new(format!("`{}` exists already", args.name))
            .help("choose another name, or remove it first"));
    }
    let files = files(args)?;
    for (path, contents) in files {
        let path = root.join(path);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, contents));
        written.map_err(|e| Failure::new(format!("cannot write `{}`: {e}", path.display())))?;
    }
    let how = if args.stdio_only {
        "`cargo run` serves stdin/stdout (a host starts it: `cargo phantom install`)"
    } else {
        "`cargo run` serves http://127.0.0.1:4000/mcp, `cargo run -- --stdio` stdin/stdout"
    };
    println!(
        "created `{}`: a tool, a resource, a prompt and a test",
        args.name
    );
    println!("  cd {} && cargo test", args.name);
    println!("  {how}; `cargo phantom dev` rebuilds and restarts it on every change");
    if args.path.is_none()
        && let Some(dir) = checkout()
    {
        println!(
            "  this cargo-phantom was built from a checkout: to build against it rather than the crates.io release, run `cargo phantom new {} --path {}`",
            args.name,
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
