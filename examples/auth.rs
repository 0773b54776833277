//! `auth`: a bookmarks server that checks a bearer token in `connect` and shows each caller only
//! what its role may use.
//!
//! ```text
//! cargo run -p phantom-examples --bin auth                                    # http://127.0.0.1:4001/mcp
//! BOOKMARKS_TOKEN=admin-token cargo run -p phantom-examples --bin auth -- --stdio
//! ```
//!
//! # Over HTTP
//!
//! Every request carries `Authorization: Bearer <token>`. `connect` runs before phantom serves a
//! request (a 2025-11-25 client's `initialize` and each of its later requests, and every
//! 2026-07-28 request) and maps the token to a [`Role`]:
//!
//! | token | principal | may use |
//! |---|---|---|
//! | `reader-token` | `reader` | the tool `search`, nothing else |
//! | `admin-token` | `admin` | everything |
//! | none | — | nothing: HTTP 401, `WWW-Authenticate: Bearer` |
//! | any other | — | nothing: HTTP 401, `WWW-Authenticate: Bearer error="invalid_token"` |
//!
//! The reader's session starts from [`Session::deny_all`] and allows `search` back, so a tool,
//! prompt or resource added later stays hidden from readers until it is allowed on purpose. What
//! a session may not use is absent from its lists and answers like an unknown name.
//!
//! A real server would verify a signed token (its issuer, audience and expiry) instead of looking
//! it up in a table, and point clients to its authorization server: serve
//! [`ProtectedResource`](phantom::auth::ProtectedResource) metadata with `phantom::http::protected_resource`
//! and put its URL in the challenge with [`WwwAuthenticate::resource_metadata`].
//!
//! # Over stdio
//!
//! A stdio request has no headers ([`Request::headers`] is empty and [`Request::transport`] is
//! [`Transport::Stdio`]): the client that launched this process is the only peer. The credential
//! is then the process's environment, the usual way MCP clients configure a stdio server:
//! `BOOKMARKS_TOKEN` is read once at startup and checked in `connect` like a header would be.
//! Without it, `initialize` is refused with JSON-RPC error `-32001` (stdio has no status codes).
//! `connect` runs once per stdio session, at `initialize`.

use std::sync::{Arc, LazyLock, RwLock};

use phantom::auth::{AuthInfo, StaticTokens, TokenVerifier};
use phantom::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

/// The token a reader presents.
pub(crate) const READER_TOKEN: &str = "reader-token";
/// The token an administrator presents.
pub(crate) const ADMIN_TOKEN: &str = "admin-token";

/// What a token lets its holder do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// May search, nothing else.
    Reader,
    /// May use everything.
    Admin,
}

impl Role {
    /// The role of a token, if the token is known. The tokens are secrets, so they are looked
    /// up in constant time ([`StaticTokens`]): how long the lookup takes tells a guesser nothing
    /// about how close the guess was (`==` on strings stops at the first differing byte).
    async fn of(token: &str) -> Option<Self> {
        static TOKENS: LazyLock<StaticTokens> = LazyLock::new(|| {
            StaticTokens::new()
                .token(READER_TOKEN, AuthInfo::new(Role::Reader.principal()))
                .token(ADMIN_TOKEN, AuthInfo::new(Role::Admin.principal()))
        });
        let info = TOKENS.verify(token).await.ok()?;
        [Self::Reader, Self::Admin]
            .into_iter()
            .find(|role| role.principal() == info.subject)
    }

    /// The principal `connect` records on the session.
    fn principal(self) -> &'static str {
        match self {
            Self::Reader => "reader",
            Self::Admin => "admin",
        }
    }
}

/// One bookmark.
#[derive(Debug, Clone, Serialize, JsonSchema)]
struct Bookmark {
    id: u64,
    url: String,
    title: String,
}

/// The server: a shared list of bookmarks, and the token a stdio client was started with.
#[derive(Clone)]
pub(crate) struct Bookmarks {
    bookmarks: Arc<RwLock<Vec<Bookmark>>>,
    stdio_token: Option<String>,
}

impl Bookmarks {
    /// A server with two bookmarks; `stdio_token` stands in for the headers stdio requests lack.
    pub(crate) fn new(stdio_token: Option<String>) -> Self {
        let seed = [
            (
                1,
                "https://modelcontextprotocol.io",
                "Model Context Protocol",
            ),
            (
                2,
                "https://doc.rust-lang.org/book/",
                "The Rust Programming Language",
            ),
        ];
        let bookmarks = seed
            .into_iter()
            .map(|(id, url, title)| Bookmark {
                id,
                url: url.into(),
                title: title.into(),
            })
            .collect();
        Self {
            bookmarks: Arc::new(RwLock::new(bookmarks)),
            stdio_token,
        }
    }
}

#[mcp_router(name = "bookmarks", version = "1.0.0")]
impl Bookmarks {
    /// Bookmarks whose title contains the query (case-insensitive).
    #[tool(read_only)]
    async fn search(&self, query: String) -> Json<Vec<Bookmark>> {
        let query = query.to_lowercase();
        let bookmarks = self.bookmarks.read().expect("bookmarks lock");
        Json(
            bookmarks
                .iter()
                .filter(|b| b.title.to_lowercase().contains(&query))
                .cloned()
                .collect(),
        )
    }

    /// Add a bookmark; answers with its id.
    #[tool(destructive = false)]
    async fn add(&self, url: String, title: String) -> Result<String, String> {
        if !url.starts_with("https://") {
            return Err(format!("`url` must start with https://, got {url:?}"));
        }
        let mut bookmarks = self.bookmarks.write().expect("bookmarks lock");
        let id = bookmarks.iter().map(|b| b.id).max().unwrap_or(0) + 1;
        bookmarks.push(Bookmark { id, url, title });
        Ok(format!("added bookmark {id}"))
    }

    /// Who the server thinks you are.
    #[tool(read_only)]
    async fn whoami(&self, session: &Session) -> String {
        session.principal.as_deref().unwrap_or_default().to_owned()
    }

    /// One bookmark, as JSON.
    #[resource("bookmarks:///bookmarks/<id>", mime_type = "application/json")]
    async fn bookmark(&self, id: u64) -> Option<Json<Bookmark>> {
        let bookmarks = self.bookmarks.read().expect("bookmarks lock");
        bookmarks.iter().find(|b| b.id == id).cloned().map(Json)
    }

    /// Ask for a summary of a bookmarked page.
    #[prompt]
    async fn summarize(&self, id: String) -> Result<String, Error> {
        let bookmarks = self.bookmarks.read().expect("bookmarks lock");
        let bookmark = bookmarks
            .iter()
            .find(|b| b.id.to_string() == id)
            .ok_or_else(|| Error::invalid_params(format!("no bookmark {id}")))?;
        Ok(format!("Summarize {} ({}).", bookmark.title, bookmark.url))
    }

    /// Checks the token (a header over HTTP, `BOOKMARKS_TOKEN` over stdio), records who it
    /// belongs to and narrows the session to what that role may use.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        let token = match request.transport {
            Transport::Stdio => self.stdio_token.as_deref(),
            _ => request.bearer(),
        };
        let Some(token) = token else {
            // No credentials: a bare challenge (RFC 6750 sends no error code here).
            return Connect::Unauthorized(WwwAuthenticate::bearer());
        };
        let Some(role) = Role::of(token).await else {
            return Connect::Unauthorized(WwwAuthenticate::bearer().error("invalid_token"));
        };
        session.principal = Some(role.principal().into());
        if role == Role::Reader {
            session.deny_all();
            session.allowed_tools = Session::allow(["search"]);
        }
        Connect::Ok
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // `phantom::serve` says where it listens through `tracing` (INFO); stdout belongs to stdio.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:4001");
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => {
                let token = std::env::var("BOOKMARKS_TOKEN").ok();
                return phantom::stdio::run(Bookmarks::new(token)).await;
            }
            "--addr" => addr = args.next().ok_or_else(|| usage("--addr needs a value"))?,
            other => return Err(usage(&format!("unknown argument `{other}`"))),
        }
    }
    phantom::serve(Bookmarks::new(None), addr).await
}

fn usage(problem: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("{problem}\nusage: auth [--addr HOST:PORT | --stdio]"),
    )
}
