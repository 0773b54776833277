//! What the tests share: a sandbox (a temporary `HOME` and working directory), the
//! `cargo-phantom` binary run inside it, and the servers it is run against.

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The workspace's root directory.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace")
        .to_path_buf()
}

/// Where crates built by the tests (`new`'s crates, `dev`'s builds) put their artifacts: under
/// the workspace's `target/`, shared by every run so dependencies are built once.
pub fn test_target_dir() -> PathBuf {
    workspace().join("target").join("cargo-phantom-tests")
}

/// A temporary `HOME` (`home/`) and working directory (`work/`), removed when dropped.
pub struct Sandbox {
    pub root: PathBuf,
}

impl Sandbox {
    pub fn new(label: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let root =
            std::env::temp_dir().join(format!("cargo-phantom-{label}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("home")).unwrap();
        std::fs::create_dir_all(root.join("work")).unwrap();
        Self { root }
    }

    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    pub fn work(&self) -> PathBuf {
        self.root.join("work")
    }

    /// `cargo-phantom ARGS` in the working directory, with the sandbox's `HOME`; cargo and
    /// rustup keep their real homes (their caches and toolchains).
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-phantom"));
        command.args(args).current_dir(self.work());
        self.isolate(&mut command);
        command
    }

    /// Points `command` at the sandbox's `HOME`, keeping cargo's and rustup's homes.
    pub fn isolate(&self, command: &mut Command) {
        let real_home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default();
        let cargo_home =
            std::env::var_os("CARGO_HOME").map_or_else(|| real_home.join(".cargo"), PathBuf::from);
        let rustup_home = std::env::var_os("RUSTUP_HOME")
            .map_or_else(|| real_home.join(".rustup"), PathBuf::from);
        command
            .env("HOME", self.home())
            .env("CARGO_HOME", cargo_home)
            .env("RUSTUP_HOME", rustup_home)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CARGO_TARGET_DIR");
    }

    /// Runs `cargo-phantom ARGS` to the end.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("cargo-phantom runs")
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// stdout and stderr of `output`, for assertion messages.
pub fn both(output: &Output) -> String {
    format!(
        "status {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `output`'s stdout as JSON, after checking it succeeded.
pub fn json_of(output: &Output) -> serde_json::Value {
    assert!(output.status.success(), "{}", both(output));
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", both(output)))
}

/// A binary of `package`, built (once per test process) into the tests' target directory: the
/// workspace's own is locked by the `cargo test` that runs these tests.
pub fn built(package: &str, bin: &str, extra: &[&str]) -> PathBuf {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "-q", "-p", package])
        .args(extra)
        .arg("--target-dir")
        .arg(test_target_dir())
        .current_dir(workspace())
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build -p {package} failed");
    test_target_dir().join("debug").join(bin)
}

/// `examples/studies`, the workspace's example server: `PHANTOM_STUDIES_BIN` when the run that
/// builds these tests built it too (`scripts/test.sh` sets it for `cargo test --workspace`),
/// else built here.
pub fn studies() -> &'static Path {
    static STUDIES: OnceLock<PathBuf> = OnceLock::new();
    STUDIES.get_or_init(|| {
        std::env::var_os("PHANTOM_STUDIES_BIN")
            .map(PathBuf::from)
            .filter(|path| path.is_file())
            .unwrap_or_else(|| built("phantom-examples", "studies", &["--bin", "studies"]))
    })
}

/// A running HTTP server, killed when dropped.
pub struct Served {
    pub child: std::process::Child,
    pub url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Waits until something accepts connections on `port` (at most `secs` seconds).
pub fn wait_for_port(port: u16, secs: u64) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    false
}

/// `studies --addr` on a free port.
pub fn serve_studies() -> Served {
    let port = free_port();
    let child = Command::new(studies())
        .args(["--addr", &format!("127.0.0.1:{port}")])
        .env("RUST_LOG", "warn")
        .spawn()
        .expect("studies starts");
    assert!(wait_for_port(port, 30), "studies does not listen on {port}");
    Served {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}
