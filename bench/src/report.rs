//! `RESULTS.md` and `ratios.svg`: medians over rounds, phantom ÷ rmcp ratios, phantom ÷ floor and
//! rmcp ÷ floor where a scenario runs the hyper floor, the machine.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use plotters::prelude::*;

use crate::compile::CompileTimes;
use crate::runner::{Bench, Kind, Role, Run, Server};

/// The measured runs of one scenario: `runs[v]` holds the rounds of `bench.variants[v]`.
#[derive(Debug)]
pub(crate) struct Measured {
    /// The scenario.
    pub(crate) bench: Bench,
    /// Runs per variant.
    pub(crate) runs: Vec<Vec<Run>>,
}

/// One reported quantity.
#[derive(Debug, Clone, Copy)]
struct Metric {
    name: &'static str,
    /// Whether a larger value is better (throughput) or worse (latency, CPU, memory).
    higher_is_better: bool,
    value: fn(&Run, Kind) -> f64,
    digits: usize,
}

const fn metric(
    name: &'static str,
    higher_is_better: bool,
    digits: usize,
    value: fn(&Run, Kind) -> f64,
) -> Metric {
    Metric {
        name,
        higher_is_better,
        value,
        digits,
    }
}

fn metrics(kind: Kind) -> Vec<Metric> {
    match kind {
        Kind::Requests => vec![
            metric("req/s", true, 0, |r, _| r.get("rps")),
            metric("p50 ms", false, 3, |r, _| r.get("p50_ms")),
            metric("p99 ms", false, 3, |r, _| r.get("p99_ms")),
            metric("p99.9 ms", false, 3, |r, _| r.get("p999_ms")),
            metric("CPU µs/req", false, 1, |r, _| r.cpu_us_per_op),
            metric("RSS after MB", false, 1, |r, _| r.rss_after_kb / 1024.0),
        ],
        Kind::Sessions { .. } => vec![
            metric("opens/s", true, 0, |r, _| r.get("rps")),
            metric("p50 ms", false, 3, |r, _| r.get("p50_ms")),
            metric("p99 ms", false, 3, |r, _| r.get("p99_ms")),
            metric("CPU µs/open", false, 1, |r, _| r.cpu_us_per_op),
            metric("RSS after MB", false, 1, |r, _| r.rss_after_kb / 1024.0),
            metric("KB/session", false, 2, |r, k| match k {
                #[allow(clippy::cast_precision_loss)]
                Kind::Sessions { count } => (r.rss_after_kb - r.rss_before_kb) / count as f64,
                _ => 0.0,
            }),
        ],
        Kind::Tasks { .. } => vec![
            metric("creations/s", true, 0, |r, _| r.get("rps")),
            metric("p50 ms", false, 3, |r, _| r.get("p50_ms")),
            metric("p99 ms", false, 3, |r, _| r.get("p99_ms")),
            metric("CPU µs/creation", false, 1, |r, _| r.cpu_us_per_op),
            metric("RSS after MB", false, 1, |r, _| r.rss_after_kb / 1024.0),
            metric("KB/task", false, 2, |r, k| match k {
                #[allow(clippy::cast_precision_loss)]
                Kind::Tasks { count } => (r.rss_after_kb - r.rss_before_kb) / count as f64,
                _ => 0.0,
            }),
        ],
        Kind::Notifications { .. } => vec![
            metric("calls/s", true, 0, |r, _| r.get("rps")),
            metric("p50 ms", false, 3, |r, _| r.get("p50_ms")),
            metric("p99 ms", false, 3, |r, _| r.get("p99_ms")),
            metric("CPU µs/call", false, 1, |r, _| r.cpu_us_per_op),
            metric("CPU µs/notification", false, 2, |r, k| match k {
                #[allow(clippy::cast_precision_loss)]
                Kind::Notifications { per_call } => r.cpu_us_per_op / per_call as f64,
                _ => 0.0,
            }),
            metric("RSS after MB", false, 1, |r, _| r.rss_after_kb / 1024.0),
        ],
        Kind::Fanout { .. } => vec![
            metric("last delivery p50 ms", false, 2, |r, _| r.get("p50_ms")),
            metric("last delivery max ms", false, 2, |r, _| r.get("max_ms")),
            metric("KB/stream", false, 2, |r, _| r.get("kb_per_stream")),
            metric("CPU µs/delivery", false, 2, |r, _| {
                r.get("cpu_us_per_delivery")
            }),
            metric("RSS after MB", false, 1, |r, _| r.rss_after_kb / 1024.0),
        ],
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        f64::midpoint(xs[n / 2 - 1], xs[n / 2])
    }
}

impl Measured {
    fn median(&self, v: usize, m: &Metric) -> f64 {
        median(
            self.runs[v]
                .iter()
                .map(|r| (m.value)(r, self.bench.kind))
                .collect(),
        )
    }

    fn index(&self, role: Role) -> Option<usize> {
        self.bench.variants.iter().position(|v| v.role == role)
    }

    /// `num` ÷ `den` of the medians, per metric; `None` without both variants.
    fn ratios_of(&self, num: Role, den: Role) -> Option<Vec<(Metric, f64)>> {
        let (n, d) = (self.index(num)?, self.index(den)?);
        Some(
            metrics(self.bench.kind)
                .into_iter()
                .map(|m| (m, self.median(n, &m) / self.median(d, &m)))
                .collect(),
        )
    }

    /// phantom ÷ rmcp of the medians, per metric; `None` without both sides.
    fn ratios(&self) -> Option<Vec<(Metric, f64)>> {
        self.ratios_of(Role::Subject, Role::Baseline)
    }

    /// `role` ÷ the hyper floor for one metric; `None` when the scenario has no floor.
    fn to_floor(&self, role: Role, metric: &str) -> Option<f64> {
        self.ratios_of(role, Role::Floor)?
            .into_iter()
            .find(|(m, _)| m.name == metric)
            .map(|(_, r)| r)
    }

    /// Errors over all runs of all variants.
    pub(crate) fn errors(&self) -> f64 {
        self.runs.iter().flatten().map(|r| r.get("errors")).sum()
    }
}

fn fmt_num(x: f64, digits: usize) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else {
        "—".into()
    }
}

pub(crate) fn command_line(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd)
        .args(args)
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// CPU, cores, kernel, rustc and the rmcp version in `Cargo.lock`.
fn machine(repo: &Path) -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown", |(_, m)| m.trim());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map_or_else(|_| "unknown".into(), |s| s.trim().to_owned());
    let lock = std::fs::read_to_string(repo.join("Cargo.lock")).unwrap_or_default();
    let rmcp = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"rmcp\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map_or("unknown", |v| v.trim_matches('"'));
    format!(
        "- CPU: {model}, {cores} cores available\n- Kernel: Linux {kernel}\n- {}\n- rmcp {rmcp} \
         (from `Cargo.lock`)\n",
        command_line("rustc", &["--version"])
    )
}

/// The spread of the 1-minute load average sampled before each run: the server and the driver
/// have a core each only when nothing else runs, and CPU per request grows with contention.
fn load_line(measured: &[Measured]) -> String {
    let loads: Vec<f64> = measured
        .iter()
        .flat_map(|m| m.runs.iter().flatten())
        .map(|r| r.load_before)
        .filter(|l| l.is_finite())
        .collect();
    if loads.is_empty() {
        return String::new();
    }
    let lo = loads.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = loads.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let runs = loads.len();
    let mid = median(loads);
    format!(
        "- Load (1-minute average before each of the {runs} runs): min {lo:.2}, median {mid:.2}, \
         max {hi:.2}. The server and the driver make about 2; more means other processes \
         compete for the two pinned cores, and CPU per request grows with contention (more for \
         the server that does more work), so ratios from a loaded run drift\n"
    )
}

/// Everything the report needs besides the runs.
#[derive(Debug)]
pub(crate) struct Context<'a> {
    /// Repository root.
    pub(crate) repo: &'a Path,
    /// The command that produced the report.
    pub(crate) command: String,
    /// Rounds per variant.
    pub(crate) rounds: usize,
    /// Pinning description.
    pub(crate) pinning: String,
}

/// Writes `RESULTS.md` and `ratios.svg` into `dir`.
pub(crate) fn write(
    dir: &Path,
    cx: &Context<'_>,
    measured: &[Measured],
    compile: Option<&CompileTimes>,
) -> Result<(), String> {
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(w, "# phantom vs rmcp: benchmark results\n");
    let _ = writeln!(
        w,
        "Generated by `{}`. Every cell is the **median over {} round(s)**; the servers ran \
         alternately (phantom, rmcp[, hyper floor], phantom, rmcp, …), each run on a fresh server \
         process, and every ratio below comes from this one run. \
         **Quote the ratios, not the absolute numbers**: absolute numbers depend on the machine.\n",
        cx.command, cx.rounds
    );
    let _ = writeln!(
        w,
        "## Machine\n\n{}- Pinning: {}\n{}",
        machine(cx.repo),
        cx.pinning,
        load_line(measured)
    );

    let _ = writeln!(w, "## Ratios (phantom ÷ rmcp)\n");
    let _ = writeln!(
        w,
        "req/s (and opens/s) above 1 favour phantom; latency, CPU and memory below 1 favour \
         phantom.\n\n![phantom ÷ rmcp ratios](ratios.svg)\n"
    );
    let _ = writeln!(w, "| scenario | ratios |\n|---|---|");
    for m in measured {
        if let Some(ratios) = m.ratios() {
            let cells: Vec<String> = ratios
                .iter()
                .map(|(metric, r)| format!("{} {}", metric.name, fmt_num(*r, 2)))
                .collect();
            let _ = writeln!(w, "| {} | {} |", m.bench.key, cells.join(" · "));
        }
    }
    let _ = writeln!(w);
    floor_summary(w, measured);
    // The sections written by `phantom-bench soak` and `instructions`, `bench/scale.py` and
    // `bench/gateway.py` alone; a full run keeps them.
    let previous = std::fs::read_to_string(dir.join("RESULTS.md")).unwrap_or_default();
    if let Some(section) = script_kept(&previous, "instructions") {
        let _ = writeln!(w, "{section}\n");
    }
    targets(w, measured, compile);
    stream_memory(w, measured);

    for m in measured {
        table(w, m);
    }
    match compile {
        Some(c) => c.markdown(w),
        // `all --no-compile` keeps the compile times of the run that measured them.
        None => {
            if let Some(section) = script_kept(&previous, "compile") {
                let _ = writeln!(w, "{section}\n");
            }
        }
    }
    if let Some(soak) = crate::soak::kept(&previous) {
        let _ = writeln!(w, "{soak}\n");
    }
    for name in ["scale", "gateway", "lambda"] {
        if let Some(section) = script_kept(&previous, name) {
            let _ = writeln!(w, "{section}\n");
        }
    }
    notes(w);

    std::fs::write(dir.join("RESULTS.md"), md).map_err(|e| format!("RESULTS.md: {e}"))?;
    chart(&dir.join("ratios.svg"), measured, compile)
}

/// A section of a previous `RESULTS.md` that a script writes between
/// `<!-- <name>:begin -->` and `<!-- <name>:end -->` (`bench/<name>.py`).
fn script_kept<'a>(doc: &'a str, name: &str) -> Option<&'a str> {
    let (begin, end) = (
        format!("<!-- {name}:begin -->"),
        format!("<!-- {name}:end -->"),
    );
    let start = doc.find(&begin)?;
    let stop = doc[start..].find(&end)? + start + end.len();
    Some(&doc[start..stop])
}

/// phantom ÷ floor and rmcp ÷ floor for every scenario that ran the hyper floor.
fn floor_summary(w: &mut String, measured: &[Measured]) {
    let with_floor: Vec<&Measured> = measured
        .iter()
        .filter(|m| m.index(Role::Floor).is_some())
        .collect();
    if with_floor.is_empty() {
        return;
    }
    let _ = writeln!(
        w,
        "## Against the floor (bare hyper)\n\n\
         `hyper-floor` is bare hyper 1 answering the 2026-07-28 echo call by copying the request's \
         id into a fixed result: no JSON parsing, no routing, no checks, so no MCP server on hyper \
         can cost less. A server's ratio to it is its overhead over hyper: CPU below 1 cannot \
         happen, and closer to 1 is better. req/s is bounded by the driver's one core as well, \
         so a server near the floor reads within a few percent of 1 either way.\n\n\
         | scenario | phantom ÷ floor CPU µs/req | phantom ÷ floor req/s | rmcp ÷ floor CPU µs/req \
         | rmcp ÷ floor req/s | phantom ÷ rmcp CPU µs/req |\n|---|---:|---:|---:|---:|---:|"
    );
    let cell = |x: Option<f64>| x.map_or_else(|| "—".into(), |r| fmt_num(r, 2));
    for m in with_floor {
        let phantom_rmcp = m.ratios().and_then(|rs| {
            rs.into_iter()
                .find(|(x, _)| x.name == "CPU µs/req")
                .map(|(_, r)| r)
        });
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} |",
            m.bench.key,
            cell(m.to_floor(Role::Subject, "CPU µs/req")),
            cell(m.to_floor(Role::Subject, "req/s")),
            cell(m.to_floor(Role::Baseline, "CPU µs/req")),
            cell(m.to_floor(Role::Baseline, "req/s")),
            cell(phantom_rmcp),
        );
    }
    let _ = writeln!(w);
}

/// The performance targets, each with what this run measured.
fn targets(w: &mut String, measured: &[Measured], compile: Option<&CompileTimes>) {
    let find = |key: &str| measured.iter().find(|m| m.bench.key == key);
    let ratio = |key: &str, metric: &str| {
        find(key).and_then(Measured::ratios).and_then(|rs| {
            rs.into_iter()
                .find(|(m, _)| m.name == metric)
                .map(|(_, r)| r)
        })
    };
    let phantom = |key: &str, metric: &str| {
        let m = find(key)?;
        let v = m.index(Role::Subject)?;
        let metric = metrics(m.bench.kind)
            .into_iter()
            .find(|x| x.name == metric)?;
        Some(m.median(v, &metric))
    };
    let mut rows: Vec<(String, Option<f64>, String, bool)> = Vec::new();
    for (key, label) in [
        ("stateful-c32", "legacy stateful"),
        ("stateless-json-c32", "stateless JSON"),
        ("modern-c32", "2026-07-28"),
    ] {
        let cpu = ratio(key, "CPU µs/req");
        rows.push((
            format!("server CPU per `tools/call` ≤ 0.6 × rmcp ({label}, 32 connections)"),
            cpu,
            "×".into(),
            cpu.is_some_and(|r| r <= 0.6),
        ));
        let rps = ratio(key, "req/s");
        rows.push((
            format!("throughput at 32 connections ≥ 1.5 × rmcp ({label})"),
            rps,
            "×".into(),
            rps.is_some_and(|r| r >= 1.5),
        ));
    }
    for (key, label) in [
        ("stateful-c1", "legacy stateful"),
        ("modern-c1", "2026-07-28"),
    ] {
        let p99 = phantom(key, "p99 ms");
        rows.push((
            format!("p99 at 1 connection ≤ 0.2 ms, out of the box ({label})"),
            p99,
            "ms".into(),
            p99.is_some_and(|v| v <= 0.2),
        ));
    }
    let floor = |metric: &str| find("modern-c32").and_then(|m| m.to_floor(Role::Subject, metric));
    let cpu = floor("CPU µs/req");
    for (limit, what) in [(1.40, "required"), (1.25, "target")] {
        rows.push((
            format!(
                "server CPU per 2026-07-28 `tools/call` ≤ {limit:.2} × the hyper floor's \
                 ({what}, 32 connections)"
            ),
            cpu,
            "×".into(),
            cpu.is_some_and(|r| r <= limit),
        ));
    }
    let rps = floor("req/s");
    rows.push((
        "throughput of 2026-07-28 `tools/call` ≥ 0.85 × the hyper floor's (target, 32 connections)"
            .into(),
        rps,
        "×".into(),
        rps.is_some_and(|r| r >= 0.85),
    ));
    for key in ["sessions-10k", "sessions-50k"] {
        let kb = phantom(key, "KB/session");
        rows.push((
            format!("≤ 2 KB RSS per idle legacy session ({key})"),
            kb,
            "KB".into(),
            kb.is_some_and(|v| v <= 2.0),
        ));
    }
    if let Some(c) = compile {
        for (name, r) in c.ratios() {
            rows.push((
                format!("compile time of the 100-tool router ≤ rmcp's ({name})"),
                Some(r),
                "×".into(),
                r <= 1.0,
            ));
        }
    }
    let _ = writeln!(
        w,
        "## Targets

| target | measured | met |
|---|---:|---|"
    );
    for (target, value, unit, met) in rows {
        let shown = value.map_or_else(|| "not run".into(), |v| format!("{} {unit}", fmt_num(v, 2)));
        let mark = if value.is_none() {
            "—"
        } else if met {
            "yes"
        } else {
            "**no**"
        };
        let _ = writeln!(w, "| {target} | {shown} | {mark} |");
    }
    let _ = writeln!(
        w,
        "| in-process dispatch + URI match < 1 µs | criterion: `cargo bench -p phantom-mcp --bench \
         dispatch` (`route tools/call`, `match URI`) | see `bench/NOTES.md` |\n"
    );
}

/// phantom's memory per held stream, in absolute terms, for every fan-out scenario.
fn stream_memory(w: &mut String, measured: &[Measured]) {
    let mut rows = Vec::new();
    for m in measured {
        let Kind::Fanout { streams } = m.bench.kind else {
            continue;
        };
        let Some(kb) = metrics(m.bench.kind)
            .into_iter()
            .find(|x| x.name == "KB/stream")
        else {
            continue;
        };
        for (v, variant) in m.bench.variants.iter().enumerate() {
            if variant.server == Server::Phantom {
                rows.push(format!(
                    "| {} | {streams} | {} | {} |",
                    m.bench.key,
                    variant.label,
                    fmt_num(m.median(v, &kb), 2)
                ));
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        w,
        "## Memory per held SSE stream (phantom)\n\n\
         The server's RSS after opening the streams minus before, divided by the streams, all held \
         open at once (sessions were opened before the first reading).\n\n\
         | scenario | streams held | server | KB per held stream |\n|---|---:|---|---:|\n{}\n",
        rows.join("\n")
    );
}

fn table(w: &mut String, m: &Measured) {
    let ms = metrics(m.bench.kind);
    let _ = writeln!(w, "## {}: {}\n", m.bench.key, m.bench.title);
    let head: Vec<&str> = ms.iter().map(|x| x.name).collect();
    let _ = writeln!(w, "| server | {} | errors |", head.join(" | "));
    let _ = writeln!(w, "|---|{}---|", "---:|".repeat(ms.len()));
    for (v, variant) in m.bench.variants.iter().enumerate() {
        let cells: Vec<String> = ms
            .iter()
            .map(|x| fmt_num(m.median(v, x), x.digits))
            .collect();
        let errors: f64 = m.runs[v].iter().map(|r| r.get("errors")).sum();
        let _ = writeln!(
            w,
            "| {} | {} | {errors} |",
            variant.label,
            cells.join(" | ")
        );
    }
    for (num, den, label) in [
        (Role::Subject, Role::Baseline, "phantom ÷ rmcp"),
        (Role::Subject, Role::Floor, "phantom ÷ floor"),
        (Role::Baseline, Role::Floor, "rmcp ÷ floor"),
    ] {
        if let Some(ratios) = m.ratios_of(num, den) {
            let cells: Vec<String> = ratios.iter().map(|(_, r)| fmt_num(*r, 2)).collect();
            let _ = writeln!(w, "| **{label}** | {} | |", cells.join(" | "));
        }
    }
    let _ = writeln!(w);
    for v in &m.bench.variants {
        let _ = writeln!(w, "- {}: {}", v.label, v.describe());
    }
    let _ = writeln!(w);
}

fn notes(w: &mut String) {
    let _ = writeln!(
        w,
        "## Notes\n\n\
         - **Stateless 2025-11-25 row.** Both servers run their legacy stateless mode and get \
         identical requests (`none 2025-11-25`: no session, no `_meta`): phantom with \
         `MODE=stateless` (`HttpConfig::default().with_stateless(true)`: `initialize` returns no \
         `Mcp-Session-Id` and every 2025-11-25 request stands alone), rmcp with \
         `MODE=stateless JSON=1`. `modern-c1` / `modern-c32` are the 2026-07-28 stateless \
         comparison.\n\
         - **The floor** (`hyper-floor`, `bench/src/bin/hyper_floor.rs`) runs in `modern-c32` \
         only: it answers any request with the echo result for the body's id, so it is driven \
         only with `none 2026-07-28`. It runs on the same tokio runtime (`#[tokio::main]`, one \
         worker when pinned) and hyper HTTP/1.1 with TCP_NODELAY as `phantom-echo`.\n\
         - **phantom runs out of the box** (no environment besides `ADDR`, and `MODE=stateless` \
         where the row is about that mode: a choice of mode, not tuning). rmcp gets \
         `NODELAY=1` (TCP_NODELAY on accepted sockets), which rmcp's own examples do not set: \
         without it every SSE reply waits ~40 ms for the client's delayed ACK; the \
         `stateful-c1` table shows one such row.\n\
         - **CPU µs/req** is the server's utime+stime from `/proc/<pid>/stat` divided by the \
         successful requests; at 1 connection it is inflated by idle wake-ups, so compare it at \
         32 connections.\n\
         - **KB/session** is (RSS after − RSS before) ÷ sessions opened; the sessions stay open. **KB/task** likewise per task created: each task completes at once and stays stored (with its result) for its 10-minute TTL, phantom's in its `MemoryTaskStore`, rmcp's in its `TaskManager`.\n\
         - The driver is `phantom-bench load` (hyper 1, HTTP/1.1 keep-alive, TCP_NODELAY, one \
         connection per virtual user, current-thread tokio). Every response is checked: status \
         200 and a JSON-RPC result for the request's unique id containing `\"text\":\"hello\"`, \
         from the JSON body or the SSE `data:` lines.\n"
    );
}

/// A horizontal bar per (scenario, metric) ratio, with a line at 1.
fn chart(path: &Path, measured: &[Measured], compile: Option<&CompileTimes>) -> Result<(), String> {
    let mut bars: Vec<(String, f64, bool)> = Vec::new();
    for m in measured {
        let Some(ratios) = m.ratios() else { continue };
        for (metric, r) in ratios {
            if metric.name.starts_with("RSS after") || !r.is_finite() {
                continue;
            }
            let better = if metric.higher_is_better {
                r >= 1.0
            } else {
                r <= 1.0
            };
            bars.push((format!("{} · {}", m.bench.key, metric.name), r, better));
        }
    }
    if let Some(c) = compile {
        for (name, r) in c.ratios() {
            if r.is_finite() {
                bars.push((format!("compile · {name}"), r, r <= 1.0));
            }
        }
    }
    // phantom ÷ floor, drawn in blue after the phantom ÷ rmcp bars.
    let against_rmcp = bars.len();
    for m in measured {
        for metric in ["req/s", "CPU µs/req"] {
            if let Some(r) = m.to_floor(Role::Subject, metric).filter(|r| r.is_finite()) {
                bars.push((format!("{} · {metric} ÷ floor", m.bench.key), r, true));
            }
        }
    }
    let n = bars.len().max(1);
    let max = bars.iter().map(|b| b.1).fold(1.0_f64, f64::max) * 1.1;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let height = (80 + 22 * n) as u32;
    let err = |e: &dyn std::fmt::Display| format!("ratios.svg: {e}");
    let root = SVGBackend::new(path, (900, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let ni = i32::try_from(n).map_err(|e| err(&e))?;
    // Bar k sits in segment n-1-k, so the first bar is at the top.
    let seg = |k: usize| ni - 1 - i32::try_from(k).unwrap_or(0);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "phantom ÷ rmcp (green: phantom better, red: rmcp better); blue: phantom ÷ hyper floor",
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(300)
        .build_cartesian_2d(0.0..max, (0..ni).into_segmented())
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&|y| match y {
            SegmentValue::CenterOf(i) => usize::try_from(ni - 1 - i)
                .ok()
                .and_then(|k| bars.get(k))
                .map(|b| b.0.clone())
                .unwrap_or_default(),
            _ => String::new(),
        })
        .x_desc("ratio")
        .draw()
        .map_err(|e| err(&e))?;
    chart
        .draw_series(bars.iter().enumerate().map(|(k, (_, r, better))| {
            let color = if k >= against_rmcp {
                BLUE.mix(0.6)
            } else if *better {
                GREEN.mix(0.7)
            } else {
                RED.mix(0.7)
            };
            let mut bar = Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(seg(k))),
                    (*r, SegmentValue::Exact(seg(k) + 1)),
                ],
                color.filled(),
            );
            bar.set_margin(3, 3, 0, 0);
            bar
        }))
        .map_err(|e| err(&e))?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![
                (1.0, SegmentValue::Exact(0)),
                (1.0, SegmentValue::Exact(ni)),
            ],
            BLACK.stroke_width(2),
        )))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
