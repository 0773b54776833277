//! `phantom-bench lambda`: phantom as an AWS Lambda function (`phantom-lambda-echo`, the echo
//! server behind `phantom_lambda::service`, invoked in process). Two figures:
//!
//! - cold start: from spawning a fresh process to the first answer on its stdout (one
//!   invocation, no warm-up), the median of `--starts` processes;
//! - instructions and mallocs per invocation: callgrind counting only inside the function that
//!   runs the measured invocations, after a warm-up, divided by their number.

use std::io::BufRead as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::runner::{Env, Server};

/// Options of `lambda`.
#[derive(Debug)]
pub(crate) struct Options {
    starts: usize,
    invocations: u64,
    warmup: u64,
}

impl Options {
    pub(crate) fn parse(args: &[String]) -> Result<Self, String> {
        let mut o = Self {
            starts: 7,
            invocations: 20000,
            warmup: 2000,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("{arg} needs a value"));
            match arg.as_str() {
                "--starts" => o.starts = value()?.parse().map_err(|_| "bad --starts")?,
                "--invocations" => {
                    o.invocations = value()?.parse().map_err(|_| "bad --invocations")?;
                }
                "--warmup" => o.warmup = value()?.parse().map_err(|_| "bad --warmup")?,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        if o.starts == 0 || o.invocations == 0 {
            return Err("--starts and --invocations must be at least 1".into());
        }
        Ok(o)
    }
}

/// One fresh process: the time from its spawn to the first line of its answer.
fn first_answer(env: &Env) -> Result<Duration, String> {
    let program = env.binary(Server::Lambda);
    let start = Instant::now();
    let mut child = Command::new(&program)
        .envs([("N", "1"), ("WARMUP", "0")])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let mut line = String::new();
    let stdout = child.stdout.take().ok_or("no stdout")?;
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let elapsed = start.elapsed();
    let status = child.wait().map_err(|e| e.to_string())?;
    if !status.success() || !line.contains("statusCode") {
        return Err(format!("phantom-lambda-echo failed ({status}): {line}"));
    }
    Ok(elapsed)
}

/// The smoke's check: one fresh process answers its invocation.
pub(crate) fn smoke(env: &Env) -> Result<(), String> {
    let took = first_answer(env)?;
    println!(
        "lambda: first answer of a fresh phantom-lambda-echo in {:.1} ms",
        took.as_secs_f64() * 1e3
    );
    Ok(())
}

pub(crate) fn main(o: &Options) -> Result<(), String> {
    let env = Env::detect()?;
    let mut starts = (0..o.starts)
        .map(|_| first_answer(&env))
        .collect::<Result<Vec<_>, _>>()?;
    starts.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "cold start (spawn → first answer), {} fresh processes: median {:.2} ms, min {:.2} ms, max {:.2} ms",
        starts.len(),
        ms(starts[starts.len() / 2]),
        ms(starts[0]),
        ms(starts[starts.len() - 1])
    );
    if !crate::callgrind::available() {
        println!("callgrind: `valgrind` or `callgrind_control` not found, no instruction counts");
        return Ok(());
    }
    let (n, warmup) = (o.invocations.to_string(), o.warmup.to_string());
    let counts = crate::callgrind::run_within(
        env.pinned.then_some("0"),
        &env.binary(Server::Lambda),
        &[("N", &n), ("WARMUP", &warmup)],
        "phantom_lambda_echo::invocations*",
    )?;
    let per = |x: u64| x as f64 / o.invocations as f64;
    println!(
        "per invocation ({} after {} of warm-up): {:.1} k instructions, {:.1} mallocs",
        o.invocations,
        o.warmup,
        per(counts.instructions) / 1e3,
        per(counts.mallocs)
    );
    Ok(())
}
