//! `dev`: build, run, watch, rebuild, restart on the same address, and say what changed.
//!
//! The old process keeps serving while the new build compiles, and after a failed build: it is
//! stopped only once a new executable exists. After each start, a client of the new process
//! lists its tools, resources, templates and prompts, and the differences are printed.

mod build;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use phantom::client::Client;
use serde_json::{Map, Value};
use tokio::process::Child;

use crate::cli::DevArgs;
use crate::{Failure, Outcome, remote};

/// What a server lists, by kind: each entry's key (name or URI) and descriptor.
type Listing = BTreeMap<&'static str, BTreeMap<String, Value>>;

/// The kinds `dev` reports: (list key, word, the member that names an entry).
const KINDS: [(&str, &str, &str); 4] = [
    ("tools", "tool", "name"),
    ("resources", "resource", "uri"),
    ("resourceTemplates", "resource template", "uriTemplate"),
    ("prompts", "prompt", "name"),
];

fn by_key(listing: &Map<String, Value>) -> Listing {
    KINDS
        .iter()
        .map(|(key, _, id)| {
            let items = listing[*key]
                .as_array()
                .into_iter()
                .flatten()
                .map(|item| (item[*id].as_str().unwrap_or("?").to_owned(), item.clone()))
                .collect();
            (*key, items)
        })
        .collect()
}

/// Prints what `new` has that `old` had not, and the reverse; everything when `old` is `None`.
fn report(old: Option<&Listing>, new: &Listing) {
    let empty = BTreeMap::new();
    let mut changes = Vec::new();
    for (key, word, _) in KINDS {
        let now = &new[key];
        let Some(old) = old else {
            let names: Vec<&str> = now.keys().map(String::as_str).collect();
            let names = if names.is_empty() {
                "(none)".to_owned()
            } else {
                names.join(", ")
            };
            println!("  {word}s: {names}");
            continue;
        };
        let before = old.get(key).unwrap_or(&empty);
        for (name, item) in now {
            match before.get(name) {
                None => changes.push(format!("  + {word} {name}")),
                Some(was) if was != item => changes.push(format!("  ~ {word} {name} (changed)")),
                Some(_) => {}
            }
        }
        for name in before.keys().filter(|n| !now.contains_key(*n)) {
            changes.push(format!("  - {word} {name}"));
        }
    }
    if old.is_some() && changes.is_empty() {
        println!("  no tool, resource or prompt changed");
    }
    for change in changes {
        println!("{change}");
    }
}

/// The URL a client reaches `addr` at (a wildcard host is reached on loopback).
fn url_of(addr: &str) -> String {
    let addr = addr
        .strip_prefix("0.0.0.0:")
        .map(|port| format!("127.0.0.1:{port}"))
        .or_else(|| {
            addr.strip_prefix("[::]:")
                .map(|port| format!("[::1]:{port}"))
        })
        .unwrap_or_else(|| addr.to_owned());
    format!("http://{addr}/mcp")
}

/// Starts the server and waits until it answers; its listing.
async fn start(exe: &Path, args: &[String], url: &str) -> Result<(Child, Listing), Failure> {
    let mut child = tokio::process::Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| Failure::new(format!("cannot start `{}`: {e}", exe.display())))?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(
                Failure::new(format!("the server exited at start ({status})")).help(
                    "its output is above; `dev` passes it `--addr HOST:PORT`, which it must accept",
                ),
            );
        }
        let connected = Client::http(url)
            .timeout(Duration::from_secs(5))
            .connect()
            .await;
        if let Ok(client) = connected {
            let listing = remote::listing(&client).await;
            client.close().await;
            return Ok((child, by_key(&listing?)));
        }
        if tokio::time::Instant::now() > deadline {
            return Err(
                Failure::new(format!("the server does not answer at {url} after 30 s")).help(
                    "it must serve Streamable HTTP at `/mcp` on the address given with `--addr`",
                ),
            );
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

/// A stdio server: started once to list what it serves, then stopped.
async fn probe_stdio(exe: &Path, args: &[String]) -> Result<Listing, Failure> {
    let client = Client::stdio(&exe.to_string_lossy(), args.iter().cloned())
        .timeout(Duration::from_secs(10))
        .connect()
        .await?;
    let listing = remote::listing(&client).await;
    client.close().await;
    Ok(by_key(&listing?))
}

/// Whether a file event should rebuild: a change under `src/` or to Cargo.toml, not an
/// editor's swap or backup file.
fn relevant(event: &notify::Event) -> bool {
    use notify::EventKind;
    if !matches!(
        event.kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
    ) {
        return false;
    }
    event.paths.iter().any(|path| {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        !(name.starts_with('.') || name.ends_with('~') || name.ends_with(".swp"))
    })
}

/// Waits for the next relevant change, then for the burst it belongs to (an editor's save is
/// several events) to settle.
async fn changed(rx: &mut tokio::sync::mpsc::UnboundedReceiver<()>) {
    if rx.recv().await.is_none() {
        std::future::pending::<()>().await;
    }
    tokio::time::sleep(Duration::from_millis(250)).await;
    while rx.try_recv().is_ok() {}
}

/// Waits for the child to exit; never, without one.
async fn exited(child: &mut Option<Child>) -> std::io::Result<std::process::ExitStatus> {
    match child {
        Some(child) => child.wait().await,
        None => std::future::pending().await,
    }
}

/// Ctrl-C, or (on Unix) `SIGTERM`: `dev` stops, and its server with it.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// `cargo phantom dev`.
pub(crate) async fn run(args: DevArgs) -> Outcome {
    let package = build::package(args.bin.as_deref()).await?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok_and(|e| relevant(&e)) {
            let _ = tx.send(());
        }
    })
    .map_err(|e| Failure::new(format!("cannot watch files: {e}")))?;
    let watched: [(PathBuf, notify::RecursiveMode); 2] = [
        (package.dir.join("src"), notify::RecursiveMode::Recursive),
        (
            package.dir.join("Cargo.toml"),
            notify::RecursiveMode::NonRecursive,
        ),
    ];
    for (path, mode) in &watched {
        notify::Watcher::watch(&mut watcher, path, *mode)
            .map_err(|e| Failure::new(format!("cannot watch `{}`: {e}", path.display())))?;
    }
    let url = url_of(&args.addr);
    let mut server_args = args.server_args.clone();
    if !package.stdio {
        server_args.splice(0..0, ["--addr".to_owned(), args.addr.clone()]);
        if args.preview {
            server_args.push("--preview".into());
        }
    } else if args.preview {
        return Err(Failure::new(
            "`--preview` needs a server on an address, and this crate is stdio-only",
        )
        .help("the preview host is a page of the HTTP endpoint; leave `--preview` out"));
    }
    println!(
        "watching `{}` and `{}` of `{}`",
        watched[0].0.display(),
        watched[1].0.display(),
        package.name
    );
    let mut running: Option<Child> = None;
    let mut last: Option<Listing> = None;
    loop {
        match build::build(&package).await? {
            None if running.is_some() => {
                println!("build failed (above); the previous build still serves {url}");
            }
            None => println!("build failed (above); waiting for a change"),
            Some(exe) if package.stdio => match probe_stdio(&exe, &server_args).await {
                Ok(listing) => {
                    println!("built `{}` (stdio: a host starts it)", exe.display());
                    report(last.as_ref(), &listing);
                    last = Some(listing);
                }
                Err(e) => println!("the new build does not answer over stdio: {}", e.message),
            },
            Some(exe) => {
                if let Some(mut old) = running.take() {
                    let _ = old.kill().await;
                }
                match start(&exe, &server_args, &url).await {
                    Ok((child, listing)) => {
                        let verb = if last.is_some() {
                            "restarted"
                        } else {
                            "serving"
                        };
                        println!("{verb} {url}");
                        if args.preview {
                            println!("  preview: {url}/preview");
                        }
                        report(last.as_ref(), &listing);
                        running = Some(child);
                        last = Some(listing);
                    }
                    Err(e) => println!("error: {}; waiting for a change", e.message),
                }
            }
        }
        tokio::select! {
            () = changed(&mut rx) => println!("change seen; rebuilding"),
            status = exited(&mut running) => {
                running = None;
                let status = status.map_or_else(|e| e.to_string(), |s| s.to_string());
                println!("the server exited ({status}); it starts again at the next change");
                changed(&mut rx).await;
                println!("change seen; rebuilding");
            }
            () = stopped() => {
                if let Some(mut child) = running.take() {
                    let _ = child.kill().await;
                }
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
}
