//! `notes`: a notes server that is an OAuth 2.1 resource server. Bearer tokens are JWTs, verified
//! against the authorization server's JWKS (signature, audience, issuer, expiry), and each tool
//! names the scopes it needs.
//!
//! ```text
//! cargo run -p phantom-examples --bin notes                                  # http://127.0.0.1:4002/mcp
//! cargo run -p phantom-examples --bin notes -- --mint ada "notes:read notes:write"   # a development token
//! cargo run -p phantom-examples --bin notes -- --issuer http://127.0.0.1:9000    # a real authorization server
//! ```
//!
//! | tool | scopes |
//! |---|---|
//! | `whoami` | none: any valid token |
//! | `list_notes` | `notes:read` |
//! | `add_note` | `notes:write` |
//! | `delete_note` | `notes:write`; another author's note also `notes:admin`, decided by the handler |
//!
//! It is served by `phantom::http::serve_listener`, which also answers the metadata document's
//! routes (`HttpConfig::protected_resource`). A request without a token gets 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, and
//! the metadata document (RFC 9728) at `/.well-known/oauth-protected-resource/mcp` names the
//! authorization server. A refused token (expired, for another audience, from another issuer,
//! badly signed) gets 401 `error="invalid_token"`; a call that lacks a scope gets 403
//! `error="insufficient_scope"` with the scopes it needs.
//!
//! The keys in `examples/notes/` stand in for an authorization server: `jwks.json` is its public
//! JWKS, and `--mint` signs a token with the matching development key. They are published with the
//! example and protect nothing. With `--issuer URL` the server trusts a real authorization server
//! instead: `JwtVerifier::discover(issuer, audience)` finds its keys from its metadata and follows
//! their rotation, and the metadata document names it (`tests/harness/oauth/` runs it so behind
//! `oidc-provider`, signing in with `cargo phantom login`).

use std::sync::{Arc, Mutex};

use phantom::auth::ProtectedResource;
use phantom::auth::{BearerAuth, JwtVerifier};
use phantom::http::HttpConfig;
use phantom::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

/// The canonical URL of the server: the audience its tokens must name.
pub(crate) const AUDIENCE: &str = "http://127.0.0.1:4002/mcp";
/// The authorization server that issues its tokens.
pub(crate) const ISSUER: &str = "https://auth.notes.example";
/// Where clients read the protected-resource metadata.
pub(crate) const METADATA: &str = "http://127.0.0.1:4002/.well-known/oauth-protected-resource/mcp";
/// The authorization server's public keys.
pub(crate) const JWKS: &str = include_str!("notes/jwks.json");
/// The scopes the tools need.
const SCOPES: [&str; 3] = ["notes:read", "notes:write", "notes:admin"];
/// The development key behind `dev-ed25519` in [`JWKS`], for `--mint`.
const DEV_KEY: &str = include_str!("notes/dev-ed25519.pem");

/// One note.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Note {
    /// Its number.
    id: u64,
    /// The subject of the token that added it.
    author: String,
    /// What it says.
    text: String,
}

/// Who a token says its holder is.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Identity {
    /// The token's subject.
    subject: Option<String>,
    /// The scopes it grants.
    scopes: Vec<String>,
}

/// The server: the notes, shared by every session.
#[derive(Clone, Default)]
pub(crate) struct Notes {
    notes: Arc<Mutex<Vec<Note>>>,
}

#[mcp_router(name = "notes", version = "1.0.0")]
impl Notes {
    /// Who the token says you are, and what it grants.
    #[tool(read_only)]
    async fn whoami(&self, session: &Session) -> Json<Identity> {
        let auth = session.auth.as_deref();
        Json(Identity {
            subject: auth.map(|a| a.subject.clone()),
            scopes: auth.map(|a| a.scopes.clone()).unwrap_or_default(),
        })
    }

    /// Every note.
    #[tool(read_only, scopes = ["notes:read"])]
    async fn list_notes(&self) -> Json<Vec<Note>> {
        Json(self.notes.lock().expect("notes").clone())
    }

    /// Adds a note, written by the token's subject.
    #[tool(scopes = ["notes:write"])]
    async fn add_note(&self, session: &Session, text: String) -> Json<Note> {
        let mut notes = self.notes.lock().expect("notes");
        let note = Note {
            id: notes.last().map_or(1, |n| n.id + 1),
            author: session.principal.as_deref().unwrap_or_default().to_owned(),
            text,
        };
        notes.push(note.clone());
        Json(note)
    }

    /// Deletes a note. Your own needs `notes:write`; another author's also `notes:admin`.
    #[tool(destructive, scopes = ["notes:write"])]
    async fn delete_note(&self, session: &Session, ctx: Ctx, id: u64) -> Result<String, String> {
        let author = {
            let notes = self.notes.lock().expect("notes");
            let note = notes.iter().find(|n| n.id == id);
            note.map(|n| n.author.clone())
                .ok_or_else(|| format!("no note {id}"))?
        };
        let admin = session
            .auth
            .as_ref()
            .is_some_and(|a| a.has_scope("notes:admin"));
        if session.principal.as_deref() != Some(author.as_str()) && !admin {
            return ctx.insufficient_scope(["notes:admin"]).await;
        }
        self.notes.lock().expect("notes").retain(|n| n.id != id);
        Ok(format!("deleted note {id}"))
    }
}

/// The bearer-token check: tokens of [`ISSUER`] for [`AUDIENCE`], signed by a key of [`JWKS`].
pub(crate) fn bearer_auth() -> BearerAuth {
    let verifier = JwtVerifier::from_jwks_json(JWKS, AUDIENCE)
        .expect("the example's JWKS is valid")
        .issuer(ISSUER);
    BearerAuth::new(verifier).resource_metadata(METADATA)
}

/// The metadata document clients discover the authorization server with.
fn metadata() -> ProtectedResource {
    ProtectedResource::new(AUDIENCE, ISSUER).scopes(SCOPES)
}

/// A development token of `subject` granting `scopes` (space-separated), valid for an hour.
fn mint(subject: &str, scopes: &str) -> Result<String, jsonwebtoken::errors::Error> {
    let now = jsonwebtoken::get_current_timestamp();
    let claims = json!({
        "iss": ISSUER, "aud": AUDIENCE, "sub": subject, "scope": scopes,
        "iat": now, "exp": now + 3600,
    });
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::EdDSA);
    header.kid = Some("dev-ed25519".into());
    let key = jsonwebtoken::EncodingKey::from_ed_pem(DEV_KEY.as_bytes())?;
    jsonwebtoken::encode(&header, &claims, &key)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:4002");
    let mut issuer = None;
    let mut leeway = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--mint" => {
                let subject = args.next().ok_or_else(|| usage("--mint needs a subject"))?;
                let scopes = args.next().unwrap_or_default();
                let token = mint(&subject, &scopes).map_err(std::io::Error::other)?;
                println!("{token}");
                return Ok(());
            }
            "--addr" => addr = args.next().ok_or_else(|| usage("--addr needs a value"))?,
            "--issuer" => issuer = Some(args.next().ok_or_else(|| usage("--issuer needs a URL"))?),
            "--leeway" => {
                let seconds = args.next().and_then(|s| s.parse().ok());
                leeway = Some(seconds.ok_or_else(|| usage("--leeway needs seconds"))?);
            }
            other => return Err(usage(&format!("unknown argument `{other}`"))),
        }
    }
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let (config, http_config) = match issuer {
        Some(issuer) => issued_by(&issuer, &addr, leeway).await?,
        None => (config(), http_config()),
    };
    // SIGTERM or SIGINT: readiness turns 503, then the server drains and returns.
    let shutdown = phantom::shutdown_signal();
    let dispatcher = phantom::dispatch::Dispatcher::with_config(Notes::default(), config);
    phantom::http::serve_dispatcher(listener, dispatcher, http_config, shutdown).await
}

/// The settings for tokens of a real authorization server at `issuer` (`--issuer`): its keys
/// found from its metadata and followed when it rotates them, the audience this server's URL
/// at `addr`, expiry checked with `leeway` seconds of clock skew (`--leeway`; 60 by default).
async fn issued_by(
    issuer: &str,
    addr: &str,
    leeway: Option<u64>,
) -> std::io::Result<(phantom::Config, HttpConfig)> {
    let audience = format!("http://{addr}/mcp");
    let mut verifier = JwtVerifier::discover(issuer, audience.as_str())
        .await
        .map_err(std::io::Error::other)?;
    if let Some(seconds) = leeway {
        verifier = verifier.leeway(std::time::Duration::from_secs(seconds));
    }
    let auth = BearerAuth::new(verifier).resource_metadata(format!(
        "http://{addr}/.well-known/oauth-protected-resource/mcp"
    ));
    let metadata = ProtectedResource::new(&audience, issuer).scopes(SCOPES);
    Ok((
        phantom::Config::default().with_bearer_auth(auth),
        HttpConfig::default().with_protected_resource(metadata),
    ))
}

/// The server's settings: bearer tokens checked before `connect`.
pub(crate) fn config() -> phantom::Config {
    phantom::Config::default().with_bearer_auth(bearer_auth())
}

/// The transport settings: the metadata document served beside `/mcp`.
pub(crate) fn http_config() -> HttpConfig {
    HttpConfig::default().with_protected_resource(metadata())
}

fn usage(problem: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "{problem}\nusage: notes [--addr HOST:PORT] [--issuer URL [--leeway SECONDS]] | --mint SUBJECT [\"SCOPE ...\"]"
        ),
    )
}
