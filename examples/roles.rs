//! `roles`: two roles with opaque bearer tokens, the common case. A team handbook that a reader
//! may read and an admin may also edit.
//!
//! ```text
//! cargo run -p phantom-examples --bin roles                                   # http://127.0.0.1:4003/mcp
//! HANDBOOK_TOKEN=reader-token cargo run -p phantom-examples --bin roles -- --stdio
//! ```
//!
//! | token | principal | scopes | `read_page` | `write_page` |
//! |---|---|---|---|---|
//! | `reader-token` | `reader` | `handbook:read` | yes | HTTP 403, `insufficient_scope` |
//! | `admin-token` | `admin` | `handbook:read handbook:write` | yes | yes |
//! | none | — | — | HTTP 401, `WWW-Authenticate: Bearer` | the same |
//! | any other | — | — | HTTP 401, `error="invalid_token"` | the same |
//!
//! # Over HTTP
//!
//! [`BearerAuth`] with a [`StaticTokens`] table checks the `Authorization: Bearer` token of every
//! request before anything else runs: no token or an unknown one is answered 401 (JSON-RPC
//! `-32001`), and a known one makes its subject the session's principal and puts what the table
//! says of it (its scopes) in [`Session::auth`]. Each tool names the scope it needs with
//! `#[tool(scopes = […])]`; a call whose token does not grant it is answered 403 with
//! `WWW-Authenticate: Bearer error="insufficient_scope", scope="handbook:write"` and JSON-RPC
//! `-32001` with `data.requiredScopes`. Both tools are listed for both roles; only the call is
//! refused. (To hide a tool from a role too, narrow the session's allow-lists in `connect`, as
//! `examples/auth.rs` does.)
//!
//! `StaticTokens` keeps digests of the tokens and compares a presented one in constant time. The
//! tokens here are published with the example and protect nothing: a real server loads its own
//! from its secret store, or verifies JWTs instead (`examples/notes.rs`).
//!
//! # Over stdio
//!
//! A stdio request has no headers, so `BearerAuth` verifies nothing there: the client that
//! launched the process is its only peer, and it passes the credential in the environment
//! (`HANDBOOK_TOKEN`, read once at startup). `connect`, which runs once per stdio session at
//! `initialize`, verifies that token with the same table and sets the principal and
//! `session.auth` itself, so the tools' scopes apply as over HTTP. Without the variable, or with
//! an unknown token, `initialize` is refused with JSON-RPC `-32001` (stdio has no status codes).

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use phantom::auth::{AuthInfo, BearerAuth, StaticTokens, TokenVerifier};
use phantom::http::HttpConfig;
use phantom::prelude::*;

/// The token a reader presents.
pub(crate) const READER_TOKEN: &str = "reader-token";
/// The token an administrator presents.
pub(crate) const ADMIN_TOKEN: &str = "admin-token";
/// The environment variable a stdio client sets to its token.
pub(crate) const TOKEN_VAR: &str = "HANDBOOK_TOKEN";

/// The known tokens, each with its principal and scopes.
pub(crate) fn tokens() -> StaticTokens {
    StaticTokens::new()
        .token(
            READER_TOKEN,
            AuthInfo::new("reader").scopes(["handbook:read"]),
        )
        .token(
            ADMIN_TOKEN,
            AuthInfo::new("admin").scopes(["handbook:read", "handbook:write"]),
        )
}

/// The settings of both transports: over HTTP, every request's bearer token is verified.
pub(crate) fn config() -> phantom::Config {
    phantom::Config::default().with_bearer_auth(BearerAuth::new(tokens()))
}

/// The server: the handbook's pages by name, and what stdio sessions authenticate with.
#[derive(Clone)]
pub(crate) struct Handbook {
    pages: Arc<RwLock<BTreeMap<String, String>>>,
    tokens: StaticTokens,
    /// The token this process was started with (stdio only).
    stdio_token: Option<String>,
}

impl Handbook {
    /// A handbook with one page; `stdio_token` stands in for the headers stdio requests lack.
    pub(crate) fn new(stdio_token: Option<String>) -> Self {
        let pages = BTreeMap::from([(
            "welcome".to_owned(),
            "Read the handbook before your first on-call.".to_owned(),
        )]);
        Self {
            pages: Arc::new(RwLock::new(pages)),
            tokens: tokens(),
            stdio_token,
        }
    }
}

#[mcp_router(name = "handbook", version = "1.0.0")]
impl Handbook {
    /// The text of a page.
    #[tool(read_only, scopes = ["handbook:read"])]
    async fn read_page(&self, name: String) -> Result<String, String> {
        let pages = self.pages.read().expect("pages lock");
        pages
            .get(&name)
            .cloned()
            .ok_or_else(|| format!("no page `{name}`"))
    }

    /// Writes a page (a new one, or over an old one), signed by the caller.
    #[tool(destructive, scopes = ["handbook:write"])]
    async fn write_page(&self, session: &Session, name: String, text: String) -> String {
        let author = session.principal.as_deref().unwrap_or_default();
        let mut pages = self.pages.write().expect("pages lock");
        pages.insert(name.clone(), format!("{text} ({author})"));
        format!("wrote `{name}`")
    }

    /// Over stdio, verifies the token of the environment as `BearerAuth` verifies a header over
    /// HTTP, and records what it grants. Over HTTP `BearerAuth` has done so already.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        if request.transport != Transport::Stdio {
            return Connect::Ok;
        }
        let Some(token) = self.stdio_token.as_deref() else {
            return Connect::Unauthorized(WwwAuthenticate::bearer());
        };
        match self.tokens.verify(token).await {
            Ok(info) => {
                session.principal = Some(info.subject.as_str().into());
                session.auth = Some(Arc::new(info));
                Connect::Ok
            }
            Err(_) => Connect::Unauthorized(WwwAuthenticate::bearer().error("invalid_token")),
        }
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // `serve_listener` says where it listens through `tracing` (INFO); stdout belongs to stdio.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:4003");
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => {
                let token = std::env::var(TOKEN_VAR).ok();
                return phantom::stdio::run_with_config(Handbook::new(token), config()).await;
            }
            "--addr" => addr = args.next().ok_or_else(|| usage("--addr needs a value"))?,
            other => return Err(usage(&format!("unknown argument `{other}`"))),
        }
    }
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let http = HttpConfig::for_addr(listener.local_addr()?);
    // SIGTERM or SIGINT: readiness turns 503, then the server drains and returns.
    let shutdown = phantom::shutdown_signal();
    let dispatcher = phantom::dispatch::Dispatcher::with_config(Handbook::new(None), config());
    phantom::http::serve_dispatcher(listener, dispatcher, http, shutdown).await
}

fn usage(problem: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("{problem}\nusage: roles [--addr HOST:PORT | --stdio]"),
    )
}
