//! Compile time of a 100-tool router: one tiny crate on phantom, one on rmcp, generated in a
//! temporary directory and built with their own target directories.
//!
//! After a warm-up build (all dependencies), each round measures a clean build of the router
//! crate alone (`cargo clean -p <crate>`, then `cargo build`) and an incremental rebuild after
//! touching its source. Debug profile: the edit–compile loop is what a macro's cost shows up in.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// Tools per router.
const TOOLS: usize = 100;

/// Seconds per build, per framework.
#[derive(Debug, Default)]
pub(crate) struct CompileTimes {
    phantom_clean: Vec<f64>,
    phantom_incr: Vec<f64>,
    rmcp_clean: Vec<f64>,
    rmcp_incr: Vec<f64>,
}

fn median(xs: &[f64]) -> f64 {
    let mut xs = xs.to_vec();
    xs.sort_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => f64::midpoint(xs[n / 2 - 1], xs[n / 2]),
    }
}

impl CompileTimes {
    /// phantom ÷ rmcp of the median clean and incremental build times.
    pub(crate) fn ratios(&self) -> Vec<(&'static str, f64)> {
        vec![
            (
                "clean build",
                median(&self.phantom_clean) / median(&self.rmcp_clean),
            ),
            (
                "incremental",
                median(&self.phantom_incr) / median(&self.rmcp_incr),
            ),
        ]
    }

    /// The report section.
    pub(crate) fn markdown(&self, w: &mut String) {
        let _ = writeln!(
            w,
            "<!-- compile:begin -->\n## Compile time: a {TOOLS}-tool router (debug profile, seconds)\n\n\
             Two generated crates, each one `impl` block of {TOOLS} tools taking `text: String` \
             (phantom: `#[mcp_router]` + `#[tool]`; rmcp: `#[tool_router]` + `#[tool]` with \
             `Parameters<Args>`, plus `#[tool_handler]`). Clean = the router crate alone after \
             its dependencies are built (`cargo clean -p`); incremental = rebuild after touching \
             its source. Builds are not pinned and use both cores. Medians over {} rounds, \
             measured on {} (`all --no-compile` keeps this section).\n",
            self.phantom_clean.len(),
            crate::report::command_line("date", &["-u", "+%Y-%m-%d"])
        );
        let _ = writeln!(
            w,
            "| build | phantom | rmcp | phantom ÷ rmcp |\n|---|---:|---:|---:|"
        );
        for (name, p, r) in [
            ("clean", &self.phantom_clean, &self.rmcp_clean),
            ("incremental", &self.phantom_incr, &self.rmcp_incr),
        ] {
            let (p, r) = (median(p), median(r));
            let _ = writeln!(w, "| {name} | {p:.2} | {r:.2} | {:.2} |", p / r);
        }
        let _ = writeln!(w, "<!-- compile:end -->\n");
    }
}

/// A generated crate.
struct Crate {
    name: &'static str,
    dir: PathBuf,
    target: PathBuf,
}

impl Crate {
    fn cargo(&self, args: &[&str]) -> Result<Duration, String> {
        let t = Instant::now();
        let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(args)
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", &self.target)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cargo: {e}"))?;
        let elapsed = t.elapsed();
        if out.status.success() {
            Ok(elapsed)
        } else {
            Err(format!(
                "`cargo {}` in the generated `{}` crate failed:\n{}",
                args.join(" "),
                self.name,
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// Marks the source as modified.
    fn touch(&self) -> Result<(), String> {
        let f = std::fs::File::options()
            .append(true)
            .open(self.dir.join("src/lib.rs"))
            .map_err(|e| e.to_string())?;
        f.set_modified(SystemTime::now()).map_err(|e| e.to_string())
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn phantom_crate(root: &Path, repo: &Path) -> Result<Crate, String> {
    let dir = root.join("router-phantom");
    let phantom = repo.join("phantom");
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"router-phantom\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\
             publish = false\n\n[dependencies]\nphantom = {{ package = \"phantom-mcp\", path = {:?} }}\n\n\
             [workspace]\n",
            phantom.display().to_string()
        ),
    )?;
    let mut src = String::from(
        "//! A 100-tool phantom router.\nuse phantom::prelude::*;\n\n/// The router.\n\
         #[derive(Clone)]\npub struct Router;\n\n\
         #[mcp_router(name = \"router-phantom\", version = \"0.0.0\")]\nimpl Router {\n",
    );
    for i in 0..TOOLS {
        let _ = writeln!(
            src,
            "    /// Tool {i}.\n    #[tool]\n    async fn tool_{i}(&self, text: String) -> String {{\n        text\n    }}\n"
        );
    }
    src.push_str("}\n");
    write(&dir.join("src/lib.rs"), &src)?;
    Ok(Crate {
        name: "router-phantom",
        target: root.join("target-phantom"),
        dir,
    })
}

fn rmcp_crate(root: &Path) -> Result<Crate, String> {
    let dir = root.join("router-rmcp");
    write(
        &dir.join("Cargo.toml"),
        "[package]\nname = \"router-rmcp\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nrmcp = { version = \"3.11\", features = [\"server\", \"macros\"] }\n\
         schemars = \"1\"\nserde = { version = \"1\", features = [\"derive\"] }\n\n[workspace]\n",
    )?;
    let mut src = String::from(
        "//! A 100-tool rmcp router.\n\
         use rmcp::{\n    ServerHandler,\n    handler::server::{router::tool::ToolRouter, wrapper::Parameters},\n    \
         model::{ServerCapabilities, ServerConfig},\n    tool, tool_handler, tool_router,\n};\n\n\
         /// Arguments of every tool.\n#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]\n\
         pub struct Args {\n    /// The text.\n    pub text: String,\n}\n\n\
         /// The router.\n#[derive(Debug, Clone)]\npub struct Router {\n    tool_router: ToolRouter<Self>,\n}\n\n\
         #[tool_router]\nimpl Router {\n    /// A router with every tool.\n    pub fn new() -> Self {\n        \
         Self { tool_router: Self::tool_router() }\n    }\n\n",
    );
    for i in 0..TOOLS {
        let _ = writeln!(
            src,
            "    /// Tool {i}.\n    #[tool(description = \"Tool {i}.\")]\n    \
             async fn tool_{i}(&self, Parameters(Args {{ text }}): Parameters<Args>) -> String {{\n        text\n    }}\n"
        );
    }
    src.push_str(
        "}\n\n#[tool_handler(router = self.tool_router)]\nimpl ServerHandler for Router {\n    \
         fn get_info(&self) -> ServerConfig {\n        \
         ServerConfig::new(ServerCapabilities::builder().enable_tools().build())\n    }\n}\n",
    );
    write(&dir.join("src/lib.rs"), &src)?;
    Ok(Crate {
        name: "router-rmcp",
        target: root.join("target-rmcp"),
        dir,
    })
}

/// Generates both crates under the system temp directory, warms them up, then measures `rounds`
/// clean and incremental builds of each, alternately. `progress` is told about each step.
pub(crate) fn measure(
    repo: &Path,
    rounds: usize,
    progress: &dyn Fn(&str),
) -> Result<CompileTimes, String> {
    let root = std::env::temp_dir().join(format!("phantom-bench-compile-{}", std::process::id()));
    let crates = [phantom_crate(&root, repo)?, rmcp_crate(&root)?];
    // The repository's lock file pins the same versions the servers were built with.
    if let Ok(lock) = std::fs::read_to_string(repo.join("Cargo.lock")) {
        for c in &crates {
            write(&c.dir.join("Cargo.lock"), &lock)?;
        }
    }
    let result = (|| {
        for c in &crates {
            progress(&format!("warm-up build of {} (dependencies)", c.name));
            c.cargo(&["build", "--quiet"])?;
        }
        let mut times = CompileTimes::default();
        for round in 1..=rounds {
            for c in &crates {
                progress(&format!("{} round {round}/{rounds}", c.name));
                c.cargo(&["clean", "--quiet", "-p", c.name])?;
                let clean = c.cargo(&["build", "--quiet"])?.as_secs_f64();
                c.touch()?;
                let incr = c.cargo(&["build", "--quiet"])?.as_secs_f64();
                let (cv, iv) = if c.name == "router-phantom" {
                    (&mut times.phantom_clean, &mut times.phantom_incr)
                } else {
                    (&mut times.rmcp_clean, &mut times.rmcp_incr)
                };
                cv.push(clean);
                iv.push(incr);
            }
        }
        Ok(times)
    })();
    let _ = std::fs::remove_dir_all(&root);
    result
}
