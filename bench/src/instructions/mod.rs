//! `phantom-bench instructions`: instructions and allocations per request, counted by callgrind.
//!
//! ```text
//! phantom-bench instructions [--requests N] [--warmup N] [--conns N] [--only KEY,…] [--write]
//!                            [--servers phantom,floor,rmcp] [--keep DIR]
//! ```
//!
//! Scenario keys: `modern-call`, `legacy-call`, `modern-read`, `mounted-call`. `--keep DIR` copies each dump to
//! `DIR/<key>.<server>.out`, for `callgrind_annotate --inclusive=yes` or `bench/cg_inclusive.py`.
//!
//! Each server (`phantom-echo`, `hyper-floor`, `rmcp-echo`) runs alone under
//! `valgrind --tool=callgrind`, once per scenario, and this executable drives it over keep-alive
//! connections: a warm-up, the counters zeroed (`callgrind_control --zero`), a fixed number of
//! requests (not a fixed time, so that the counts of different servers cover the same work),
//! then a dump (`callgrind_control --dump`). The dump's total instructions and its calls of
//! `malloc`, divided by the requests, are the figures. They do not move with the machine's load
//! or CPU model, unlike the CPU times of the timing tables.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hyper::Method;
use hyper::header::HeaderValue;

use crate::callgrind::{self, Counts, Profiled};
use crate::load::{Conn, Era, Stats, Target, check};
use crate::runner::{Env, Server};

mod section;

use section::{section, splice, table};

/// Options of `instructions`.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Requests counted per run.
    pub(crate) requests: usize,
    /// Requests before the counters are zeroed.
    pub(crate) warmup: usize,
    /// Keep-alive connections.
    pub(crate) conns: usize,
    /// Scenario keys to run (all when `None`).
    pub(crate) only: Option<Vec<String>>,
    /// Servers to run (`phantom`, `floor`, `rmcp`; all when `None`), for a round's before and
    /// after: the others' cells say "not run".
    pub(crate) servers: Option<Vec<String>>,
    /// Whether to rewrite the section of `RESULTS.md`.
    pub(crate) write: bool,
    /// Where to keep the dumps (`<scenario>.<server>.out`), for `callgrind_annotate`.
    pub(crate) keep: Option<PathBuf>,
}

impl Options {
    /// The brief run of `smoke`: it shows that every server answers every scenario under
    /// callgrind, not what a request costs.
    pub(crate) const SMOKE: Self = Self {
        requests: 200,
        warmup: 100,
        conns: 32,
        only: None,
        servers: None,
        write: false,
        keep: None,
    };

    pub(crate) fn parse(args: &[String]) -> Result<Self, String> {
        let mut o = Self {
            requests: 20_000,
            warmup: 2_000,
            conns: 32,
            only: None,
            servers: None,
            write: false,
            keep: None,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut count = || -> Result<usize, String> {
                it.next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("`{a}` needs a count of at least 1"))
            };
            match a.as_str() {
                "--requests" => o.requests = count()?,
                "--warmup" => o.warmup = count()?,
                "--conns" => o.conns = count()?,
                "--only" => {
                    let keys = it.next().ok_or("`--only` needs scenario keys")?;
                    let keys: Vec<String> = keys.split(',').map(str::to_owned).collect();
                    if let Some(k) = keys
                        .iter()
                        .find(|k| !Scenario::ALL.iter().any(|s| s.key() == *k))
                    {
                        let known: Vec<&str> = Scenario::ALL.iter().map(|s| s.key()).collect();
                        return Err(format!(
                            "unknown scenario `{k}` (known: {})",
                            known.join(", ")
                        ));
                    }
                    o.only = Some(keys);
                }
                "--servers" => {
                    let keys = it.next().ok_or("`--servers` needs server keys")?;
                    let keys: Vec<String> = keys.split(',').map(str::to_owned).collect();
                    if let Some(k) = keys
                        .iter()
                        .find(|k| !SERVERS.iter().any(|s| server_key(*s) == *k))
                    {
                        return Err(format!(
                            "unknown server `{k}` (known: phantom, floor, rmcp)"
                        ));
                    }
                    o.servers = Some(keys);
                }
                "--write" => o.write = true,
                "--keep" => o.keep = Some(it.next().ok_or("`--keep` needs a directory")?.into()),
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        if o.write && o.servers.is_some() {
            return Err("`--write` needs every server: leave out `--servers`".into());
        }
        Ok(o)
    }
}

/// What the driver sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scenario {
    /// 2026-07-28 `tools/call echo`, no session.
    ModernCall,
    /// 2025-11-25 `tools/call echo` on one session shared by every connection.
    LegacyCall,
    /// 2026-07-28 `resources/read` of `users://42/profile` (the template `users://<id>/profile`).
    ModernRead,
    /// `ModernCall` with phantom mounted in an axum app (`nest_service("/mcp", …)` under
    /// `axum::serve`, phantom-echo's `MOUNT=1`), as a user who owns the listener mounts it.
    MountedCall,
}

/// The URI `ModernRead` reads, and what its text must contain.
pub(super) const READ_URI: &str = "users://42/profile";
const READ_TEXT: &[u8] = b"profile of 42";

/// rmcp's settings, as in the timing tables.
const RMCP_STATELESS: &[(&str, &str)] = &[("MODE", "stateless"), ("JSON", "1"), ("NODELAY", "1")];
const RMCP_STATEFUL: &[(&str, &str)] = &[("MODE", "stateful"), ("NODELAY", "1")];

impl Scenario {
    const ALL: [Self; 4] = [
        Self::ModernCall,
        Self::LegacyCall,
        Self::ModernRead,
        Self::MountedCall,
    ];

    fn key(self) -> &'static str {
        match self {
            Self::ModernCall => "modern-call",
            Self::LegacyCall => "legacy-call",
            Self::ModernRead => "modern-read",
            Self::MountedCall => "mounted-call",
        }
    }

    pub(super) fn title(self) -> &'static str {
        match self {
            Self::ModernCall => "2026-07-28 `tools/call`",
            Self::LegacyCall => "legacy stateful `tools/call`, shared session",
            Self::ModernRead => "2026-07-28 `resources/read` of a template",
            Self::MountedCall => "2026-07-28 `tools/call`, phantom mounted in an axum app",
        }
    }

    fn rmcp_env(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::LegacyCall => RMCP_STATEFUL,
            Self::ModernCall | Self::ModernRead | Self::MountedCall => RMCP_STATELESS,
        }
    }

    /// One request, its answer checked.
    async fn request(
        self,
        conn: &mut Conn,
        stats: &Stats,
        session: Option<&HeaderValue>,
    ) -> Result<(), String> {
        match self {
            Self::ModernCall | Self::MountedCall => conn.call(stats, None, Era::Modern).await,
            Self::LegacyCall => conn.call(stats, session, Era::Legacy).await,
            Self::ModernRead => {
                let id = stats.id();
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"{READ_URI}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"phantom-bench","version":"0.1"}},"io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
                );
                let headers = [
                    ("mcp-protocol-version", Era::Modern.version()),
                    ("mcp-method", "resources/read"),
                    ("mcp-name", READ_URI),
                ];
                let reply = conn.send(Method::POST, Some(body), &headers).await?;
                check(&reply, id, READ_TEXT)
            }
        }
    }
}

/// The servers of a row, in table order.
const SERVERS: [Server; 3] = [Server::Phantom, Server::Floor, Server::Rmcp];

/// Per-request figures of one server in one scenario.
#[derive(Debug, Clone, Copy)]
pub(super) struct PerRequest {
    pub(super) k_instructions: f64,
    pub(super) allocations: f64,
}

impl PerRequest {
    #[allow(clippy::cast_precision_loss)]
    fn new(c: Counts, requests: usize) -> Self {
        let n = requests as f64;
        Self {
            k_instructions: c.instructions as f64 / n / 1000.0,
            allocations: c.mallocs as f64 / n,
        }
    }
}

/// One row: phantom, the floor, rmcp (an error message where a server could not serve it).
pub(super) type Row = (Scenario, [Result<PerRequest, String>; 3]);

/// `phantom-bench instructions …`: measures, prints the table, writes it with `--write`.
pub(crate) fn main(o: &Options) -> Result<(), String> {
    if !callgrind::available() {
        return Err("valgrind is not installed (Debian: `apt-get install valgrind`)".into());
    }
    let env = Env::detect()?;
    let rows = run(&env, o)?;
    print!("{}", table(&rows));
    if o.write {
        let path = crate::bench_dir().join("RESULTS.md");
        let doc = std::fs::read_to_string(&path).unwrap_or_default();
        let section = section(&rows, o);
        std::fs::write(&path, splice(&doc, &section)).map_err(|e| format!("RESULTS.md: {e}"))?;
        println!("wrote the instructions section of bench/RESULTS.md");
    }
    Ok(())
}

/// The brief run of `smoke`; skipped, with a message, when valgrind is missing.
pub(crate) fn smoke(env: &Env) -> Result<(), String> {
    if !callgrind::available() {
        println!(
            "instructions: skipped, valgrind is not installed (Debian: `apt-get install valgrind`)"
        );
        return Ok(());
    }
    let rows = run(env, &Options::SMOKE)?;
    print!("{}", table(&rows));
    Ok(())
}

fn run(env: &Env, o: &Options) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for scenario in Scenario::ALL {
        if o.only
            .as_ref()
            .is_some_and(|k| !k.iter().any(|k| k == scenario.key()))
        {
            continue;
        }
        let cells = SERVERS.map(|server| {
            if o.servers
                .as_ref()
                .is_some_and(|k| !k.iter().any(|k| k == server_key(server)))
            {
                return Err(NOT_RUN.to_owned());
            }
            let figures = measure(env, server, scenario, o).map(|c| PerRequest::new(c, o.requests));
            match &figures {
                Ok(f) => println!(
                    "instructions {:<12} {:<13} {:>8.2} k instr/req {:>6.1} malloc/req",
                    scenario.key(),
                    server_name(server),
                    f.k_instructions,
                    f.allocations
                ),
                Err(e) => println!(
                    "instructions {:<12} {:<13} failed: {e}",
                    scenario.key(),
                    server_name(server)
                ),
            }
            figures
        });
        // The peer may lack a scenario (the table says so); phantom and the floor may not.
        for (server, cell) in SERVERS.iter().zip(&cells) {
            if let (Server::Phantom | Server::Floor, Err(e)) = (server, cell)
                && e != NOT_RUN
            {
                return Err(format!(
                    "{} / {}: {e}",
                    scenario.key(),
                    server_name(*server)
                ));
            }
        }
        rows.push((scenario, cells));
    }
    Ok(rows)
}

/// The error of a cell whose server `--servers` left out.
pub(super) const NOT_RUN: &str = "not run";

fn server_key(server: Server) -> &'static str {
    match server {
        Server::Phantom => "phantom",
        Server::Floor => "floor",
        Server::Rmcp => "rmcp",
        Server::Soak => "soak",
        Server::Lambda => "lambda",
    }
}

fn server_name(server: Server) -> &'static str {
    match server {
        Server::Phantom => "phantom-echo",
        Server::Floor => "hyper-floor",
        Server::Rmcp => "rmcp-echo",
        Server::Soak => "phantom-soak",
        Server::Lambda => "phantom-lambda-echo",
    }
}

/// Time for the server to finish the work of the last answers (dropping their state, polling
/// the connections again) before the counters are zeroed or dumped.
const SETTLE: Duration = Duration::from_millis(300);

/// One server under callgrind, one scenario: warm-up, zero, `o.requests` requests, dump.
fn measure(env: &Env, server: Server, scenario: Scenario, o: &Options) -> Result<Counts, String> {
    let addr = format!("127.0.0.1:{}", crate::runner::free_port()?);
    let mut vars = vec![("ADDR", addr.as_str())];
    if server == Server::Rmcp {
        vars.extend_from_slice(scenario.rmcp_env());
    }
    if server == Server::Phantom && scenario == Scenario::MountedCall {
        vars.push(("MOUNT", "1"));
    }
    let pin = env.pinned.then_some("0");
    let mut profiled = Profiled::start(pin, &env.binary(server), &vars, env.log())?;
    crate::runner::wait_accepting(profiled.child(), &addr, env.log(), Duration::from_secs(120))?;
    let target = Arc::new(Target::parse(&format!("http://{addr}/mcp"))?);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        let stats = Arc::new(Stats::default());
        let session = match scenario {
            Scenario::LegacyCall => {
                let mut conn = Conn::open(Arc::clone(&target)).await?;
                Some(conn.open_session(&stats).await?)
            }
            Scenario::ModernCall | Scenario::ModernRead | Scenario::MountedCall => None,
        };
        let mut conns = Vec::with_capacity(o.conns);
        for _ in 0..o.conns {
            conns.push(Conn::open(Arc::clone(&target)).await?);
        }
        let conns = phase(conns, &stats, scenario, session.as_ref(), o.warmup).await?;
        tokio::time::sleep(SETTLE).await;
        profiled.zero()?;
        let conns = phase(conns, &stats, scenario, session.as_ref(), o.requests).await?;
        tokio::time::sleep(SETTLE).await;
        let keep = o
            .keep
            .as_ref()
            .map(|dir| dir.join(format!("{}.{}.out", scenario.key(), server_name(server))));
        let counts = profiled.dump(keep.as_deref())?;
        drop(conns);
        Ok(counts)
    })
}

/// Sends exactly `n` requests over `conns`, each connection taking the next one as soon as its
/// answer is checked; gives the connections back. The first failure ends the phase.
async fn phase(
    conns: Vec<Conn>,
    stats: &Arc<Stats>,
    scenario: Scenario,
    session: Option<&HeaderValue>,
    n: usize,
) -> Result<Vec<Conn>, String> {
    let left = Arc::new(AtomicUsize::new(n));
    let tasks: Vec<_> = conns
        .into_iter()
        .map(|mut conn| {
            let (left, stats, session) = (Arc::clone(&left), Arc::clone(stats), session.cloned());
            tokio::spawn(async move {
                while left
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |k| k.checked_sub(1))
                    .is_ok()
                {
                    scenario
                        .request(&mut conn, &stats, session.as_ref())
                        .await?;
                }
                Ok::<_, String>(conn)
            })
        })
        .collect();
    let mut back = Vec::with_capacity(tasks.len());
    for task in tasks {
        back.push(task.await.map_err(|e| e.to_string())??);
    }
    Ok(back)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_count_requests() {
        let args = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let o = Options::parse(&args("--requests 500 --only modern-call --write")).unwrap();
        assert_eq!((o.requests, o.write), (500, true));
        assert!(Options::parse(&args("--only nothing")).is_err());
        assert!(Options::parse(&args("--requests 0")).is_err());
    }
}
