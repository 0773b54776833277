//! `phantom-bench`: side-by-side benchmarks of phantom (`phantom-echo`) against rmcp
//! (`rmcp-echo`) and against the floor (`hyper-floor`, bare hyper).
//!
//! ```text
//! phantom-bench load <mode> <url> …          the load driver; prints one RESULT line
//! phantom-bench all   [--rounds N] [--secs S] [--only KEY,…] [--no-compile]
//!                                            every scenario, then RESULTS.md and ratios.svg
//! phantom-bench smoke [--write]              every driver mode for ~1 s against each server,
//!                                            the soak driver for 3 s, `instructions` with
//!                                            200 requests and one Lambda invocation; exits
//!                                            non-zero if any failed
//! phantom-bench compile [--rounds N]         only the compile-time comparison
//! phantom-bench soak  [--secs S] [--loops N]  mixed traffic of both eras against phantom-soak
//!                                            (default 300 s, 4 loops per era), RSS sampled;
//!                                            rewrites the soak section of RESULTS.md; exits
//!                                            non-zero unless the RSS stays flat, error-free
//! phantom-bench instructions [--requests N] [--warmup N] [--conns N] [--only KEY,…] [--write]
//!                            [--servers phantom,floor,rmcp] [--keep DIR]
//!                                            each server under callgrind, a fixed number of
//!                                            requests per scenario: instructions and mallocs
//!                                            per request (default 20000 after 2000, 32
//!                                            connections); --write: its section of RESULTS.md;
//!                                            --keep: the dumps, for callgrind_annotate
//! phantom-bench lambda [--starts N] [--invocations N] [--warmup N]
//!                                            phantom-lambda-echo: time to the first answer
//!                                            from a fresh process (median of 7 starts), then
//!                                            under callgrind instructions and mallocs per
//!                                            invocation (default 20000 after 2000)
//! ```
//!
//! Run it with `cargo run -p phantom-bench --release -- <command>`: the runner finds the
//! servers next to this executable and builds them there when they are missing or stale.

mod callgrind;
mod compile;
mod fanout;
mod instructions;
mod lambda;
mod load;
mod report;
mod runner;
mod soak;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};

use crate::report::{Context, Measured};
use crate::runner::{Bench, Env};

/// The repository root, known at compile time; used for the compile-time crates and `Cargo.lock`.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Options of `all`, `smoke` and `compile`.
#[derive(Debug)]
struct Options {
    rounds: usize,
    secs: u32,
    only: Option<Vec<String>>,
    compile: bool,
    write: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut o = Self {
            rounds: 3,
            secs: 5,
            only: None,
            compile: true,
            write: false,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("`{a}` needs a value"));
            match a.as_str() {
                "--rounds" => {
                    o.rounds = value()?.parse().map_err(|_| "bad --rounds")?;
                    if o.rounds == 0 {
                        return Err("--rounds must be at least 1".into());
                    }
                }
                "--secs" => o.secs = value()?.parse().map_err(|_| "bad --secs")?,
                "--only" => o.only = Some(value()?.split(',').map(str::to_owned).collect()),
                "--no-compile" => o.compile = false,
                "--write" => o.write = true,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        Ok(o)
    }
}

const USAGE: &str = "usage: phantom-bench <load|all|smoke|compile|soak|instructions|lambda> …  (see `phantom-bench help`)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("load") => return load_main(&args[1..]),
        Some("all") => Options::parse(&args[1..]).and_then(|o| all(&o)),
        Some("smoke") => Options::parse(&args[1..]).and_then(|o| smoke(&o)),
        Some("compile") => Options::parse(&args[1..]).and_then(|o| compile_only(&o)),
        Some("soak") => soak::Options::parse(&args[1..]).and_then(|o| soak_main(&o)),
        Some("instructions") => {
            instructions::Options::parse(&args[1..]).and_then(|o| instructions::main(&o))
        }
        Some("lambda") => lambda::Options::parse(&args[1..]).and_then(|o| lambda::main(&o)),
        Some("help" | "--help" | "-h") => {
            println!(
                "{}",
                include_str!("main.rs")
                    .lines()
                    .take(29)
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            Ok(())
        }
        _ => Err(USAGE.into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The driver: one `RESULT` line on stdout; exit 1 if the run could not complete.
fn load_main(args: &[String]) -> ExitCode {
    let run = match args.first().map(String::as_str) {
        Some("soak") => soak::drive(&args[1..]),
        _ => load::Scenario::parse(args)
            .and_then(|(target, s)| s.run(&target))
            .map(|report| report.to_string()),
    };
    match run {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn progress_bar(len: usize) -> ProgressBar {
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("[{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

/// Runs every bench `rounds` times, variants alternating within each round.
fn run_benches(env: &Env, benches: Vec<Bench>, rounds: usize) -> Result<Vec<Measured>, String> {
    let total = benches.iter().map(|b| b.variants.len() * rounds).sum();
    let pb = progress_bar(total);
    let mut out = Vec::new();
    for bench in benches {
        let mut runs = vec![Vec::new(); bench.variants.len()];
        for round in 1..=rounds {
            for (v, variant) in bench.variants.iter().enumerate() {
                pb.set_message(format!("{} · {} · round {round}", bench.key, variant.label));
                let run = env
                    .measure(variant)
                    .map_err(|e| format!("{} / {}: {e}", bench.key, variant.label))?;
                // `suspend`, not `println`: the line must show without a terminal too (CI).
                pb.suspend(|| {
                    println!(
                        "{:<22} {:<46} ok={:<7} errors={:<4} rps={:>9.1} p99={:>7.3}ms \
                         cpu/op={:>6.1}µs rss={:.1}MB",
                        bench.key,
                        variant.label,
                        run.get("ok"),
                        run.get("errors"),
                        run.get("rps"),
                        run.get("p99_ms"),
                        run.cpu_us_per_op,
                        run.rss_after_kb / 1024.0,
                    );
                });
                runs[v].push(run);
                pb.inc(1);
            }
        }
        out.push(Measured { bench, runs });
    }
    pb.finish_and_clear();
    Ok(out)
}

fn pinning(env: &Env) -> String {
    env.pin_note.clone().unwrap_or_else(|| {
        "server on CPU 0, driver on CPU 1 (`taskset -c`); compile builds unpinned".into()
    })
}

fn bench_dir() -> PathBuf {
    repo_root().join("bench")
}

fn all(o: &Options) -> Result<(), String> {
    let env = Env::detect()?;
    if let Some(note) = &env.pin_note {
        eprintln!("note: {note}");
    }
    let mut benches = runner::all_benches(o.secs);
    if let Some(only) = &o.only {
        benches.retain(|b| only.iter().any(|k| k == b.key));
    }
    let measured = run_benches(&env, benches, o.rounds)?;
    // A failed compile measurement must not throw away the runtime results.
    let compile = if o.compile {
        measure_compile(o.rounds)
            .inspect_err(|e| eprintln!("error: compile-time section skipped: {e}"))
            .ok()
    } else {
        None
    };
    let cx = Context {
        repo: &repo_root(),
        command: format!(
            "cargo run -p phantom-bench --release -- all --rounds {} --secs {}{}",
            o.rounds,
            o.secs,
            if o.compile { "" } else { " --no-compile" }
        ),
        rounds: o.rounds,
        pinning: pinning(&env),
    };
    report::write(&bench_dir(), &cx, &measured, compile.as_ref())?;
    println!("wrote bench/RESULTS.md and bench/ratios.svg");
    Ok(())
}

fn measure_compile(rounds: usize) -> Result<compile::CompileTimes, String> {
    let pb = ProgressBar::new_spinner();
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    let times = compile::measure(&repo_root(), rounds, &|m| {
        pb.set_message(format!("compile: {m}"));
    });
    pb.finish_and_clear();
    let times = times?;
    for (name, r) in times.ratios() {
        println!("compile {name}: phantom ÷ rmcp = {r:.2}");
    }
    Ok(times)
}

fn compile_only(o: &Options) -> Result<(), String> {
    let times = measure_compile(o.rounds)?;
    let mut md = String::new();
    times.markdown(&mut md);
    print!("{md}");
    Ok(())
}

/// How long the smoke runs the soak driver.
const SMOKE_SOAK_SECS: u32 = 3;

fn smoke(o: &Options) -> Result<(), String> {
    let env = Env::detect()?;
    if let Some(note) = &env.pin_note {
        eprintln!("note: {note}");
    }
    let measured = run_benches(&env, runner::smoke_benches(), 1)?;
    let errors: f64 = measured.iter().map(Measured::errors).sum();
    let empty: Vec<&str> = measured
        .iter()
        .flat_map(|m| {
            m.runs
                .iter()
                .zip(&m.bench.variants)
                .filter(|(runs, _)| runs.iter().any(|r| r.get("ok") < 1.0))
                .map(move |_| m.bench.key)
        })
        .collect();
    if o.write {
        let cx = Context {
            repo: &repo_root(),
            command: "cargo run -p phantom-bench --release -- smoke --write".into(),
            rounds: 1,
            pinning: pinning(&env),
        };
        report::write(&bench_dir(), &cx, &measured, None)?;
        println!("wrote bench/RESULTS.md and bench/ratios.svg (smoke numbers: not a benchmark)");
    }
    // The soak driver, briefly: every kind of step must succeed at least once, none may fail
    // (three seconds of RSS say nothing about its slope).
    let soak = soak::run(&env, SMOKE_SOAK_SECS, 2)?;
    println!("{}", soak.summary());
    // Every server under callgrind with a few requests per scenario (skipped without valgrind).
    instructions::smoke(&env)?;
    // The echo server as a Lambda function: one fresh process answers one invocation.
    lambda::smoke(&env)?;
    if errors > 0.0 {
        return Err(format!("smoke: {errors} requests failed"));
    }
    if soak.total_errors() > 0 {
        return Err(format!("smoke: {} soak steps failed", soak.total_errors()));
    }
    if !soak.missing().is_empty() {
        return Err(format!(
            "smoke: the soak never completed {}",
            soak.missing().join(", ")
        ));
    }
    if !empty.is_empty() {
        return Err(format!(
            "smoke: no successful request in {}",
            empty.join(", ")
        ));
    }
    println!("smoke: ok");
    Ok(())
}

fn soak_main(o: &soak::Options) -> Result<(), String> {
    let env = Env::detect()?;
    if let Some(note) = &env.pin_note {
        eprintln!("note: {note}");
    }
    eprintln!(
        "soak: {} s of mixed traffic, {} loops per era…",
        o.secs, o.loops
    );
    let outcome = soak::run(&env, o.secs, o.loops)?;
    println!("{}", outcome.summary());
    let command = format!(
        "cargo run -p phantom-bench --release -- soak --secs {} --loops {}",
        o.secs, o.loops
    );
    let path = bench_dir().join("RESULTS.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    let pinning = env
        .pin_note
        .as_deref()
        .unwrap_or("server on CPU 0, driver on CPU 1 (`taskset -c`)");
    let section = outcome.section(&command, pinning);
    std::fs::write(&path, soak::splice(&doc, &section)).map_err(|e| format!("RESULTS.md: {e}"))?;
    println!("wrote the soak section of bench/RESULTS.md");
    if outcome.passed() {
        println!("soak: PASS");
        Ok(())
    } else {
        Err("soak: FAIL (see the soak section of bench/RESULTS.md)".into())
    }
}
