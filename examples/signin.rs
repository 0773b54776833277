//! `signin`: a notes server that signs its users in itself. phantom's authorization server
//! (`phantom::authz`, feature `authz`) is mounted beside `/mcp`: MCP clients register with it, and
//! it signs users in through the identity provider the team already has (any OpenID Connect
//! provider by discovery, or the Google and GitHub presets), shows its own consent page, and
//! issues tokens of its own for this server alone; the upstream's tokens never reach the clients.
//!
//! ```text
//! PHANTOM_UPSTREAM=https://accounts.example.com \
//! PHANTOM_UPSTREAM_CLIENT_ID=… PHANTOM_UPSTREAM_CLIENT_SECRET=… \
//!   cargo run -p phantom-examples --bin signin            # http://127.0.0.1:4010/mcp
//! ```
//!
//! Register `<PHANTOM_URL>/callback` as the redirect URI of the client at the identity provider.
//!
//! | variable | meaning |
//! |---|---|
//! | `PHANTOM_UPSTREAM` | the identity provider: an OpenID Connect issuer URL, `google` or `github` |
//! | `PHANTOM_UPSTREAM_CLIENT_ID`, `PHANTOM_UPSTREAM_CLIENT_SECRET` | this app's credentials there |
//! | `PHANTOM_ADDR` | the address to listen on (default `127.0.0.1:4010`) |
//! | `PHANTOM_URL` | the public origin clients reach (default `http://` + `PHANTOM_ADDR`): the issuer, and the resource is `PHANTOM_URL/mcp` |
//! | `PHANTOM_SIGNING_KEY` | `KID:KEY`, the ES256 key every node signs with (32 bytes, base64url); a fresh one per start when absent |
//! | `PHANTOM_REDIS` | a Redis URL: every node behind a load balancer shares registrations, sign-ins in progress, codes, refresh tokens, consents and sessions there |
//!
//! | tool | scopes |
//! |---|---|
//! | `whoami` | `notes:read` |
//! | `list_notes` | `notes:read` |
//! | `add_note` | `notes:write` |
//!
//! Run as several nodes behind a load balancer (`PHANTOM_REDIS`, one `PHANTOM_SIGNING_KEY` and
//! one `PHANTOM_STATE_KEY` for all), each step of a sign-in may land on any node:
//! `tests/harness/authz/` runs it so, behind HAProxy, signing in through `oidc-provider`.

use std::sync::{Arc, Mutex};

use phantom::auth::{BearerAuth, ProtectedResource};
use phantom::authz::{AuthorizationServer, Keyring, MetadataDocuments, SigningKey, Upstream};
use phantom::http::HttpConfig;
use phantom::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

/// The scopes the tools need.
const SCOPES: [&str; 2] = ["notes:read", "notes:write"];

/// One note.
#[derive(Debug, Clone, Serialize, JsonSchema)]
struct Note {
    /// Who wrote it (the signed-in user's subject).
    author: String,
    /// What it says.
    text: String,
}

/// Who signed in, as the token says.
#[derive(Debug, Serialize, JsonSchema)]
struct SignedIn {
    /// The user's subject at the identity provider.
    subject: String,
    /// The MCP client they signed in with.
    client_id: Option<String>,
    /// The scopes they granted it.
    scopes: Vec<String>,
}

/// The server: the notes, shared by every session of this node.
#[derive(Clone, Default)]
struct Notes {
    notes: Arc<Mutex<Vec<Note>>>,
}

#[mcp_router(name = "signin", version = "1.0.0")]
impl Notes {
    /// Who you signed in as, with which client, and what you granted it.
    #[tool(read_only, scopes = ["notes:read"])]
    async fn whoami(&self, session: &Session) -> Json<SignedIn> {
        let auth = session.auth.as_deref();
        Json(SignedIn {
            subject: auth.map(|a| a.subject.clone()).unwrap_or_default(),
            client_id: auth.and_then(|a| a.client_id.clone()),
            scopes: auth.map(|a| a.scopes.clone()).unwrap_or_default(),
        })
    }

    /// Every note.
    #[tool(read_only, scopes = ["notes:read"])]
    async fn list_notes(&self) -> Json<Vec<Note>> {
        Json(self.notes.lock().expect("notes").clone())
    }

    /// Adds a note, written by you.
    #[tool(scopes = ["notes:write"])]
    async fn add_note(&self, session: &Session, text: String) -> Json<Note> {
        let note = Note {
            author: session.principal.as_deref().unwrap_or_default().to_owned(),
            text,
        };
        self.notes.lock().expect("notes").push(note.clone());
        Json(note)
    }
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn needed(name: &str, why: &str) -> std::io::Result<String> {
    var(name).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{name} is not set: {why}"),
        )
    })
}

fn invalid(name: &str, problem: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("{name}: {problem}"),
    )
}

/// The identity provider of `PHANTOM_UPSTREAM`.
fn upstream() -> std::io::Result<Upstream> {
    let which = needed(
        "PHANTOM_UPSTREAM",
        "an OpenID Connect issuer URL, `google` or `github`",
    )?;
    let id = needed(
        "PHANTOM_UPSTREAM_CLIENT_ID",
        "this app's client id at the identity provider",
    )?;
    let secret = needed(
        "PHANTOM_UPSTREAM_CLIENT_SECRET",
        "this app's client secret at the identity provider",
    )?;
    Ok(match which.as_str() {
        "google" => Upstream::google(id, secret),
        "github" => Upstream::github(id, secret),
        issuer => Upstream::oidc(issuer, id, secret),
    })
}

/// The signing key of `PHANTOM_SIGNING_KEY` (`KID:KEY`), or a fresh one.
fn signing_key() -> std::io::Result<SigningKey> {
    let Some(value) = var("PHANTOM_SIGNING_KEY") else {
        tracing::warn!("PHANTOM_SIGNING_KEY is not set: a fresh key, which no other node shares");
        return Ok(SigningKey::generate());
    };
    let (kid, key) = value
        .split_once(':')
        .ok_or_else(|| invalid("PHANTOM_SIGNING_KEY", "write it as KID:KEY"))?;
    SigningKey::from_base64url(kid, key).map_err(|e| invalid("PHANTOM_SIGNING_KEY", e))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let addr = var("PHANTOM_ADDR").unwrap_or_else(|| "127.0.0.1:4010".to_owned());
    let origin = var("PHANTOM_URL").unwrap_or_else(|| format!("http://{addr}"));
    let resource = format!("{origin}/mcp");
    let mut authz = AuthorizationServer::new(&origin, Keyring::new(signing_key()?))
        .resource(&resource)
        .scopes(SCOPES)
        .upstream(upstream()?)
        // Clients may also name themselves by the URL of a metadata document instead of
        // registering: fetched behind the SSRF guards, kept by its caching headers.
        .metadata_documents(MetadataDocuments::new());
    let mut config = phantom::Config::default();
    if let Some(url) = var("PHANTOM_REDIS") {
        let redis = phantom_redis::Redis::connect(&url)
            .await
            .map_err(|e| invalid("PHANTOM_REDIS", e))?;
        authz = authz
            .clients(phantom_redis::RedisClientStore::new(redis.clone()))
            .grants(phantom_redis::RedisGrantStore::new(redis.clone()))
            .refreshes(phantom_redis::RedisRefreshStore::new(redis.clone()))
            .consents(phantom_redis::RedisConsentStore::new(redis.clone()))
            .rates(phantom_redis::RedisRateStore::new(redis.clone()));
        let key = needed(
            "PHANTOM_STATE_KEY",
            "with PHANTOM_REDIS, the key every node seals `requestState` with (32 bytes, base64)",
        )?;
        let key = phantom::input::StateKey::from_base64(&key)
            .map_err(|e| invalid("PHANTOM_STATE_KEY", e))?;
        let backend = redis
            .backend()
            .await
            .map_err(|e| invalid("PHANTOM_REDIS", e))?;
        config = config.with_state_key(key).with_backend(backend);
    }
    // The resource-server side trusts the authorization server's own keys: no configuration.
    let verifier = authz
        .keyring()
        .verifier(authz.metadata().issuer(), &resource);
    let metadata_url = format!("{origin}/.well-known/oauth-protected-resource/mcp");
    let config = config.with_bearer_auth(BearerAuth::new(verifier).resource_metadata(metadata_url));
    let http = HttpConfig::default()
        .with_protected_resource(ProtectedResource::new(&resource, &origin).scopes(SCOPES))
        .with_authorization_server(&authz);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    tracing::info!("signin at {resource}, signing users in through the identity provider");
    // SIGTERM or SIGINT: readiness turns 503, then the server drains and returns.
    let shutdown = phantom::shutdown_signal();
    let dispatcher = phantom::dispatch::Dispatcher::with_config(Notes::default(), config);
    phantom::http::serve_dispatcher(listener, dispatcher, http, shutdown).await
}
