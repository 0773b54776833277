//! What `dev` asks cargo: which package and binary (`cargo metadata`), and a build that names
//! the executable it made (`cargo build --message-format=json-render-diagnostics`), its
//! diagnostics rendered on stderr as usual.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::Value;
use tokio::io::AsyncBufReadExt as _;

use crate::Failure;

/// The package `dev` runs.
pub(crate) struct Package {
    pub(crate) name: String,
    /// The directory of its Cargo.toml.
    pub(crate) dir: PathBuf,
    /// The binary to build and run.
    pub(crate) bin: String,
    /// `[package.metadata.phantom] transport = "stdio"` (`new --stdio-only`): the server is
    /// started by its host, not served on an address.
    pub(crate) stdio: bool,
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// The package in the current directory, and its binary (`bin` when given).
pub(crate) async fn package(bin: Option<&str>) -> Result<Package, Failure> {
    let out = tokio::process::Command::new(cargo())
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .stderr(Stdio::inherit())
        .output()
        .await
        .map_err(|e| Failure::new(format!("cannot run `cargo metadata`: {e}")))?;
    if !out.status.success() {
        return Err(Failure::new("`cargo metadata` failed (above)")
            .help("run `cargo phantom dev` in the directory of the server's crate"));
    }
    let metadata: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| Failure::new(format!("`cargo metadata` printed no JSON: {e}")))?;
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let here = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .map_err(|e| Failure::new(format!("cannot read the current directory: {e}")))?;
    let dir_of = |p: &Value| {
        Path::new(p["manifest_path"].as_str().unwrap_or_default())
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    };
    let found = packages
        .iter()
        .find(|p| dir_of(p) == here)
        .or_else(|| (packages.len() == 1).then(|| &packages[0]));
    let Some(package) = found else {
        let names: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
        return Err(
            Failure::new("this directory is the root of a workspace, not a package").help(format!(
                "`cd` into the server's package first (one of: {})",
                names.join(", ")
            )),
        );
    };
    let name = package["name"].as_str().unwrap_or_default().to_owned();
    let bins: Vec<String> = package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "bin"))
        })
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    let bin = match (bin, bins.as_slice()) {
        (Some(bin), _) if bins.iter().any(|b| b == bin) => bin.to_owned(),
        (Some(bin), _) => {
            return Err(Failure::new(format!("`{name}` has no binary `{bin}`"))
                .help(format!("its binaries: {}", bins.join(", "))));
        }
        (None, [only]) => only.clone(),
        (None, []) => {
            return Err(Failure::new(format!("`{name}` has no binary to run"))
                .help("add `src/main.rs` (`cargo phantom new` makes one)"));
        }
        (None, _) => {
            return Err(Failure::new(format!("`{name}` has several binaries"))
                .help(format!("choose one with `--bin`: {}", bins.join(", "))));
        }
    };
    let stdio = package["metadata"]["phantom"]["transport"] == "stdio";
    Ok(Package {
        name,
        dir: dir_of(package),
        bin,
        stdio,
    })
}

/// `cargo build` of the package's binary: the executable's path, or `None` when the build
/// failed (cargo printed why on stderr).
pub(crate) async fn build(package: &Package) -> Result<Option<PathBuf>, Failure> {
    let mut child = tokio::process::Command::new(cargo())
        .args(["build", "--message-format=json-render-diagnostics"])
        .args(["--package", &package.name, "--bin", &package.bin])
        .current_dir(&package.dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| Failure::new(format!("cannot run `cargo build`: {e}")))?;
    let Some(stdout) = child.stdout.take() else {
        return Err(Failure::new("`cargo build` has no stdout"));
    };
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let mut executable = None;
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let is_bin = message["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "bin"));
        if message["reason"] == "compiler-artifact"
            && is_bin
            && message["target"]["name"] == package.bin.as_str()
        {
            executable = message["executable"].as_str().map(PathBuf::from);
        }
    }
    let status = child
        .wait()
        .await
        .map_err(|e| Failure::new(format!("`cargo build` did not finish: {e}")))?;
    Ok(if status.success() { executable } else { None })
}
