//! `gateway`: puts existing MCP servers online behind one authenticated Streamable HTTP endpoint
//! — a stdio server (any command) or another HTTP server, each optionally under a prefix.
//!
//! ```text
//! cargo run -p phantom-examples --bin gateway -- --upstream-cmd "npx -y @modelcontextprotocol/server-everything"
//! cargo run -p phantom-examples --bin gateway -- --addr 127.0.0.1:4010 \
//!     --upstream http://127.0.0.1:4000/mcp \
//!     --upstream-cmd "python3 server.py" --prefix py \
//!     --tokens tokens.json
//! ```
//!
//! `--upstream URL` (Streamable HTTP) and `--upstream-cmd "COMMAND ARGS…"` (stdio; split on
//! spaces) may each be given several times; `--prefix NAME` applies to the upstream before it
//! (its tools and prompts become `NAME_<name>`, its URIs `<scheme>://NAME/<path>` or `<scheme>://NAME.<host>/<path>`).
//!
//! An HTTP upstream behind OAuth: sign the gateway in once with `cargo phantom login URL
//! --token-file FILE`, then give `--upstream-tokens FILE` after its `--upstream URL`. The gateway
//! sends that upstream its own tokens from the file and refreshes them there, never the token of
//! the client calling the gateway:
//!
//! ```text
//! cargo phantom login https://mcp.example.com/mcp --token-file gateway-tokens.json
//! cargo run -p phantom-examples --bin gateway -- \
//!     --upstream https://mcp.example.com/mcp --upstream-tokens gateway-tokens.json --prefix ex
//! ```
//!
//! Without `--tokens` the gateway is open and listens on loopback only. With it, every request
//! needs `Authorization: Bearer <token>`, checked as `examples/roles.rs` checks it, and each tool
//! needs the scopes the file names for it:
//!
//! ```json
//! {
//!   "tokens": {
//!     "reader-token": {"principal": "reader", "scopes": ["tools:read"]},
//!     "admin-token": {"principal": "admin", "scopes": ["tools:read", "tools:write"]}
//!   },
//!   "tools": {"echo": ["tools:read"], "*": ["tools:write"]}
//! }
//! ```
//!
//! `tools` is keyed by the upstream's tool names; `"*"` is every other tool. A token without a
//! tool's scopes still lists it, and its call is answered `403` with an `insufficient_scope`
//! challenge (JSON-RPC `-32001`).

use std::collections::BTreeMap;
use std::net::SocketAddr;

use phantom::auth::{AuthInfo, BearerAuth, StaticTokens};
use phantom::client::{Authorize, FileTokenStore, OAuth};
use phantom::dispatch::Dispatcher;
use phantom::gateway::Upstream;
use phantom::http::HttpConfig;
use phantom::prelude::*;

/// The gateway's own router: everything it serves is mounted.
#[derive(Clone)]
struct Gateway;

#[mcp_router(name = "phantom-gateway", version = "0.1.0")]
impl Gateway {}

#[derive(serde::Deserialize)]
struct Tokens {
    tokens: BTreeMap<String, Holder>,
    #[serde(default)]
    tools: BTreeMap<String, Vec<String>>,
}

#[derive(serde::Deserialize)]
struct Holder {
    principal: String,
    #[serde(default)]
    scopes: Vec<String>,
}

/// The interactive step of an upstream's OAuth: none (the gateway asks no one), but what to run
/// when its tokens cannot be refreshed.
struct SignInAgain {
    upstream: String,
    file: String,
}

impl Authorize for SignInAgain {
    async fn authorize(&self, _url: &str) -> Result<String, String> {
        Err(format!(
            "the gateway's tokens for `{}` cannot be refreshed: run `cargo phantom login {} --token-file {}`",
            self.upstream, self.upstream, self.file
        ))
    }
}

fn usage(problem: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "{problem}\nusage: gateway [--addr HOST:PORT] (--upstream URL [--upstream-tokens FILE] | --upstream-cmd \"COMMAND ARGS…\") [--prefix NAME] … [--tokens FILE]"
        ),
    )
}

fn read_tokens(path: &str) -> std::io::Result<Tokens> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| usage(&format!("cannot read the tokens file `{path}`: {e}")))?;
    serde_json::from_str(&text).map_err(|e| usage(&format!("the tokens file `{path}`: {e}")))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let mut args = std::env::args().skip(1);
    let mut addr: Option<String> = None;
    let mut upstreams: Vec<Upstream> = Vec::new();
    let mut tokens: Option<Tokens> = None;
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| usage(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--addr" => addr = Some(value()?),
            "--upstream" => upstreams.push(Upstream::http(value()?)),
            "--upstream-cmd" => {
                let line = value()?;
                let mut words = line.split_whitespace();
                let program = words
                    .next()
                    .ok_or_else(|| usage("--upstream-cmd is empty"))?;
                upstreams.push(Upstream::stdio(program, words));
            }
            "--prefix" => {
                let prefix = value()?;
                let last = upstreams
                    .pop()
                    .ok_or_else(|| usage("--prefix comes after the --upstream it names"))?;
                upstreams.push(last.prefix(prefix));
            }
            "--upstream-tokens" => {
                let file = value()?;
                let last = upstreams.pop().ok_or_else(|| {
                    usage("--upstream-tokens comes after the --upstream it names")
                })?;
                let upstream = last.label();
                let oauth = OAuth::new("http://127.0.0.1/callback")
                    .token_store(FileTokenStore::new(&file))
                    .authorize(SignInAgain { upstream, file });
                upstreams.push(last.oauth(oauth));
            }
            "--tokens" => tokens = Some(read_tokens(&value()?)?),
            other => return Err(usage(&format!("unknown argument `{other}`"))),
        }
    }
    if upstreams.is_empty() {
        return Err(usage(
            "no upstream: give --upstream URL or --upstream-cmd COMMAND",
        ));
    }
    let addr: SocketAddr = addr
        .as_deref()
        .unwrap_or("127.0.0.1:4010")
        .parse()
        .map_err(|e| usage(&format!("--addr: {e}")))?;
    if tokens.is_none() && !addr.ip().is_loopback() {
        return Err(usage(
            "without --tokens the gateway is open: it listens on a loopback address only",
        ));
    }
    let mut config = phantom::Config::default();
    if let Some(tokens) = &tokens {
        let mut table = StaticTokens::new();
        for (token, holder) in &tokens.tokens {
            let info = AuthInfo::new(holder.principal.as_str()).scopes(holder.scopes.clone());
            table = table.token(token, info);
        }
        config = config.with_bearer_auth(BearerAuth::new(table));
    }
    let dispatcher = Dispatcher::with_config(Gateway, config);
    let registry = dispatcher.registry();
    for mut upstream in upstreams {
        if let Some(tokens) = &tokens {
            for (tool, scopes) in &tokens.tools {
                upstream = upstream.scopes(tool.as_str(), scopes.clone());
            }
        }
        let mounted = upstream
            .mount(&registry)
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        tracing::info!(upstream = mounted.label(), server = %mounted.server_info(), "mounted");
    }
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let http = HttpConfig::for_addr(listener.local_addr()?);
    // SIGTERM or SIGINT: readiness turns 503, then the server drains and returns.
    let shutdown = phantom::shutdown_signal();
    phantom::http::serve_dispatcher(listener, dispatcher, http, shutdown).await
}
