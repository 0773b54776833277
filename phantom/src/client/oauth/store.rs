//! [`TokenStore`]: where a client keeps the tokens it got, per protected resource, and the lease
//! that lets one client refresh them when several share the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::kernel::{BoxFuture, Locked as _};
use crate::store::StoreError;

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
    /// The client they were issued to, so that a refresh in another process (or on another
    /// node) uses that client instead of registering a new one: kept by a store that keeps the
    /// whole value (it is `Serialize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client: Option<IssuedTo>,
    /// The authorization server answered `token_type` `Bearer` to a client using DPoP: the token
    /// is bound to no key (RFC 9449 §5), so it is sent as a bearer token, without proof.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) unbound: bool,
}

/// The client a [`Tokens`] value was issued to: its id at the issuer, its secret if it has one,
/// and how it authenticates at the token endpoint.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct IssuedTo {
    pub(crate) issuer: String,
    pub(crate) client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub(crate) method: String,
}

impl Tokens {
    /// Tokens with this access token and nothing else.
    pub fn new(access_token: impl Into<String>) -> Self {
        Self {
            access_token: access_token.into(),
            refresh_token: None,
            expires_at: None,
            scope: None,
            client: None,
            unbound: false,
        }
    }

    /// The same tokens with this refresh token.
    #[must_use]
    pub fn with_refresh_token(mut self, refresh_token: impl Into<String>) -> Self {
        self.refresh_token = Some(refresh_token.into());
        self
    }

    /// The same tokens expiring at `expires_at` (seconds since the Unix epoch).
    #[must_use]
    pub fn with_expires_at(mut self, expires_at: u64) -> Self {
        self.expires_at = Some(expires_at);
        self
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
            .field(
                "client_id",
                &self.client.as_ref().map(|c| c.client_id.as_str()),
            )
            .finish()
    }
}

/// Where a client keeps its tokens, by the protected resource's identifier (its URL), so a
/// client made later, or another process sharing the store, starts with them.
///
/// A store that cannot be read or written says so with a [`StoreError`]: the client then fails
/// with [`ClientError::Auth`](crate::client::ClientError::Auth) at
/// [`AuthStep::Store`](crate::client::AuthStep::Store) instead of authorizing again.
///
/// The refresh lease ([`lock`](Self::lock), [`unlock`](Self::unlock)) lets clients sharing a
/// store refresh once: the client that takes it refreshes and saves; the others wait and load
/// what it saved (with rotating refresh tokens a second refresh of one token would revoke
/// them all). A lease lapses after its `ttl`, so a holder that died does not stop the others.
///
/// [`MemoryTokenStore`] is the default, [`FileTokenStore`](super::FileTokenStore) keeps them in
/// a file, `phantom_redis::RedisTokenStore` in Redis; `phantom::testing::contract::token_store`
/// checks any store. A store must not log what it keeps.
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens kept for `resource`.
    fn load(
        &self,
        resource: &str,
    ) -> impl Future<Output = Result<Option<Tokens>, StoreError>> + Send;
    /// Keeps `tokens` for `resource`, replacing what was there.
    fn save(
        &self,
        resource: &str,
        tokens: Tokens,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Forgets the tokens kept for `resource` (signing out); nothing kept is not an error.
    fn remove(&self, resource: &str) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Takes the refresh lease of `resource` for `holder` (a random id of the caller's) during
    /// `ttl`: whether it was taken (`false` while another holder's lease runs, or this
    /// holder's own).
    fn lock(
        &self,
        resource: &str,
        holder: &str,
        ttl: Duration,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// Gives the refresh lease of `resource` back, if `holder` holds it (a lapsed lease another
    /// holder took since stays theirs).
    fn unlock(
        &self,
        resource: &str,
        holder: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// [`TokenStore`], object-safe.
pub(super) trait DynStore: Send + Sync {
    fn load_boxed<'a>(
        &'a self,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Option<Tokens>, StoreError>>;
    fn save_boxed<'a>(
        &'a self,
        resource: &'a str,
        tokens: Tokens,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    fn lock_boxed<'a>(
        &'a self,
        resource: &'a str,
        holder: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
    fn unlock_boxed<'a>(
        &'a self,
        resource: &'a str,
        holder: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
}

impl<T: TokenStore> DynStore for T {
    fn load_boxed<'a>(
        &'a self,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Option<Tokens>, StoreError>> {
        Box::pin(self.load(resource))
    }

    fn save_boxed<'a>(
        &'a self,
        resource: &'a str,
        tokens: Tokens,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.save(resource, tokens))
    }

    fn lock_boxed<'a>(
        &'a self,
        resource: &'a str,
        holder: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.lock(resource, holder, ttl))
    }

    fn unlock_boxed<'a>(
        &'a self,
        resource: &'a str,
        holder: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.unlock(resource, holder))
    }
}

/// Tokens kept in this process's memory (lost when it exits); its lease serves the clients of
/// this process that share it (through an `Arc`).
#[derive(Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, Tokens>>,
    leases: Mutex<HashMap<String, (String, Instant)>>,
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
    async fn load(&self, resource: &str) -> Result<Option<Tokens>, StoreError> {
        Ok(self.tokens.locked().get(resource).cloned())
    }

    async fn save(&self, resource: &str, tokens: Tokens) -> Result<(), StoreError> {
        self.tokens.locked().insert(resource.to_owned(), tokens);
        Ok(())
    }

    async fn remove(&self, resource: &str) -> Result<(), StoreError> {
        self.tokens.locked().remove(resource);
        Ok(())
    }

    async fn lock(&self, resource: &str, holder: &str, ttl: Duration) -> Result<bool, StoreError> {
        let mut leases = self.leases.locked();
        let now = Instant::now();
        if leases.get(resource).is_some_and(|(_, until)| *until > now) {
            return Ok(false);
        }
        leases.insert(resource.to_owned(), (holder.to_owned(), now + ttl));
        Ok(true)
    }

    async fn unlock(&self, resource: &str, holder: &str) -> Result<(), StoreError> {
        let mut leases = self.leases.locked();
        if leases.get(resource).is_some_and(|(h, _)| h == holder) {
            leases.remove(resource);
        }
        Ok(())
    }
}

impl<S: TokenStore> TokenStore for Arc<S> {
    fn load(
        &self,
        resource: &str,
    ) -> impl Future<Output = Result<Option<Tokens>, StoreError>> + Send {
        (**self).load(resource)
    }

    fn save(
        &self,
        resource: &str,
        tokens: Tokens,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        (**self).save(resource, tokens)
    }

    fn remove(&self, resource: &str) -> impl Future<Output = Result<(), StoreError>> + Send {
        (**self).remove(resource)
    }

    fn lock(
        &self,
        resource: &str,
        holder: &str,
        ttl: std::time::Duration,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        (**self).lock(resource, holder, ttl)
    }

    fn unlock(
        &self,
        resource: &str,
        holder: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        (**self).unlock(resource, holder)
    }
}
