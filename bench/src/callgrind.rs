//! Callgrind's side of `phantom-bench instructions`: a server started under
//! `valgrind --tool=callgrind`, its counters zeroed and dumped with `callgrind_control`, and the
//! dump read for the two figures the table needs (total instructions, calls of `malloc`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Whether `valgrind` and `callgrind_control` can be run.
pub(crate) fn available() -> bool {
    ["valgrind", "callgrind_control"].iter().all(|tool| {
        Command::new(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// `valgrind`, under `taskset -c <pin>` when given.
fn valgrind(pin: Option<&str>) -> Command {
    match pin {
        Some(cpu) => {
            let mut c = Command::new("taskset");
            c.args(["-c", cpu, "valgrind"]);
            c
        }
        None => Command::new("valgrind"),
    }
}

/// A server running under callgrind; killed (and its files removed) when dropped.
pub(crate) struct Profiled {
    child: Child,
    dir: PathBuf,
}

impl Profiled {
    /// Starts `program` under callgrind with `env`, its output and vgdb's pipes in a fresh
    /// directory of its own. `pin` is `taskset -c 0` when the runner pins servers.
    pub(crate) fn start(
        pin: Option<&str>,
        program: &Path,
        env: &[(&str, &str)],
        log: &Path,
    ) -> Result<Self, String> {
        let dir = std::env::temp_dir().join(format!(
            "phantom-bench-callgrind-{}-{}",
            std::process::id(),
            program
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut cmd = valgrind(pin);
        let log = std::fs::File::create(log).map_err(|e| e.to_string())?;
        cmd.arg("--tool=callgrind")
            .arg(format!(
                "--callgrind-out-file={}",
                dir.join("cg.out").display()
            ))
            .arg(format!("--vgdb-prefix={}", dir.join("vgdb").display()))
            .arg(program)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        let child = cmd.spawn().map_err(|e| format!("spawn valgrind: {e}"))?;
        Ok(Self { child, dir })
    }

    pub(crate) fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// `callgrind_control <action> <pid>`, with the vgdb prefix the server was started with.
    fn control(&self, action: &str) -> Result<(), String> {
        let out = Command::new("callgrind_control")
            .arg(format!("--vgdb-prefix={}", self.dir.join("vgdb").display()))
            .arg(action)
            .arg(self.child.id().to_string())
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("callgrind_control: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "`callgrind_control {action}` failed ({}): {}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// Zeroes every event counter.
    pub(crate) fn zero(&self) -> Result<(), String> {
        self.control("--zero")
    }

    /// Dumps the counters since the last zero and reads the dump; copies it to `keep` when given
    /// (for `callgrind_annotate`).
    pub(crate) fn dump(&self, keep: Option<&Path>) -> Result<Counts, String> {
        self.control("--dump")?;
        let entries = std::fs::read_dir(&self.dir).map_err(|e| e.to_string())?;
        let mut dumps: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("cg.out."))
            })
            .collect();
        dumps.sort();
        let last = dumps.last().ok_or("callgrind wrote no dump")?;
        if let Some(keep) = keep {
            std::fs::copy(last, keep).map_err(|e| format!("{}: {e}", keep.display()))?;
        }
        let text = std::fs::read_to_string(last).map_err(|e| e.to_string())?;
        parse(&text)
    }
}

impl Drop for Profiled {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs `program` to its end under callgrind, counting only inside `function` (its calls
/// included; `--collect-atstart=no --toggle-collect`), and reads the dump it leaves at exit.
pub(crate) fn run_within(
    pin: Option<&str>,
    program: &Path,
    env: &[(&str, &str)],
    function: &str,
) -> Result<Counts, String> {
    let out = std::env::temp_dir().join(format!(
        "phantom-bench-callgrind-{}-toggled.out",
        std::process::id()
    ));
    let mut cmd = valgrind(pin);
    let run = cmd
        .arg("--tool=callgrind")
        .arg("--collect-atstart=no")
        .arg(format!("--toggle-collect={function}"))
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(program)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("spawn valgrind: {e}"))?;
    let text = std::fs::read_to_string(&out);
    let _ = std::fs::remove_file(&out);
    if !run.status.success() {
        return Err(format!(
            "`{}` under callgrind failed ({}): {}",
            program.display(),
            run.status,
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    parse(&text.map_err(|e| format!("{}: {e}", out.display()))?)
}

/// What a dump says about the interval it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Instructions executed, whole process (every thread).
    pub(crate) instructions: u64,
    /// Calls of `malloc`, from any caller.
    pub(crate) mallocs: u64,
}

/// Reads `totals:` (or `summary:`) and the `calls=` lines of the call edges to `malloc`.
///
/// Function names are compressed: `cfn=(7) malloc` names id 7 the first time, `cfn=(7)` after;
/// `fn=` lines share the table.
pub(crate) fn parse(text: &str) -> Result<Counts, String> {
    let mut names = std::collections::HashMap::new();
    let mut total = None;
    let mut callee_is_malloc = false;
    let mut mallocs = 0;
    for line in text.lines() {
        if let Some(rest) = line
            .strip_prefix("totals:")
            .or_else(|| line.strip_prefix("summary:"))
        {
            let first = rest.split_whitespace().next().unwrap_or_default();
            total = Some(first.parse().map_err(|_| format!("bad `{line}`"))?);
        } else if let Some(spec) = line.strip_prefix("cfn=") {
            callee_is_malloc = name(&mut names, spec) == "malloc";
        } else if let Some(spec) = line.strip_prefix("fn=") {
            name(&mut names, spec);
        } else if let Some(calls) = line.strip_prefix("calls=")
            && callee_is_malloc
        {
            let n: u64 = calls
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| format!("bad `{line}`"))?;
            mallocs += n;
        }
    }
    Ok(Counts {
        instructions: total.ok_or("the dump has no `totals:` line")?,
        mallocs,
    })
}

/// The function a `(id) name` or `(id)` spec names, recording new ids.
fn name<'a>(names: &mut std::collections::HashMap<&'a str, &'a str>, spec: &'a str) -> &'a str {
    let Some(rest) = spec.strip_prefix('(') else {
        return spec;
    };
    let Some((id, tail)) = rest.split_once(')') else {
        return spec;
    };
    let tail = tail.trim_start();
    if tail.is_empty() {
        names.get(id).copied().unwrap_or_default()
    } else {
        names.insert(id, tail);
        tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_totals_and_malloc_calls() {
        let dump = "\
version: 1
events: Ir
fn=(1) main
0 10
cfn=(2) malloc
calls=3 0
0 90
cfn=(3) free
calls=3 0
0 60
fn=(4) other
0 5
cfn=(2)
calls=2 0
0 40
fn=(2)
0 130
totals: 245
";
        assert_eq!(
            parse(dump),
            Ok(Counts {
                instructions: 245,
                mallocs: 5
            })
        );
        assert!(parse("events: Ir\n").is_err());
    }
}
