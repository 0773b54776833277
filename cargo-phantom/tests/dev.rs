//! `dev` on a crate made by `new`: it serves; after an edit that adds a tool, the same address
//! serves the tool once the rebuild is done (and `dev` says `+ tool echo`); after an edit that
//! does not compile, the error is printed and the previous build still serves.

mod common;

use std::io::{BufRead as _, Read as _};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{Sandbox, both, free_port, json_of, test_target_dir, workspace};

/// The tool names the server at `url` lists.
fn tools(sandbox: &Sandbox, url: &str) -> Vec<String> {
    let listed = json_of(&sandbox.run(&["list", "--json", url]));
    listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// Waits for a line of `dev`'s stdout that starts with `prefix`; the lines seen meanwhile.
fn wait_for(lines: &mpsc::Receiver<String>, prefix: &str, within: Duration) -> Vec<String> {
    let deadline = Instant::now() + within;
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) => {
                let done = line.starts_with(prefix);
                seen.push(line);
                if done {
                    return seen;
                }
            }
            Err(_) => break,
        }
    }
    panic!(
        "no line starting with {prefix:?} within {within:?}; dev printed:\n{}",
        seen.join("\n")
    );
}

#[test]
fn reloads_on_change_and_keeps_serving_through_a_failed_build() {
    let sandbox = Sandbox::new("dev");
    let phantom = workspace().join("phantom");
    let made = sandbox.run(&["new", "demo_dev", "--path", phantom.to_str().unwrap()]);
    assert!(made.status.success(), "{}", both(&made));
    let dir = sandbox.work().join("demo_dev");
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();

    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let url = format!("http://{addr}/mcp");
    let mut dev = sandbox.command(&["dev", "--addr", &addr]);
    dev.current_dir(&dir)
        .env("CARGO_TARGET_DIR", test_target_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut dev = dev.spawn().expect("dev starts");
    let (tx, lines) = mpsc::channel();
    let stdout = dev.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let mut stderr = dev.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });

    // The first build compiles the crate (its dependencies too, on a first run).
    wait_for(&lines, &format!("serving {url}"), Duration::from_secs(900));
    assert_eq!(tools(&sandbox, &url), ["search"]);

    // An edit that adds a tool: rebuilt, restarted on the same address, reported.
    let main = dir.join("src/main.rs");
    let source = std::fs::read_to_string(&main).unwrap();
    let marker = "    /// Review a note.\n";
    assert!(source.contains(marker));
    let echo = "    /// Says it back.\n    #[tool]\n    async fn echo(&self, text: String) -> String {\n        text\n    }\n\n";
    std::fs::write(
        &main,
        source.replacen(marker, &format!("{echo}{marker}"), 1),
    )
    .unwrap();
    let started = Instant::now();
    let seen = wait_for(
        &lines,
        &format!("restarted {url}"),
        Duration::from_secs(300),
    );
    let report = wait_for(&lines, "  + tool echo", Duration::from_secs(5));
    let mut served = tools(&sandbox, &url);
    served.sort();
    assert_eq!(
        served,
        ["echo", "search"],
        "dev printed:\n{}\n{}",
        seen.join("\n"),
        report.join("\n")
    );
    eprintln!(
        "the new tool was served {:?} after the edit",
        started.elapsed()
    );

    // An edit that does not compile: the error is printed, and the previous build serves.
    let source = std::fs::read_to_string(&main).unwrap();
    let broken = "    #[tool]\n    async fn broken(&self) -> String {\n        let n: u32 = \"not a number\";\n        n.to_string()\n    }\n\n";
    std::fs::write(
        &main,
        source.replacen(marker, &format!("{broken}{marker}"), 1),
    )
    .unwrap();
    wait_for(
        &lines,
        "build failed (above); the previous build still serves",
        Duration::from_secs(300),
    );
    let mut served = tools(&sandbox, &url);
    served.sort();
    assert_eq!(served, ["echo", "search"]);

    // Ctrl-C stops dev and its server.
    let _ = Command::new("kill")
        .args(["-INT", &dev.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while dev.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = dev.kill();
    let _ = dev.wait();
    let errors = errors.join().unwrap();
    assert!(
        errors.contains("error[E0308]: mismatched types"),
        "dev's stderr:\n{errors}"
    );
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the server outlived dev"
    );
}
