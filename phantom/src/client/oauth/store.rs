//! [`TokenStore`]: where a client keeps the tokens it got, per protected resource.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::kernel::{BoxFuture, Locked as _};

/// The tokens the authorization server issued for one protected resource.
///
/// Its `Debug` shows no token.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Tokens {
    /// The access token, sent as `Authorization: Bearer`.
    pub access_token: String,
    /// The refresh token, if the server gave one.
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch, if the server said.
    pub expires_at: Option<u64>,
    /// The scopes granted, space-separated, if the server said.
    pub scope: Option<String>,
}

impl Tokens {
    /// Tokens with this access token and nothing else.
    pub fn new(access_token: impl Into<String>) -> Self {
        Self {
            access_token: access_token.into(),
            refresh_token: None,
            expires_at: None,
            scope: None,
        }
    }
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("access_token", &"<redacted>")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .finish()
    }
}

/// Where a client keeps its tokens, by the protected resource's identifier (its URL), so a
/// client made later, or another process sharing the store, starts with them.
///
/// [`MemoryTokenStore`] is the default. A store must not log what it keeps.
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens kept for `resource`.
    fn load(&self, resource: &str) -> impl Future<Output = Option<Tokens>> + Send;
    /// Keeps `tokens` for `resource`, replacing what was there.
    fn save(&self, resource: &str, tokens: Tokens) -> impl Future<Output = ()> + Send;
}

/// [`TokenStore`], object-safe.
pub(super) trait DynStore: Send + Sync {
    fn load_boxed<'a>(&'a self, resource: &'a str) -> BoxFuture<'a, Option<Tokens>>;
    fn save_boxed<'a>(&'a self, resource: &'a str, tokens: Tokens) -> BoxFuture<'a, ()>;
}

impl<T: TokenStore> DynStore for T {
    fn load_boxed<'a>(&'a self, resource: &'a str) -> BoxFuture<'a, Option<Tokens>> {
        Box::pin(self.load(resource))
    }

    fn save_boxed<'a>(&'a self, resource: &'a str, tokens: Tokens) -> BoxFuture<'a, ()> {
        Box::pin(self.save(resource, tokens))
    }
}

/// Tokens kept in this process's memory (lost when it exits).
#[derive(Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, Tokens>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for MemoryTokenStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryTokenStore")
            .field("resources", &self.tokens.locked().len())
            .finish()
    }
}

impl TokenStore for MemoryTokenStore {
    async fn load(&self, resource: &str) -> Option<Tokens> {
        self.tokens.locked().get(resource).cloned()
    }

    async fn save(&self, resource: &str, tokens: Tokens) {
        self.tokens.locked().insert(resource.to_owned(), tokens);
    }
}
