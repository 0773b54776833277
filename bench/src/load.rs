//! The load driver: raw hyper 1 HTTP/1.1 keep-alive connections, one per virtual user, on a
//! current-thread tokio runtime.
//!
//! Every request gets a unique JSON-RPC id, every response is checked (status, then the JSON-RPC
//! message — found in the SSE `data:` lines or in the JSON body — must answer that id, and a call
//! must carry `"text":"hello"`), and every latency is kept in µs so percentiles come from the
//! sorted samples. A mode is one variant of [`Scenario`] and one `async fn` below; a new mode
//! (notification fan-out, a cluster of servers) adds both.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::value::RawValue;
use tokio::net::TcpStream;

/// The protocol version of legacy (session) requests.
pub(crate) const LEGACY: &str = "2025-11-25";
/// The bytes a successful echo reply must contain.
const HELLO: &[u8] = br#""text":"hello""#;
/// How many bad responses are printed to stderr.
const SHOW_ERRORS: u64 = 3;

/// Where the server listens.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    addr: SocketAddr,
    host: HeaderValue,
    path: String,
}

impl Target {
    /// Parses `http://host:port/path`; the host must be an IP address.
    pub(crate) fn parse(url: &str) -> Result<Self, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("expected `http://host:port/path`, found `{url}`"))?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let addr = authority
            .parse()
            .map_err(|e| format!("bad address `{authority}` in `{url}`: {e}"))?;
        let host = HeaderValue::from_str(authority).map_err(|e| e.to_string())?;
        let path = if path.is_empty() { "/" } else { path }.to_owned();
        Ok(Self { addr, host, path })
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub(crate) fn host(&self) -> HeaderValue {
        self.host.clone()
    }

    pub(crate) fn path(&self) -> &str {
        &self.path
    }
}

/// How `call` uses legacy sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sessions {
    /// One session opened up front and used by every connection.
    Shared,
    /// One session per connection.
    PerConn,
    /// No session header (stateless serving).
    None,
}

/// The protocol era of `call` requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// `2025-11-25`: plain body, `MCP-Protocol-Version` header.
    Legacy,
    /// `2026-07-28`: `_meta` envelope in the body, `Mcp-Method` / `Mcp-Name` headers.
    Modern,
}

impl Era {
    pub(crate) fn version(self) -> &'static str {
        match self {
            Self::Legacy => LEGACY,
            Self::Modern => "2026-07-28",
        }
    }
}

/// One run of the driver.
#[derive(Debug, Clone)]
pub(crate) enum Scenario {
    /// `tools/call echo {"text":"hello"}` in a loop on every connection.
    Call {
        /// Connections (virtual users).
        conns: usize,
        /// Duration.
        secs: f64,
        /// Session use.
        sessions: Sessions,
        /// Protocol era.
        era: Era,
    },
    /// initialize + initialized + call (+ DELETE) in a loop on every connection.
    Lifecycle {
        /// Connections (virtual users).
        conns: usize,
        /// Duration.
        secs: f64,
        /// Whether each cycle ends with `DELETE`.
        delete: bool,
    },
    /// `tools/call progress {"count": n}` with a progress token, on one shared legacy session:
    /// each reply is an SSE stream of `n` notifications and the result.
    Progress {
        /// Connections (virtual users).
        conns: usize,
        /// Duration.
        secs: f64,
        /// Notifications per call.
        count: usize,
    },
    /// Open `count` sessions over `conns` connections and never close them.
    Sessions {
        /// Connections (virtual users).
        conns: usize,
        /// Sessions to open in all.
        count: usize,
    },
    /// Create `count` tasks (2026-07-28 `tools/call job` declaring the tasks extension) over
    /// `conns` connections; they stay stored for their TTL.
    Tasks {
        /// Connections (virtual users).
        conns: usize,
        /// Tasks to create in all.
        count: usize,
    },
    /// One resource update to `streams` open streams, `rounds` times (`fanout.rs`).
    Fanout {
        /// Open streams.
        streams: usize,
        /// Updates announced, one at a time.
        rounds: usize,
        /// Legacy GET streams of subscribed sessions, or 2026-07-28 listens.
        era: Era,
        /// A connection per stream, or HTTP/2 connections shared by many streams.
        wire: crate::fanout::Wire,
    },
}

const USAGE: &str = "usage:
  phantom-bench load call      <url> <conns> <secs> <shared|perconn|none> <2025-11-25|2026-07-28>
  phantom-bench load lifecycle <url> <conns> <secs> [delete]
  phantom-bench load sessions  <url> <conns> <count>
  phantom-bench load tasks     <url> <conns> <count>
  phantom-bench load progress  <url> <conns> <secs> <notifications per call>
  phantom-bench load fanout    <url> <streams> <rounds> <2025-11-25|2026-07-28> [h2:<streams per connection>]";

impl Scenario {
    /// Parses `<mode> <url> <args…>`.
    pub(crate) fn parse(args: &[String]) -> Result<(Target, Self), String> {
        let arg = |i: usize| args.get(i).map(String::as_str).ok_or(USAGE);
        let num = |i: usize| -> Result<usize, String> {
            let a = arg(i)?;
            a.parse()
                .map_err(|_| format!("expected a count, found `{a}`\n{USAGE}"))
        };
        let secs = |i: usize| -> Result<f64, String> {
            let a = arg(i)?;
            a.parse()
                .map_err(|_| format!("expected seconds, found `{a}`\n{USAGE}"))
        };
        let era = |i: usize| -> Result<Era, String> {
            match arg(i)? {
                "2025-11-25" => Ok(Era::Legacy),
                "2026-07-28" => Ok(Era::Modern),
                other => Err(format!("unknown protocol version `{other}`\n{USAGE}")),
            }
        };
        let target = Target::parse(arg(1)?)?;
        let scenario = match arg(0)? {
            "call" => Self::Call {
                conns: num(2)?,
                secs: secs(3)?,
                sessions: match arg(4)? {
                    "shared" => Sessions::Shared,
                    "perconn" => Sessions::PerConn,
                    "none" => Sessions::None,
                    other => return Err(format!("unknown session mode `{other}`\n{USAGE}")),
                },
                era: era(5)?,
            },
            "lifecycle" => Self::Lifecycle {
                conns: num(2)?,
                secs: secs(3)?,
                delete: match args.get(4).map(String::as_str) {
                    None => false,
                    Some("delete") => true,
                    Some(other) => return Err(format!("unexpected `{other}`\n{USAGE}")),
                },
            },
            "sessions" => Self::Sessions {
                conns: num(2)?,
                count: num(3)?,
            },
            "tasks" => Self::Tasks {
                conns: num(2)?,
                count: num(3)?,
            },
            "progress" => Self::Progress {
                conns: num(2)?,
                secs: secs(3)?,
                count: num(4)?,
            },
            "fanout" => Self::Fanout {
                streams: num(2)?,
                rounds: num(3)?,
                era: era(4)?,
                wire: match args.get(5).map(String::as_str) {
                    None => crate::fanout::Wire::H1,
                    Some(h2) => crate::fanout::Wire::H2 {
                        per_conn: h2
                            .strip_prefix("h2:")
                            .and_then(|n| n.parse().ok())
                            .filter(|&n| n > 0)
                            .ok_or_else(|| {
                                format!(
                                    "expected `h2:<streams per connection>`, found `{h2}`\n{USAGE}"
                                )
                            })?,
                    },
                },
            },
            other => return Err(format!("unknown mode `{other}`\n{USAGE}")),
        };
        if scenario.conns() == 0 {
            return Err("<conns> must be at least 1".into());
        }
        Ok((target, scenario))
    }

    fn conns(&self) -> usize {
        match *self {
            Self::Call { conns, .. }
            | Self::Lifecycle { conns, .. }
            | Self::Progress { conns, .. }
            | Self::Sessions { conns, .. }
            | Self::Tasks { conns, .. } => conns,
            Self::Fanout { streams, .. } => streams,
        }
    }

    /// The label of the `RESULT` line.
    pub(crate) fn label(&self) -> String {
        match self {
            Self::Call {
                conns,
                sessions,
                era,
                ..
            } => {
                let s = match sessions {
                    Sessions::Shared => "shared",
                    Sessions::PerConn => "perconn",
                    Sessions::None => "none",
                };
                format!("call-{s}-{}-c{conns}", era.version())
            }
            Self::Lifecycle { conns, delete, .. } => {
                format!("lifecycle{}-c{conns}", if *delete { "-delete" } else { "" })
            }
            Self::Sessions { conns, count } => format!("sessions-{count}-c{conns}"),
            Self::Tasks { conns, count } => format!("tasks-{count}-c{conns}"),
            Self::Progress { conns, count, .. } => format!("progress{count}-c{conns}"),
            Self::Fanout {
                streams, era, wire, ..
            } => match wire {
                crate::fanout::Wire::H1 => format!("fanout-{}-s{streams}", era.version()),
                crate::fanout::Wire::H2 { per_conn } => {
                    format!("fanout-{}-s{streams}-h2x{per_conn}", era.version())
                }
            },
        }
    }

    /// Runs the scenario on a fresh current-thread runtime.
    pub(crate) fn run(&self, target: &Target) -> Result<Report, String> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        rt.block_on(async {
            let target = Arc::new(target.clone());
            let stats = Arc::new(Stats::default());
            let started = Instant::now();
            let mut extra = Vec::new();
            let samples = match *self {
                Self::Call {
                    conns,
                    secs,
                    sessions,
                    era,
                } => call(&target, &stats, conns, secs, sessions, era).await?,
                Self::Lifecycle {
                    conns,
                    secs,
                    delete,
                } => lifecycle(&target, &stats, conns, secs, delete).await?,
                Self::Sessions { conns, count } => {
                    open_many(&target, &stats, conns, count, Kept::Session).await?
                }
                Self::Progress { conns, secs, count } => {
                    progress(&target, &stats, conns, secs, count).await?
                }
                Self::Tasks { conns, count } => {
                    open_many(&target, &stats, conns, count, Kept::Task).await?
                }
                Self::Fanout {
                    streams,
                    rounds,
                    era,
                    wire,
                } => {
                    let m =
                        crate::fanout::fanout(&target, &stats, streams, rounds, era, wire).await?;
                    #[allow(clippy::cast_precision_loss)]
                    extra.extend([
                        ("streams", streams as f64),
                        ("deliveries", m.deliveries as f64),
                        ("kb_per_stream", m.kb_per_stream),
                        ("cpu_us_per_delivery", m.cpu_us_per_delivery),
                    ]);
                    m.samples
                }
            };
            let mut report = Report::new(
                self.label(),
                stats.errors.load(Ordering::Relaxed),
                started.elapsed(),
                samples,
            );
            report.extra = extra;
            Ok(report)
        })
    }
}

/// The outcome of a run: successes, errors and sorted latencies.
#[derive(Debug)]
pub(crate) struct Report {
    label: String,
    errors: u64,
    elapsed: Duration,
    /// Latencies of successful operations in µs, sorted.
    sorted_us: Vec<u64>,
    /// Further `key=value` fields of the `RESULT` line.
    extra: Vec<(&'static str, f64)>,
}

impl Report {
    fn new(label: String, errors: u64, elapsed: Duration, mut samples: Vec<u64>) -> Self {
        samples.sort_unstable();
        Self {
            label,
            errors,
            elapsed,
            sorted_us: samples,
            extra: Vec::new(),
        }
    }

    /// The `p`-th percentile (0–100) in ms, nearest rank.
    fn percentile_ms(&self, p: f64) -> f64 {
        if self.sorted_us.is_empty() {
            return 0.0;
        }
        let n = self.sorted_us.len();
        // Nearest rank: the smallest sample with at least p% of samples at or below it.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        // The epsilon keeps e.g. 99.9% of 1000 (999.0000000000001 in f64) at rank 999.
        let rank = ((p / 100.0 * n as f64 - 1e-9).ceil() as usize).clamp(1, n);
        self.sorted_us[rank - 1] as f64 / 1000.0
    }
}

impl fmt::Display for Report {
    #[allow(clippy::cast_precision_loss)]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ok = self.sorted_us.len();
        let secs = self.elapsed.as_secs_f64();
        let mean = if ok == 0 {
            0.0
        } else {
            self.sorted_us.iter().sum::<u64>() as f64 / ok as f64 / 1000.0
        };
        write!(
            f,
            "RESULT mode={} ok={ok} errors={} secs={secs:.3} rps={:.1} mean_ms={mean:.3} \
             p50_ms={:.3} p90_ms={:.3} p99_ms={:.3} p999_ms={:.3} max_ms={:.3}",
            self.label,
            self.errors,
            ok as f64 / secs,
            self.percentile_ms(50.0),
            self.percentile_ms(90.0),
            self.percentile_ms(99.0),
            self.percentile_ms(99.9),
            self.percentile_ms(100.0),
        )?;
        for (key, value) in &self.extra {
            write!(f, " {key}={value:.3}")?;
        }
        Ok(())
    }
}

/// Counters shared by the virtual users.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    next_id: AtomicU64,
    errors: AtomicU64,
}

impl Stats {
    pub(crate) fn id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Counts a failure and prints the first few.
    fn fail(&self, what: &str) {
        if self.errors.fetch_add(1, Ordering::Relaxed) < SHOW_ERRORS {
            eprintln!("bad response: {what}");
        }
    }
}

/// One keep-alive connection.
pub(crate) struct Conn {
    target: Arc<Target>,
    sender: SendRequest<Full<Bytes>>,
}

/// A response, read to the end.
pub(crate) struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) session: Option<HeaderValue>,
    pub(crate) sse: bool,
    pub(crate) body: Bytes,
}

impl Conn {
    pub(crate) async fn open(target: Arc<Target>) -> Result<Self, String> {
        let tcp = TcpStream::connect(target.addr)
            .await
            .map_err(|e| format!("connect {}: {e}", target.addr))?;
        tcp.set_nodelay(true).map_err(|e| e.to_string())?;
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .map_err(|e| format!("handshake: {e}"))?;
        tokio::spawn(async move {
            // Ends when the server closes the connection or the sender is dropped.
            let _ = conn.await;
        });
        Ok(Self { target, sender })
    }

    /// Sends one request; reconnects once if the connection has died.
    pub(crate) async fn send(
        &mut self,
        method: Method,
        body: Option<String>,
        headers: &[(&'static str, &str)],
    ) -> Result<Reply, String> {
        if self.sender.is_closed() {
            *self = Self::open(Arc::clone(&self.target)).await?;
        }
        let mut req = Request::builder()
            .method(method)
            .uri(self.target.path.as_str())
            .header(HOST, self.target.host.clone())
            .header(ACCEPT, "application/json, text/event-stream");
        if body.is_some() {
            req = req.header(CONTENT_TYPE, "application/json");
        }
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let req = req
            .body(Full::new(body.map(Bytes::from).unwrap_or_default()))
            .map_err(|e| e.to_string())?;
        self.sender
            .ready()
            .await
            .map_err(|e| format!("connection: {e}"))?;
        let resp = self
            .sender
            .send_request(req)
            .await
            .map_err(|e| format!("request: {e}"))?;
        let status = resp.status();
        let session = resp.headers().get("mcp-session-id").cloned();
        let sse = resp
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("body: {e}"))?
            .to_bytes();
        Ok(Reply {
            status,
            session,
            sse,
            body,
        })
    }

    /// `initialize` + `notifications/initialized`; returns the session id.
    pub(crate) async fn open_session(&mut self, stats: &Stats) -> Result<HeaderValue, String> {
        let id = stats.id();
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{LEGACY}","capabilities":{{}},"clientInfo":{{"name":"phantom-bench","version":"0.1"}}}}}}"#
        );
        let reply = self.send(Method::POST, Some(body), &[]).await?;
        check(&reply, id, br#""protocolVersion""#)?;
        let session = reply
            .session
            .ok_or("initialize: no `Mcp-Session-Id` header")?;
        let sid = session.to_str().map_err(|e| e.to_string())?;
        let reply = self
            .send(
                Method::POST,
                Some(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into()),
                &[("mcp-session-id", sid), ("mcp-protocol-version", LEGACY)],
            )
            .await?;
        if reply.status != StatusCode::ACCEPTED {
            return Err(format!(
                "notifications/initialized: expected 202, found {}",
                reply.status
            ));
        }
        Ok(session)
    }

    /// `resources/subscribe` of `uri` in `session`, checked.
    pub(crate) async fn subscribe(
        &mut self,
        stats: &Stats,
        session: &str,
        uri: &str,
    ) -> Result<(), String> {
        let id = stats.id();
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/subscribe","params":{{"uri":"{uri}"}}}}"#
        );
        let headers = [
            ("mcp-session-id", session),
            ("mcp-protocol-version", LEGACY),
        ];
        let reply = self.send(Method::POST, Some(body), &headers).await?;
        check(&reply, id, b"{}")
    }

    /// `tools/call touch {"uri": uri}` (a stateless 2026-07-28 request): the server announces
    /// that `uri` was updated.
    pub(crate) async fn touch(&mut self, stats: &Stats, uri: &str) -> Result<(), String> {
        let id = stats.id();
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"touch","arguments":{{"uri":"{uri}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        );
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "touch"),
        ];
        let reply = self.send(Method::POST, Some(body), &headers).await?;
        check(&reply, id, b"touched")
    }

    /// One `tools/call echo {"text":"hello"}`, checked.
    pub(crate) async fn call(
        &mut self,
        stats: &Stats,
        session: Option<&HeaderValue>,
        era: Era,
    ) -> Result<(), String> {
        let id = stats.id();
        let mut headers = vec![("mcp-protocol-version", era.version())];
        let sid;
        if let Some(s) = session {
            sid = s.to_str().map_err(|e| e.to_string())?.to_owned();
            headers.push(("mcp-session-id", sid.as_str()));
        }
        let body = match era {
            Era::Legacy => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello"}}}}}}"#
            ),
            Era::Modern => {
                headers.push(("mcp-method", "tools/call"));
                headers.push(("mcp-name", "echo"));
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"phantom-bench","version":"0.1"}},"io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
                )
            }
        };
        let reply = self.send(Method::POST, Some(body), &headers).await?;
        check(&reply, id, HELLO)
    }

    /// One 2026-07-28 `tools/call job {"text":"hello"}` declaring the tasks extension: checks
    /// that the answer is a `CreateTaskResult`.
    async fn create_task(&mut self, stats: &Stats) -> Result<(), String> {
        let id = stats.id();
        let headers = [
            ("mcp-protocol-version", Era::Modern.version()),
            ("mcp-method", "tools/call"),
            ("mcp-name", "job"),
        ];
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"job","arguments":{{"text":"hello"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"phantom-bench","version":"0.1"}},"io.modelcontextprotocol/clientCapabilities":{{"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}}}}}}}}"#
        );
        let reply = self.send(Method::POST, Some(body), &headers).await?;
        check(&reply, id, br#""resultType":"task""#)
    }

    /// One `tools/call progress {"count": n}` with a progress token: checks the result and that
    /// exactly `n` progress notifications came before it.
    async fn progress(
        &mut self,
        stats: &Stats,
        session: &HeaderValue,
        n: usize,
    ) -> Result<(), String> {
        let id = stats.id();
        let sid = session.to_str().map_err(|e| e.to_string())?;
        let headers = [("mcp-protocol-version", LEGACY), ("mcp-session-id", sid)];
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"progress","arguments":{{"count":{n}}},"_meta":{{"progressToken":{id}}}}}}}"#
        );
        let reply = self.send(Method::POST, Some(body), &headers).await?;
        check(&reply, id, b"done")?;
        let seen = reply
            .body
            .windows(PROGRESS.len())
            .filter(|w| *w == PROGRESS)
            .count();
        if seen == n {
            Ok(())
        } else {
            Err(format!("expected {n} progress notifications, found {seen}"))
        }
    }

    /// `DELETE` of a session: 200, 202 or 204.
    async fn delete(&mut self, session: &HeaderValue) -> Result<(), String> {
        let sid = session.to_str().map_err(|e| e.to_string())?;
        let reply = self
            .send(
                Method::DELETE,
                None,
                &[("mcp-session-id", sid), ("mcp-protocol-version", LEGACY)],
            )
            .await?;
        match reply.status {
            StatusCode::OK | StatusCode::ACCEPTED | StatusCode::NO_CONTENT => Ok(()),
            s => Err(format!("DELETE: expected 200/202/204, found {s}")),
        }
    }
}

/// The JSON-RPC envelope of a reply; only what the check needs.
#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    id: Option<u64>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// Status 200, and a JSON-RPC result for `id` containing `expect` — in the JSON body, or in one of
/// the `data:` lines of an SSE body (priming events and other messages are skipped).
pub(crate) fn check(reply: &Reply, id: u64, expect: &[u8]) -> Result<(), String> {
    let show = || String::from_utf8_lossy(&reply.body).into_owned();
    if reply.status != StatusCode::OK {
        return Err(format!("status {}: {}", reply.status, show()));
    }
    let matches = |msg: &[u8]| -> Result<bool, String> {
        let env: Envelope<'_> =
            serde_json::from_slice(msg).map_err(|e| format!("bad JSON ({e}): {}", show()))?;
        if env.id != Some(id) {
            return Ok(false);
        }
        match (env.result, env.error) {
            (Some(result), None) if contains(result.get().as_bytes(), expect) => Ok(true),
            _ => Err(format!("unexpected reply to id {id}: {}", show())),
        }
    };
    let found = if reply.sse {
        let mut found = false;
        for line in reply.body.split(|&b| b == b'\n') {
            let Some(data) = line.strip_prefix(b"data:") else {
                continue;
            };
            let data = data.trim_ascii();
            if !data.is_empty() && matches(data)? {
                found = true;
                break;
            }
        }
        found
    } else {
        matches(&reply.body)?
    };
    if found {
        Ok(())
    } else {
        Err(format!("no reply to id {id}: {}", show()))
    }
}

/// The method of a progress notification, as it appears in an SSE body.
const PROGRESS: &[u8] = b"notifications/progress";

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn micros(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// Spawns one task per connection and gathers their samples.
async fn each_conn<F, Fut>(conns: usize, task: F) -> Result<Vec<u64>, String>
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = Result<Vec<u64>, String>> + Send + 'static,
{
    let handles: Vec<_> = (0..conns).map(|i| tokio::spawn(task(i))).collect();
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.await.map_err(|e| e.to_string())??);
    }
    Ok(all)
}

async fn call(
    target: &Arc<Target>,
    stats: &Arc<Stats>,
    conns: usize,
    secs: f64,
    sessions: Sessions,
    era: Era,
) -> Result<Vec<u64>, String> {
    let shared = if sessions == Sessions::Shared {
        let mut conn = Conn::open(Arc::clone(target)).await?;
        Some(conn.open_session(stats).await?)
    } else {
        None
    };
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    each_conn(conns, |_| {
        let (target, stats, shared) = (Arc::clone(target), Arc::clone(stats), shared.clone());
        async move {
            let mut conn = Conn::open(target).await?;
            let session = match sessions {
                Sessions::Shared => shared,
                Sessions::PerConn => Some(conn.open_session(&stats).await?),
                Sessions::None => None,
            };
            let mut samples = Vec::with_capacity(1 << 16);
            while Instant::now() < deadline {
                let t = Instant::now();
                match conn.call(&stats, session.as_ref(), era).await {
                    Ok(()) => samples.push(micros(t)),
                    Err(e) => stats.fail(&e),
                }
            }
            Ok(samples)
        }
    })
    .await
}

async fn progress(
    target: &Arc<Target>,
    stats: &Arc<Stats>,
    conns: usize,
    secs: f64,
    count: usize,
) -> Result<Vec<u64>, String> {
    let session = Conn::open(Arc::clone(target))
        .await?
        .open_session(stats)
        .await?;
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    each_conn(conns, |_| {
        let (target, stats, session) = (Arc::clone(target), Arc::clone(stats), session.clone());
        async move {
            let mut conn = Conn::open(target).await?;
            let mut samples = Vec::with_capacity(1 << 12);
            while Instant::now() < deadline {
                let t = Instant::now();
                match conn.progress(&stats, &session, count).await {
                    Ok(()) => samples.push(micros(t)),
                    Err(e) => stats.fail(&e),
                }
            }
            Ok(samples)
        }
    })
    .await
}

async fn lifecycle(
    target: &Arc<Target>,
    stats: &Arc<Stats>,
    conns: usize,
    secs: f64,
    delete: bool,
) -> Result<Vec<u64>, String> {
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    each_conn(conns, |_| {
        let (target, stats) = (Arc::clone(target), Arc::clone(stats));
        async move {
            let mut conn = Conn::open(target).await?;
            let mut samples = Vec::with_capacity(1 << 14);
            while Instant::now() < deadline {
                let t = Instant::now();
                let cycle = async {
                    let session = conn.open_session(&stats).await?;
                    conn.call(&stats, Some(&session), Era::Legacy).await?;
                    if delete {
                        conn.delete(&session).await?;
                    }
                    Ok::<_, String>(())
                };
                match cycle.await {
                    Ok(()) => samples.push(micros(t)),
                    Err(e) => stats.fail(&e),
                }
            }
            Ok(samples)
        }
    })
    .await
}

/// What [`open_many`] opens and keeps open.
#[derive(Debug, Clone, Copy)]
enum Kept {
    /// A legacy session (`initialize` + `notifications/initialized`).
    Session,
    /// A task (a 2026-07-28 `tools/call` that answers a `CreateTaskResult`).
    Task,
}

/// Opens `count` sessions or tasks over `conns` connections, one after another on each, timing
/// each; they are never closed. Any failure aborts the run: a missing one would skew the RSS
/// per item.
async fn open_many(
    target: &Arc<Target>,
    stats: &Arc<Stats>,
    conns: usize,
    count: usize,
    kept: Kept,
) -> Result<Vec<u64>, String> {
    let per_conn = count / conns;
    each_conn(conns, |_| {
        let (target, stats) = (Arc::clone(target), Arc::clone(stats));
        async move {
            let mut conn = Conn::open(target).await?;
            let mut samples = Vec::with_capacity(per_conn);
            for _ in 0..per_conn {
                let t = Instant::now();
                match kept {
                    Kept::Session => drop(conn.open_session(&stats).await?),
                    Kept::Task => conn.create_task(&stats).await?,
                }
                samples.push(micros(t));
            }
            Ok(samples)
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(sse: bool, body: &str) -> Reply {
        Reply {
            status: StatusCode::OK,
            session: None,
            sse,
            body: Bytes::from(body.to_owned()),
        }
    }

    #[test]
    fn checks_json_and_sse_replies() {
        let json =
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}"#;
        assert_eq!(check(&reply(false, json), 7, HELLO), Ok(()));
        assert!(check(&reply(false, json), 8, HELLO).is_err());
        let sse = format!("data: \nid: 0\nretry: 3000\n\ndata: {json}\nid: 1\n\n");
        assert_eq!(check(&reply(true, &sse), 7, HELLO), Ok(()));
        let err = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"text hello"}}"#;
        assert!(check(&reply(false, err), 7, HELLO).is_err());
    }

    #[test]
    fn percentiles_use_nearest_rank() {
        let r = Report::new(
            "t".into(),
            0,
            Duration::from_secs(1),
            (1..=1000).rev().collect(),
        );
        assert!((r.percentile_ms(50.0) - 0.5).abs() < 1e-9);
        assert!((r.percentile_ms(99.9) - 0.999).abs() < 1e-9);
        assert!((r.percentile_ms(100.0) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn parses_modes() {
        let args = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let (t, s) =
            Scenario::parse(&args("call http://127.0.0.1:1/mcp 32 5 shared 2026-07-28")).unwrap();
        assert_eq!(t.path, "/mcp");
        assert_eq!(s.label(), "call-shared-2026-07-28-c32");
        assert!(
            Scenario::parse(&args("call http://127.0.0.1:1/mcp 32 5 bogus 2026-07-28")).is_err()
        );
        let (_, s) = Scenario::parse(&args("lifecycle http://127.0.0.1:1/mcp 4 1 delete")).unwrap();
        assert_eq!(s.label(), "lifecycle-delete-c4");
    }
}
