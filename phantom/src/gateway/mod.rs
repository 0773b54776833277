//! A gateway (feature `client`): another MCP server — over Streamable HTTP or stdio, phantom's
//! or anyone's — mounted into this one's registry, its tools, prompts and resources served as
//! this server's own.
//!
//! ```no_run
//! # async fn run() -> Result<(), phantom::gateway::GatewayError> {
//! use phantom::dispatch::Dispatcher;
//! use phantom::gateway::Upstream;
//! use phantom::prelude::*;
//!
//! #[derive(Clone)]
//! struct Front;
//!
//! #[mcp_router(name = "front", version = "1.0.0")]
//! impl Front {}
//!
//! let dispatcher = Dispatcher::new(Front);
//! let registry = dispatcher.registry();
//! // Everything a local stdio server offers, under its own names.
//! Upstream::stdio("npx", ["-y", "@modelcontextprotocol/server-everything"]).mount(&registry).await?;
//! // A second server's tools as `search_<name>`, without its `drop_index` tool.
//! Upstream::http("http://10.0.0.7:4000/mcp")
//!     .prefix("search")
//!     .deny(["drop_index"])
//!     .mount(&registry)
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! **What a remote entry is.** Each remote tool, prompt, resource and template becomes an added
//! entry of this server's tables: listed with the item the remote server listed (its name
//! prefixed, its URI rewritten, its schemas as sent), and served by forwarding the call. So the
//! front's own `connect`, allow-lists, `Mcp-Param-*` header checks and middleware apply to it
//! as to a local one.
//!
//! **Eras.** A 2025-11-25 front session is forwarded on a 2025-11-25 upstream session of its own
//! (HTTP upstreams: one per front session, the least recently opened closed past 1 024); a
//! 2026-07-28 request statelessly on one shared connection (which speaks 2026-07-28 when the
//! upstream offers it). A stdio upstream is one process, one connection shared by every front
//! session. What the upstream asks while it works — elicitation, sampling, roots — is asked of
//! the front's client ([`Forward`](crate::input::Forward)), in either era; its progress and log
//! messages reach the front's client; a front request that is cancelled drops the upstream call,
//! which cancels it there.
//!
//! **Lists.** The remote lists are read once when mounted (every page) and again when the
//! upstream announces `list_changed` (the client's GET stream, `subscriptions/listen`, or stdio):
//! the entries are replaced in one change and the front's clients hear `list_changed`.
//!
//! **Faults.** A call that the upstream does not answer within its [timeout](Upstream::timeout)
//! (30 s) is answered `-32603` naming the upstream; an upstream that cannot be reached, or
//! whose process died, `-32603` with `data.upstream`. The other mounted parts keep working.
//! An upstream JSON-RPC error is passed on as it came (its code, message and data).

mod bounded;
mod entries;
mod relay;
mod remote;

use std::time::Duration;

use crate::client::ClientError;
use crate::registry::{Registry, RegistryError};

pub use remote::Mounted;

/// Where an upstream is and how it is mounted: its connection (HTTP or a command), a prefix,
/// filters, renames and a timeout. [`Upstream::mount`] connects and adds its entries.
#[derive(Debug, Clone)]
#[must_use]
pub struct Upstream {
    pub(crate) target: Target,
    pub(crate) prefix: Option<String>,
    pub(crate) allow: Option<Vec<String>>,
    pub(crate) deny: Vec<String>,
    pub(crate) renames: Vec<(String, String)>,
    pub(crate) timeout: Duration,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) scopes: Vec<(String, Vec<String>)>,
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<crate::client::OAuth>,
}

#[derive(Debug, Clone)]
pub(crate) enum Target {
    Http(String),
    Stdio(String, Vec<String>),
}

impl Upstream {
    fn new(target: Target) -> Self {
        Self {
            target,
            prefix: None,
            allow: None,
            deny: Vec::new(),
            renames: Vec::new(),
            timeout: Duration::from_secs(30),
            headers: Vec::new(),
            scopes: Vec::new(),
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }

    /// The Streamable HTTP server at `url`.
    pub fn http(url: impl Into<String>) -> Self {
        Self::new(Target::Http(url.into()))
    }

    /// The stdio server that `program` with `args` starts (once, when mounted).
    pub fn stdio<I, A>(program: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = A>,
        A: Into<String>,
    {
        Self::new(Target::Stdio(
            program.into(),
            args.into_iter().map(Into::into).collect(),
        ))
    }

    /// Serves its tools and prompts as `<prefix>_<name>`, its resources' names as
    /// `<prefix>_<name>` and their URIs under the prefix: `<scheme>:///<path>` as
    /// `<scheme>://<prefix>/<path>`, `<scheme>://<host>/<path>` as
    /// `<scheme>://<prefix>.<host>/<path>`.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Serves only these of its tools, prompts and resources (by their remote names).
    pub fn allow<I, T>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.allow = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Serves none of these (by their remote names).
    pub fn deny<I, T>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.deny.extend(names.into_iter().map(Into::into));
        self
    }

    /// Serves the remote tool or prompt `remote` as `local` (no prefix is added to it).
    pub fn rename(mut self, remote: impl Into<String>, local: impl Into<String>) -> Self {
        self.renames.push((remote.into(), local.into()));
        self
    }

    /// OAuth scopes a caller's token must grant to use the remote tool, prompt or resource
    /// `name` (by its remote name; `"*"`: every entry without scopes of its own), as
    /// `#[tool(scopes = […])]` says for a local one: a call, `prompts/get`, read, subscription or
    /// completion without them gets `403` with an `insufficient_scope` challenge, and a prompt
    /// or resource is left out of the lists of a session whose token does not grant them.
    pub fn scopes<I, T>(mut self, name: impl Into<String>, scopes: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.scopes
            .push((name.into(), scopes.into_iter().map(Into::into).collect()));
        self
    }

    /// How long one forwarded request may take (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sends a header with every HTTP request to it.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sends `Authorization: Bearer <token>` with every HTTP request to it.
    pub fn bearer(self, token: &str) -> Self {
        self.header("authorization", format!("Bearer {token}"))
    }

    /// Authenticates to it with its own OAuth tokens (feature `oauth`): every connection the
    /// gateway opens to it (one per front session, and the shared one) uses `oauth`, so they
    /// share its [`TokenStore`](crate::client::TokenStore) and refresh once — give the store the
    /// tokens the gateway got for it (`cargo phantom login` with that file, or a
    /// `phantom_redis::RedisTokenStore` shared by the gateway's nodes). The front client's own
    /// token is never sent upstream; a token the upstream refuses is this gateway's `-32603`
    /// naming the upstream, not the upstream's challenge.
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, oauth: crate::client::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// What errors name it by: its URL or its command.
    pub fn label(&self) -> String {
        match &self.target {
            Target::Http(url) => url.clone(),
            Target::Stdio(program, args) => std::iter::once(program.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// Connects, reads its lists and adds its entries to `registry` (the front's clients hear
    /// `list_changed`). The entries stay until [`Mounted::unmount`]; they follow the upstream's
    /// own `list_changed`.
    pub async fn mount<S: 'static>(self, registry: &Registry<S>) -> Result<Mounted, GatewayError> {
        remote::mount(self, registry.clone()).await
    }
}

/// Why an upstream could not be mounted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GatewayError {
    /// It could not be reached, or did not answer as an MCP server.
    #[error("upstream `{upstream}`: {source}")]
    Connect {
        /// Its URL or command.
        upstream: String,
        /// What the client met.
        #[source]
        source: ClientError,
    },
    /// Its entries could not be added (a name taken already, a name MCP refuses, …).
    #[error("upstream `{upstream}`: {source}")]
    Registry {
        /// Its URL or command.
        upstream: String,
        /// What the registry refused.
        #[source]
        source: RegistryError,
    },
}
