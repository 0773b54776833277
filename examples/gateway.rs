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
//! A server that signs machines in: give `--upstream-client-credentials FILE` after its
//! `--upstream URL`. The gateway gets its own tokens with the client credentials grant
//! (RFC 6749 §4.4) and asks again when they expire. The file (keep it `0600`) holds the client
//! the authorization server registered for the gateway, with a secret (`client_secret_basic`) or
//! a private key (`private_key_jwt`, RFC 7523), optionally the scopes to ask for and DPoP
//! (RFC 9449):
//!
//! ```json
//! {"client_id": "gateway", "client_secret": "…"}
//! {"client_id": "gateway", "private_key_file": "gateway-key.pem", "algorithm": "ES256", "dpop": true}
//! ```
//!
//! Several gateway nodes: `--redis URL` keeps the upstreams' tokens in Redis instead of in
//! memory or the file, so that the nodes share them and one node refreshes (or asks again) for
//! all. With `--upstream-tokens FILE`, the file's tokens are copied into Redis when Redis holds
//! none for that upstream yet.
//!
//! ```text
//! cargo run -p phantom-examples --bin gateway -- --redis redis://127.0.0.1:6379 \
//!     --upstream https://mcp.example.com/mcp --upstream-client-credentials gateway-client.json
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
use phantom::client::{Authorize, FileTokenStore, OAuth, TokenStore};
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

/// How the gateway authenticates to one HTTP upstream.
enum SignIn {
    /// With the tokens `cargo phantom login --token-file FILE` kept in this file.
    Tokens(String),
    /// With the client credentials grant, the client described in this file.
    Machine(String),
}

/// The client of `--upstream-client-credentials`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Machine {
    client_id: String,
    client_secret: Option<String>,
    private_key_file: Option<String>,
    algorithm: Option<String>,
    #[serde(default)]
    dpop: bool,
}

impl Machine {
    fn read(path: &str) -> std::io::Result<OAuth> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            usage(&format!(
                "cannot read the client credentials file `{path}`: {e}"
            ))
        })?;
        let machine: Self = serde_json::from_str(&text)
            .map_err(|e| usage(&format!("the client credentials file `{path}`: {e}")))?;
        let oauth = match (
            &machine.client_secret,
            &machine.private_key_file,
            &machine.algorithm,
        ) {
            (Some(secret), None, None) => OAuth::client_credentials(&machine.client_id, secret),
            (None, Some(key), Some(algorithm)) => {
                let pem = std::fs::read_to_string(key).map_err(|e| {
                    usage(&format!(
                        "the client credentials file `{path}`: cannot read `private_key_file` `{key}`: {e}"
                    ))
                })?;
                OAuth::private_key_jwt(&machine.client_id, &pem, algorithm)
            }
            (None, Some(_), None) => {
                return Err(usage(&format!(
                    "the client credentials file `{path}`: `private_key_file` needs `algorithm` (ES256, RS256, …)"
                )));
            }
            _ => {
                return Err(usage(&format!(
                    "the client credentials file `{path}`: give `client_secret`, or `private_key_file` and `algorithm`, not both"
                )));
            }
        };
        Ok(if machine.dpop { oauth.dpop() } else { oauth })
    }
}

/// `--upstream-tokens FILE` on several nodes: the file's tokens for `resource` copied into
/// `redis` when it holds none yet.
async fn seed(
    redis: &phantom_redis::RedisTokenStore,
    file: &str,
    resource: &str,
) -> std::io::Result<()> {
    let failed = |e: phantom::store::StoreError| {
        std::io::Error::other(format!("the upstream tokens of `{resource}` in Redis: {e}"))
    };
    if redis.load(resource).await.map_err(failed)?.is_none()
        && let Some(tokens) = FileTokenStore::new(file)
            .load(resource)
            .await
            .map_err(|e| usage(&format!("--upstream-tokens `{file}`: {e}")))?
    {
        redis.save(resource, tokens).await.map_err(failed)?;
    }
    Ok(())
}

fn usage(problem: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "{problem}\nusage: gateway [--addr HOST:PORT] (--upstream URL [--upstream-tokens FILE | --upstream-client-credentials FILE] | --upstream-cmd \"COMMAND ARGS…\") [--prefix NAME] … [--tokens FILE] [--redis URL]"
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
    // INFO unless RUST_LOG says otherwise; nothing of a token or secret at any level.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .init();
    let mut args = std::env::args().skip(1);
    let mut addr: Option<String> = None;
    // Each upstream, whether it is an HTTP one, and how the gateway signs in to it.
    let mut upstreams: Vec<(Upstream, bool, Option<SignIn>)> = Vec::new();
    let mut tokens: Option<Tokens> = None;
    let mut redis: Option<String> = None;
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| usage(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--addr" => addr = Some(value()?),
            "--upstream" => upstreams.push((Upstream::http(value()?), true, None)),
            "--upstream-cmd" => {
                let line = value()?;
                let mut words = line.split_whitespace();
                let program = words
                    .next()
                    .ok_or_else(|| usage("--upstream-cmd is empty"))?;
                upstreams.push((Upstream::stdio(program, words), false, None));
            }
            "--prefix" => {
                let prefix = value()?;
                let (last, http, sign_in) = upstreams
                    .pop()
                    .ok_or_else(|| usage("--prefix comes after the --upstream it names"))?;
                upstreams.push((last.prefix(prefix), http, sign_in));
            }
            "--upstream-tokens" | "--upstream-client-credentials" => {
                let file = value()?;
                let last = match upstreams.last_mut() {
                    Some((_, true, sign_in @ None)) => sign_in,
                    Some((_, _, Some(_))) => {
                        return Err(usage(&format!(
                            "{arg}: the upstream before it has its sign-in already"
                        )));
                    }
                    _ => {
                        return Err(usage(&format!(
                            "{arg} comes after the --upstream URL it names"
                        )));
                    }
                };
                *last = Some(if arg == "--upstream-tokens" {
                    SignIn::Tokens(file)
                } else {
                    SignIn::Machine(file)
                });
            }
            "--tokens" => tokens = Some(read_tokens(&value()?)?),
            "--redis" => redis = Some(value()?),
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
    let redis = match &redis {
        Some(url) => Some(phantom_redis::RedisTokenStore::new(
            phantom_redis::Redis::connect(url)
                .await
                .map_err(|e| usage(&format!("--redis `{url}`: {e}")))?,
        )),
        None => None,
    };
    let dispatcher = Dispatcher::with_config(Gateway, config);
    let registry = dispatcher.registry();
    for (mut upstream, _, sign_in) in upstreams {
        let resource = upstream.label();
        let oauth = match sign_in {
            None => None,
            Some(SignIn::Machine(file)) => Some(Machine::read(&file)?),
            Some(SignIn::Tokens(file)) => {
                let oauth = OAuth::new("http://127.0.0.1/callback").authorize(SignInAgain {
                    upstream: resource.clone(),
                    file: file.clone(),
                });
                Some(match &redis {
                    Some(redis) => {
                        seed(redis, &file, &resource).await?;
                        oauth
                    }
                    None => oauth.token_store(FileTokenStore::new(&file)),
                })
            }
        };
        if let Some(mut oauth) = oauth {
            if let Some(redis) = &redis {
                oauth = oauth.token_store(redis.clone());
            }
            upstream = upstream.oauth(oauth);
        }
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
