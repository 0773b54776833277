//! Runs the servers and the driver: a fresh server per run on a free port, pinned to CPU 0, the
//! driver (this executable's `load` subcommand) pinned to CPU 1, server CPU time and RSS read from
//! `/proc/<pid>` before and after.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Which server a run starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Server {
    /// `phantom-echo`.
    Phantom,
    /// `rmcp-echo`.
    Rmcp,
    /// `hyper-floor`: bare hyper, the least any MCP server on hyper can do.
    Floor,
    /// `phantom-soak`: the server of the soak, a little of every feature.
    Soak,
    /// `phantom-lambda-echo`: the echo server as a Lambda function, invoked in process.
    Lambda,
}

impl Server {
    fn binary(self) -> &'static str {
        match self {
            Self::Phantom => "phantom-echo",
            Self::Rmcp => "rmcp-echo",
            Self::Floor => "hyper-floor",
            Self::Soak => "phantom-soak",
            Self::Lambda => "phantom-lambda-echo",
        }
    }

    /// Every server binary the runner starts.
    const ALL: [Self; 5] = [
        Self::Phantom,
        Self::Rmcp,
        Self::Floor,
        Self::Soak,
        Self::Lambda,
    ];
}

const BUILD: &str = "cargo build -p phantom-bench --release";

/// `cargo run` builds only the binary it runs, so the servers next to it may be missing or
/// older than their sources (the ones cargo lists in the binary's dep-info file, `<binary>.d`).
/// [`ensure_servers`] then builds them with the same cargo, in release.
fn check_fresh(binary: &Path) -> Result<(), String> {
    let name = binary
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let built = std::fs::metadata(binary)
        .and_then(|m| m.modified())
        .map_err(|_| format!("`{name}` is missing next to this executable: run `{BUILD}` first"))?;
    let Ok(dep_info) = std::fs::read_to_string(binary.with_extension("d")) else {
        return Ok(());
    };
    let Some((_, deps)) = dep_info.lines().next().and_then(|l| l.split_once(": ")) else {
        return Ok(());
    };
    for source in dep_paths(deps) {
        let modified = std::fs::metadata(&source).and_then(|m| m.modified());
        if modified.is_ok_and(|m| m > built) {
            let root = crate::repo_root();
            let shown = source.strip_prefix(&root).unwrap_or(&source);
            return Err(format!(
                "`{name}` is older than `{}`: run `{BUILD}` first",
                shown.display()
            ));
        }
    }
    Ok(())
}

/// Builds the servers (with the cargo that ran us, `$CARGO`) when any is missing or stale, then
/// checks again.
fn ensure_servers(bin_dir: &Path) -> Result<(), String> {
    let stale = Server::ALL
        .into_iter()
        .any(|s| check_fresh(&bin_dir.join(s.binary())).is_err());
    if stale {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        eprintln!("building the benchmark servers: {BUILD} --bins");
        let status = Command::new(cargo)
            .args(["build", "-p", "phantom-bench", "--release", "--bins"])
            .current_dir(crate::repo_root())
            .status()
            .map_err(|e| format!("could not run cargo: {e}"))?;
        if !status.success() {
            return Err(format!("`{BUILD} --bins` failed"));
        }
    }
    for s in Server::ALL {
        check_fresh(&bin_dir.join(s.binary()))?;
    }
    Ok(())
}

/// Space-separated paths with `\ ` for a space inside a path.
fn dep_paths(line: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => cur.extend(chars.next()),
            ' ' => {
                if !cur.is_empty() {
                    out.push(PathBuf::from(std::mem::take(&mut cur)));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(PathBuf::from(cur));
    }
    out
}

/// The part a variant plays in its scenario's ratios.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The numerator: phantom.
    Subject,
    /// The denominator: rmcp as configured for a fair comparison.
    Baseline,
    /// The second denominator: the hyper floor (phantom ÷ floor and rmcp ÷ floor).
    Floor,
    /// Shown in the table, not in the ratio (e.g. rmcp out of the box).
    Extra,
}

/// One server configuration and the driver arguments it is measured with.
#[derive(Debug, Clone)]
pub(crate) struct Variant {
    /// Row label in the report.
    pub(crate) label: String,
    /// The server binary.
    pub(crate) server: Server,
    /// Environment of the server (besides `ADDR`).
    pub(crate) env: Vec<(&'static str, &'static str)>,
    /// The driver mode (`call`, `lifecycle`, `sessions`).
    pub(crate) mode: &'static str,
    /// Driver arguments after the URL.
    pub(crate) args: Vec<String>,
    /// Ratio role.
    pub(crate) role: Role,
}

impl Variant {
    /// A phantom variant out of the box: no environment besides `ADDR`.
    pub(crate) fn phantom(mode: &'static str, args: &[String]) -> Self {
        Self {
            label: "phantom".into(),
            server: Server::Phantom,
            env: Vec::new(),
            mode,
            args: args.to_vec(),
            role: Role::Subject,
        }
    }

    /// phantom in legacy stateless mode (`MODE=stateless`, i.e. `HttpConfig::with_stateless(true)`).
    pub(crate) fn phantom_stateless(mode: &'static str, args: &[String]) -> Self {
        Self {
            label: "phantom (MODE=stateless)".into(),
            env: vec![("MODE", "stateless")],
            ..Self::phantom(mode, args)
        }
    }

    /// The hyper floor (no environment besides `ADDR`); it answers only `call … none 2026-07-28`.
    pub(crate) fn floor(args: &[String]) -> Self {
        Self {
            label: "hyper floor".into(),
            server: Server::Floor,
            env: Vec::new(),
            mode: "call",
            args: args.to_vec(),
            role: Role::Floor,
        }
    }

    /// An rmcp variant with `env`.
    pub(crate) fn rmcp(
        env: &[(&'static str, &'static str)],
        mode: &'static str,
        args: &[String],
    ) -> Self {
        let label = env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        Self {
            label: format!("rmcp ({label})"),
            server: Server::Rmcp,
            env: env.to_vec(),
            mode,
            args: args.to_vec(),
            role: Role::Baseline,
        }
    }

    /// The server and driver command lines, for the report (no machine paths).
    pub(crate) fn describe(&self) -> String {
        let env: String = self.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
        format!(
            "`{env}{}` ← `phantom-bench load {} $URL {}`",
            self.server.binary(),
            self.mode,
            self.args.join(" ")
        )
    }
}

/// What a scenario's table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Request throughput and latency.
    Requests,
    /// Session open rate and memory per idle session.
    Sessions {
        /// Sessions opened.
        count: usize,
    },
    /// Task creation rate and memory per stored task.
    Tasks {
        /// Tasks created.
        count: usize,
    },
    /// Calls that each send `per_call` progress notifications before their result.
    Notifications {
        /// Notifications per call.
        per_call: usize,
    },
    /// One resource update announced to `streams` open streams, per round.
    Fanout {
        /// Open streams.
        streams: usize,
    },
}

/// One scenario: a table in the report.
#[derive(Debug, Clone)]
pub(crate) struct Bench {
    /// Short key (`--only` filter, chart label).
    pub(crate) key: &'static str,
    /// Section title.
    pub(crate) title: &'static str,
    /// Table shape.
    pub(crate) kind: Kind,
    /// The servers, run alternately.
    pub(crate) variants: Vec<Variant>,
}

/// One measured run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Run {
    /// Fields of the driver's `RESULT` line.
    pub(crate) result: BTreeMap<String, f64>,
    /// Server CPU µs per successful operation.
    pub(crate) cpu_us_per_op: f64,
    /// Server RSS before the driver ran (kB).
    pub(crate) rss_before_kb: f64,
    /// Server RSS after the driver ran (kB).
    pub(crate) rss_after_kb: f64,
    /// The machine's 1-minute load average when the run started (`/proc/loadavg`), `NaN` when
    /// unknown: other processes share the cores the server and driver are pinned to.
    pub(crate) load_before: f64,
}

impl Run {
    /// A field of the `RESULT` line (0 when absent).
    pub(crate) fn get(&self, key: &str) -> f64 {
        self.result.get(key).copied().unwrap_or(0.0)
    }
}

/// Where the binaries are and how to pin.
#[derive(Debug)]
pub(crate) struct Env {
    bin_dir: PathBuf,
    /// Whether `taskset` pinning is used.
    pub(crate) pinned: bool,
    /// Why pinning is off, if it is.
    pub(crate) pin_note: Option<String>,
    clk_tck: f64,
    log: PathBuf,
}

impl Env {
    /// Finds the sibling binaries next to the current executable and checks for `taskset`.
    pub(crate) fn detect() -> Result<Self, String> {
        let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
        let bin_dir = exe
            .parent()
            .ok_or("the current executable has no parent directory")?
            .to_path_buf();
        ensure_servers(&bin_dir)?;
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let taskset = Command::new("taskset")
            .arg("-V")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let pin_note = if !taskset {
            Some("`taskset` not found: server and driver ran unpinned and share the CPUs".into())
        } else if cores < 2 {
            Some(format!("only {cores} CPU: server and driver ran unpinned"))
        } else {
            None
        };
        let clk_tck = clk_tck();
        Ok(Self {
            bin_dir,
            pinned: pin_note.is_none(),
            pin_note,
            clk_tck,
            log: std::env::temp_dir().join("phantom-bench-server.log"),
        })
    }

    /// The path of `server`'s binary, next to this executable.
    pub(crate) fn binary(&self, server: Server) -> PathBuf {
        self.bin_dir.join(server.binary())
    }

    /// Where the server's stderr goes.
    pub(crate) fn log(&self) -> &Path {
        &self.log
    }

    fn command(&self, cpu: u8, program: &Path) -> Command {
        if self.pinned {
            let mut c = Command::new("taskset");
            c.arg("-c").arg(cpu.to_string()).arg(program);
            c
        } else {
            Command::new(program)
        }
    }

    /// Starts `variant`'s server fresh, runs the driver against it and measures the server.
    pub(crate) fn measure(&self, variant: &Variant) -> Result<Run, String> {
        let (guard, url) = self.start(variant.server, &variant.env)?;
        let pid = guard.0.id();
        let load_before = load_average();
        let (t0, r0) = (cpu_ticks(pid)?, rss_kb(pid)?);
        let driver = self.driver(pid, variant.mode, &url, &variant.args);
        let out = run_with_timeout(driver, Duration::from_secs(900), &mut || {})?;
        let (t1, r1) = (cpu_ticks(pid)?, rss_kb(pid)?);
        drop(guard);
        let result = result_line(&out)?;
        let ok = result.get("ok").copied().unwrap_or(0.0);
        #[allow(clippy::cast_precision_loss)]
        let cpu_us = (t1 - t0) as f64 * 1e6 / self.clk_tck;
        Ok(Run {
            cpu_us_per_op: if ok > 0.0 { cpu_us / ok } else { 0.0 },
            rss_before_kb: r0,
            rss_after_kb: r1,
            load_before,
            result,
        })
    }

    /// Starts `server` fresh on a free port, pinned to CPU 0; returns its guard and its URL.
    fn start(
        &self,
        server: Server,
        env: &[(&'static str, &'static str)],
    ) -> Result<(KillOnDrop, String), String> {
        let port = free_port()?;
        let addr = format!("127.0.0.1:{port}");
        let log = std::fs::File::create(&self.log).map_err(|e| e.to_string())?;
        let mut cmd = self.command(0, &self.bin_dir.join(server.binary()));
        cmd.envs(env.iter().copied())
            .env("ADDR", &addr)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        let mut guard = KillOnDrop(cmd.spawn().map_err(|e| format!("spawn server: {e}"))?);
        wait_accepting(&mut guard.0, &addr, &self.log, Duration::from_secs(15))?;
        Ok((guard, format!("http://{addr}/mcp")))
    }

    /// The driver (this executable's `load <mode> <url> <args…>`), pinned to CPU 1.
    fn driver(&self, server_pid: u32, mode: &str, url: &str, args: &[String]) -> Command {
        let mut driver = self.command(1, &self.bin_dir.join("phantom-bench"));
        driver
            .env("SERVER_PID", server_pid.to_string())
            .arg("load")
            .arg(mode)
            .arg(url)
            .args(args);
        driver
    }

    /// Starts `server` fresh, runs the driver's `mode` against it and samples the server's RSS
    /// once a second while the driver runs.
    pub(crate) fn sampled(
        &self,
        server: Server,
        mode: &str,
        args: &[String],
        timeout: Duration,
    ) -> Result<Sampled, String> {
        let (guard, url) = self.start(server, &[])?;
        let pid = guard.0.id();
        let load_before = load_average();
        let t0 = cpu_ticks(pid)?;
        let driver = self.driver(pid, mode, &url, args);
        let started = Instant::now();
        let mut rss_kb_at = Vec::new();
        let out = run_with_timeout(driver, timeout, &mut || {
            if let Ok(kb) = rss_kb(pid) {
                rss_kb_at.push((started.elapsed().as_secs_f64(), kb));
            }
        })?;
        let t1 = cpu_ticks(pid)?;
        drop(guard);
        #[allow(clippy::cast_precision_loss)]
        let cpu_secs = (t1 - t0) as f64 / self.clk_tck;
        Ok(Sampled {
            result: result_line(&out)?,
            rss_kb_at,
            cpu_secs,
            load_before,
        })
    }
}

/// A driver run with the server's RSS sampled once a second.
#[derive(Debug)]
pub(crate) struct Sampled {
    /// Fields of the driver's `RESULT` line.
    pub(crate) result: BTreeMap<String, f64>,
    /// (seconds since the driver started, the server's VmRSS in kB), once a second.
    pub(crate) rss_kb_at: Vec<(f64, f64)>,
    /// The server's CPU time over the run (utime + stime), in seconds.
    pub(crate) cpu_secs: f64,
    /// The machine's 1-minute load average when the run started (`NaN` when unknown).
    pub(crate) load_before: f64,
}

/// The numeric fields of the `RESULT` line in the driver's output.
fn result_line(out: &str) -> Result<BTreeMap<String, f64>, String> {
    out.lines()
        .find(|l| l.starts_with("RESULT "))
        .map(parse_result)
        .ok_or_else(|| format!("the driver printed no RESULT line:\n{out}"))
}

/// Kills and reaps the server when a run ends, however it ends.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).map_err(|e| e.to_string())?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

pub(crate) fn wait_accepting(
    child: &mut Child,
    addr: &str,
    log: &Path,
    within: Duration,
) -> Result<(), String> {
    let deadline = Instant::now() + within;
    loop {
        if TcpStream::connect(addr).is_ok() {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(log).unwrap_or_default();
            return Err(format!(
                "the server exited ({status}) before accepting:\n{log}"
            ));
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the server did not accept on {addr} within {} s",
                within.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `cmd`, returning stdout; stderr passes through; killed after `timeout`. `tick` runs when
/// `cmd` starts and about once a second while it runs.
fn run_with_timeout(
    mut cmd: Command,
    timeout: Duration,
    tick: &mut dyn FnMut(),
) -> Result<String, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("spawn driver: {e}"))?;
    let mut stdout = child.stdout.take().ok_or("no driver stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let deadline = started + timeout;
    let mut ticks = 0_u32;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if started.elapsed() >= Duration::from_secs(ticks.into()) {
            tick();
            ticks += 1;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("the driver ran over {} s", timeout.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = reader.join().unwrap_or_default();
    if status.success() {
        Ok(out)
    } else {
        Err(format!("the driver failed ({status}):\n{out}"))
    }
}

/// Clock ticks per second (`getconf CLK_TCK`, 100 when unknown).
pub(crate) fn clk_tck() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// utime + stime of `pid`, in clock ticks.
pub(crate) fn cpu_ticks(pid: u32) -> Result<u64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| e.to_string())?;
    // Fields after the command name, which is in parentheses and may contain spaces.
    let rest = stat.rsplit_once(')').ok_or("bad /proc/<pid>/stat")?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Overall fields 14 and 15; `rest` starts at field 3.
    let field = |i: usize| -> Result<u64, String> {
        fields
            .get(i - 3)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| format!("bad field {i} in /proc/{pid}/stat"))
    };
    Ok(field(14)? + field(15)?)
}

/// The 1-minute load average, `NaN` when `/proc/loadavg` cannot be read.
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// VmRSS of `pid`, in kB.
pub(crate) fn rss_kb(pid: u32) -> Result<f64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("no VmRSS in /proc/{pid}/status"))
}

/// `key=value` pairs of a `RESULT` line with numeric values.
fn parse_result(line: &str) -> BTreeMap<String, f64> {
    line.split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .filter_map(|(k, v)| Some((k.to_owned(), v.parse().ok()?)))
        .collect()
}

/// The scenarios of `all`.
pub(crate) fn all_benches(secs: u32) -> Vec<Bench> {
    let s = secs.to_string();
    let a = |xs: &[&str]| -> Vec<String> { xs.iter().map(|x| (*x).to_owned()).collect() };
    const STATEFUL: &[(&str, &str)] = &[("MODE", "stateful"), ("NODELAY", "1")];
    const STATELESS: &[(&str, &str)] = &[("MODE", "stateless"), ("JSON", "1"), ("NODELAY", "1")];
    let legacy = |c: &str| a(&[c, &s, "shared", "2025-11-25"]);
    let modern = |c: &str| a(&[c, &s, "none", "2026-07-28"]);
    let mut nagle = Variant::rmcp(
        &[("MODE", "stateful"), ("NODELAY", "0")],
        "call",
        &legacy("1"),
    );
    nagle.label = "rmcp out of the box (MODE=stateful NODELAY=0)".into();
    nagle.role = Role::Extra;
    vec![
        Bench {
            key: "stateful-c1",
            title: "Legacy stateful tools/call, 1 connection, shared session (2025-11-25, SSE)",
            kind: Kind::Requests,
            variants: vec![
                Variant::phantom("call", &legacy("1")),
                Variant::rmcp(STATEFUL, "call", &legacy("1")),
                nagle,
            ],
        },
        Bench {
            key: "stateful-c32",
            title: "Legacy stateful tools/call, 32 connections, shared session (2025-11-25, SSE)",
            kind: Kind::Requests,
            variants: vec![
                Variant::phantom("call", &legacy("32")),
                Variant::rmcp(STATEFUL, "call", &legacy("32")),
            ],
        },
        Bench {
            key: "stateless-json-c32",
            title: "Legacy stateless JSON tools/call, 32 connections, no session (2025-11-25)",
            kind: Kind::Requests,
            variants: vec![
                Variant::phantom_stateless("call", &a(&["32", &s, "none", "2025-11-25"])),
                Variant::rmcp(STATELESS, "call", &a(&["32", &s, "none", "2025-11-25"])),
            ],
        },
        Bench {
            key: "modern-c1",
            title: "2026-07-28 stateless tools/call, 1 connection",
            kind: Kind::Requests,
            variants: vec![
                Variant::phantom("call", &modern("1")),
                Variant::rmcp(STATELESS, "call", &modern("1")),
            ],
        },
        Bench {
            key: "modern-c32",
            title: "2026-07-28 stateless tools/call, 32 connections, with the hyper floor",
            kind: Kind::Requests,
            variants: vec![
                Variant::phantom("call", &modern("32")),
                Variant::rmcp(STATELESS, "call", &modern("32")),
                Variant::floor(&modern("32")),
            ],
        },
        Bench {
            key: "lifecycle-c32",
            title: "Session lifecycle (initialize + initialized + call + DELETE), 32 connections",
            kind: Kind::Requests,
            variants: vec![
                Variant::phantom("lifecycle", &a(&["32", &s, "delete"])),
                Variant::rmcp(STATEFUL, "lifecycle", &a(&["32", &s, "delete"])),
            ],
        },
        Bench {
            key: "progress-c8",
            title: "Legacy stateful tools/call sending 100 progress notifications, 8 connections, shared session (2025-11-25, SSE)",
            kind: Kind::Notifications { per_call: 100 },
            variants: vec![
                Variant::phantom("progress", &a(&["8", &s, "100"])),
                Variant::rmcp(STATEFUL, "progress", &a(&["8", &s, "100"])),
            ],
        },
        fanout_bench(
            "fanout-get-10k",
            "One resource update to 10,000 subscribed legacy sessions, each with an open GET stream (2025-11-25)",
            "2025-11-25",
        ),
        fanout_bench(
            "fanout-listen-10k",
            "One resource update to 10,000 open subscriptions/listen streams (2026-07-28)",
            "2026-07-28",
        ),
        Bench {
            key: "tasks-10k",
            title: "10,000 tasks created (2026-07-28 tools/call with the tasks extension, 16 connections), kept stored",
            kind: Kind::Tasks { count: 10_000 },
            variants: vec![
                Variant::phantom("tasks", &a(&["16", "10000"])),
                Variant::rmcp(STATELESS, "tasks", &a(&["16", "10000"])),
            ],
        },
        sessions_bench(
            "sessions-10k",
            "10,000 idle sessions (16 connections)",
            10_000,
        ),
        sessions_bench(
            "sessions-50k",
            "50,000 idle sessions (16 connections)",
            50_000,
        ),
    ]
}

/// 10,000 streams hear one update per round, five rounds: over HTTP/1.1 (a connection per
/// stream) and over HTTP/2 (100 streams per connection), phantom and rmcp (whose `touch` tool
/// notifies the peers its `subscribe` and the sinks its `listen` collected).
fn fanout_bench(key: &'static str, title: &'static str, version: &str) -> Bench {
    let args = |wire: Option<&str>| -> Vec<String> {
        ["10000", "5", version]
            .into_iter()
            .chain(wire)
            .map(str::to_owned)
            .collect()
    };
    Bench {
        key,
        title,
        kind: Kind::Fanout { streams: 10_000 },
        variants: vec![
            Variant {
                label: "phantom (HTTP/1.1, a connection per stream)".into(),
                ..Variant::phantom("fanout", &args(None))
            },
            Variant {
                label: "phantom (HTTP/2, 100 streams per connection)".into(),
                ..Variant::phantom("fanout", &args(Some("h2:100")))
            },
            Variant {
                label: "rmcp (HTTP/1.1, a connection per stream)".into(),
                ..Variant::rmcp(RMCP_STATEFUL, "fanout", &args(None))
            },
            Variant {
                label: "rmcp (HTTP/2, 100 streams per connection)".into(),
                ..Variant::rmcp(RMCP_STATEFUL, "fanout", &args(Some("h2:100")))
            },
        ],
    }
}

/// rmcp keeping legacy sessions, with TCP_NODELAY as phantom sets it.
const RMCP_STATEFUL: &[(&str, &str)] = &[("MODE", "stateful"), ("NODELAY", "1")];

fn sessions_bench(key: &'static str, title: &'static str, count: usize) -> Bench {
    let args = vec!["16".to_owned(), count.to_string()];
    Bench {
        key,
        title,
        kind: Kind::Sessions { count },
        variants: vec![
            Variant::phantom("sessions", &args),
            Variant::rmcp(&[("MODE", "stateful"), ("NODELAY", "1")], "sessions", &args),
        ],
    }
}

/// The scenarios of `smoke`: every driver mode for about a second against both servers, and the
/// floor's one mode.
pub(crate) fn smoke_benches() -> Vec<Bench> {
    const STATEFUL: &[(&str, &str)] = &[("MODE", "stateful"), ("NODELAY", "1")];
    const STATELESS: &[(&str, &str)] = &[("MODE", "stateless"), ("JSON", "1"), ("NODELAY", "1")];
    let a = |xs: &[&str]| -> Vec<String> { xs.iter().map(|x| (*x).to_owned()).collect() };
    let pair = |key, title, mode, args: &[&str], env: &[(&'static str, &'static str)]| Bench {
        key,
        title,
        kind: Kind::Requests,
        variants: vec![
            Variant::phantom(mode, &a(args)),
            Variant::rmcp(env, mode, &a(args)),
        ],
    };
    vec![
        pair(
            "call-shared",
            "call, shared session",
            "call",
            &["4", "1", "shared", "2025-11-25"],
            STATEFUL,
        ),
        pair(
            "call-perconn",
            "call, session per connection",
            "call",
            &["4", "1", "perconn", "2025-11-25"],
            STATEFUL,
        ),
        Bench {
            key: "call-modern",
            title: "call, 2026-07-28 stateless (and the hyper floor)",
            kind: Kind::Requests,
            variants: vec![
                Variant::phantom("call", &a(&["4", "1", "none", "2026-07-28"])),
                Variant::rmcp(STATELESS, "call", &a(&["4", "1", "none", "2026-07-28"])),
                Variant::floor(&a(&["4", "1", "none", "2026-07-28"])),
            ],
        },
        Bench {
            key: "call-stateless-legacy",
            title: "call, legacy stateless 2025-11-25",
            kind: Kind::Requests,
            variants: vec![
                Variant::phantom_stateless("call", &a(&["4", "1", "none", "2025-11-25"])),
                Variant::rmcp(STATELESS, "call", &a(&["4", "1", "none", "2025-11-25"])),
            ],
        },
        pair("lifecycle", "lifecycle", "lifecycle", &["4", "1"], STATEFUL),
        Bench {
            key: "progress",
            title: "progress notifications",
            kind: Kind::Notifications { per_call: 10 },
            variants: vec![
                Variant::phantom("progress", &a(&["2", "1", "10"])),
                Variant::rmcp(STATEFUL, "progress", &a(&["2", "1", "10"])),
            ],
        },
        pair(
            "lifecycle-delete",
            "lifecycle + DELETE",
            "lifecycle",
            &["4", "1", "delete"],
            STATEFUL,
        ),
        Bench {
            key: "tasks",
            title: "task creation",
            kind: Kind::Tasks { count: 200 },
            variants: vec![
                Variant::phantom("tasks", &a(&["4", "200"])),
                Variant::rmcp(STATELESS, "tasks", &a(&["4", "200"])),
            ],
        },
        Bench {
            key: "sessions",
            title: "sessions",
            kind: Kind::Sessions { count: 400 },
            variants: vec![
                Variant::phantom("sessions", &a(&["4", "400"])),
                Variant::rmcp(STATEFUL, "sessions", &a(&["4", "400"])),
            ],
        },
        Bench {
            key: "fanout",
            title: "resource update fan-out (GET streams, listens)",
            kind: Kind::Fanout { streams: 50 },
            variants: vec![
                Variant {
                    label: "phantom (GET streams)".into(),
                    ..Variant::phantom("fanout", &a(&["50", "2", "2025-11-25"]))
                },
                Variant {
                    label: "phantom (listens, HTTP/2)".into(),
                    ..Variant::phantom("fanout", &a(&["50", "2", "2026-07-28", "h2:10"]))
                },
                Variant {
                    label: "rmcp (GET streams)".into(),
                    ..Variant::rmcp(STATEFUL, "fanout", &a(&["50", "2", "2025-11-25"]))
                },
                Variant {
                    label: "rmcp (listens, HTTP/2)".into(),
                    ..Variant::rmcp(STATEFUL, "fanout", &a(&["50", "2", "2026-07-28", "h2:10"]))
                },
            ],
        },
    ]
}
