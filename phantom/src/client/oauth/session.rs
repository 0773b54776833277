//! One server's OAuth room in a client: the bearer the HTTP link sends, when it is refreshed,
//! and the flow that gets another (discovery, identity, the grant, the store and its lease).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oauth2::url::Url;

use super::challenge::Challenge;
use super::discovery::{self, Server};
use super::fetch::Fetch;
use super::registration::{self, Identity};
use super::store::IssuedTo;
use super::{Grant, OAuth, Tokens, dpop, grant, machine};
use crate::client::{AuthStep, ClientError};
use crate::kernel::Locked as _;
use crate::store::StoreError;

/// How long before its expiry a bearer is refreshed.
const EARLY: u64 = 30;

/// How long the refresh lease lasts: a holder that died holds the others back this long at most.
const LEASE: Duration = Duration::from_secs(15);

/// How often a client waiting for another's refresh loads the store again.
const POLL: Duration = Duration::from_millis(50);

/// Seconds since the Unix epoch.
pub(super) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

/// When a token expiring at `at`, adopted now, is to be refreshed: [`EARLY`] before, or halfway
/// through what is left of its life if that is shorter (a token of a few seconds is not
/// refreshed before every request).
fn refresh_at(at: Option<u64>) -> Option<u64> {
    let now = now();
    at.map(|at| at - EARLY.min(at.saturating_sub(now) / 2))
}

/// Whether a token to be refreshed at `at` is to be refreshed now.
fn expiring(at: Option<u64>) -> bool {
    at.is_some_and(|at| at <= now())
}

/// A token store's error as the flow's.
fn store_error(doing: &str, e: &StoreError) -> ClientError {
    ClientError::auth(AuthStep::Store, format!("{doing}: {e}"))
}

/// What the flow learnt, kept between its runs.
#[derive(Default)]
pub(super) struct Learnt {
    /// The authorization server's metadata and this client's identity there.
    pub(super) server: Option<(Server, Identity)>,
    /// The resource identifier tokens are asked for.
    pub(super) resource: Option<String>,
    /// The scopes asked for last (a step-up asks for their union with the new ones).
    pub(super) scopes: BTreeSet<String>,
    pub(super) refresh_token: Option<String>,
    /// The client the kept tokens were issued to (a refresh uses it, not a new registration).
    pub(super) client: Option<IssuedTo>,
    /// Whether the store was read for tokens another client kept.
    pub(super) loaded: bool,
    /// Why the last refresh failed, for the error of the flow that then runs.
    pub(super) refresh_failed: Option<String>,
    /// Whether the tokens came from a step-up (a `403` asking for more scopes).
    pub(super) stepped_up: bool,
}

/// One server's OAuth room: the bearer the HTTP link sends, and the flow that gets another.
pub(in crate::client) struct Session {
    config: OAuth,
    server: Url,
    /// The key of the token store: the server's URL.
    key: String,
    /// This client's id as a holder of the store's refresh lease.
    holder: String,
    fetch: Fetch,
    /// The client's DPoP key and nonces ([`OAuth::dpop`]).
    dpop: Option<Arc<dpop::Dpop>>,
    bearer: Mutex<Option<String>>,
    /// Whether the bearer is bound to no DPoP key ([`Tokens`]' `unbound`).
    unbound: Mutex<bool>,
    /// When the bearer expires (seconds since the Unix epoch), if the server said.
    /// When the bearer is to be refreshed (seconds since the Unix epoch), if the server said
    /// when it expires: [`refresh_at`].
    refresh_at: Mutex<Option<u64>>,
    /// One flow at a time; what it learnt.
    flow: tokio::sync::Mutex<Learnt>,
}

impl Session {
    pub(in crate::client) fn new(
        config: OAuth,
        server: &str,
        client: &hyper_util::client::legacy::Client<
            crate::kernel::Connector,
            http_body_util::Full<bytes::Bytes>,
        >,
    ) -> Result<Self, ClientError> {
        let url = Url::parse(server).map_err(|e| {
            ClientError::auth(AuthStep::Discovery, format!("`{server}` is not a URL: {e}"))
        })?;
        let dpop = config.dpop.then(|| Arc::new(dpop::Dpop::new()));
        let fetch = match &dpop {
            Some(dpop) => Fetch::over(client).with_dpop(Arc::clone(dpop)),
            None => Fetch::over(client),
        };
        Ok(Self {
            config,
            server: url,
            key: server.to_owned(),
            holder: crate::kernel::random_id::<16>(),
            fetch,
            dpop,
            bearer: Mutex::default(),
            unbound: Mutex::default(),
            refresh_at: Mutex::default(),
            flow: tokio::sync::Mutex::default(),
        })
    }

    /// The access token to send, if there is one.
    pub(in crate::client) fn bearer(&self) -> Option<String> {
        self.bearer.locked().clone()
    }

    /// The `Authorization` value for `token`, and the DPoP proof for a `method` request to
    /// the server when DPoP is on.
    pub(in crate::client) fn authorization(
        &self,
        token: &str,
        method: &str,
    ) -> (String, Option<String>) {
        match &self.dpop {
            Some(dpop) if !*self.unbound.locked() => (
                format!("DPoP {token}"),
                Some(dpop.proof_for_resource(method, self.server.as_str(), token)),
            ),
            _ => (format!("Bearer {token}"), None),
        }
    }

    /// Whether the server's answer asks for a DPoP nonce (kept for the next proofs).
    pub(in crate::client) fn nonce_asked(
        &self,
        status: http::StatusCode,
        headers: &http::HeaderMap,
    ) -> bool {
        // The nonce kept first: a server may give the next one in any answer.
        self.dpop
            .as_ref()
            .is_some_and(|dpop| dpop.resource_nonce(headers))
            && status == http::StatusCode::UNAUTHORIZED
    }

    /// Whether an answer asks for (another) token: a `401`, or a `403` with
    /// `insufficient_scope`.
    pub(in crate::client) fn wants(status: http::StatusCode, headers: &http::HeaderMap) -> bool {
        status == http::StatusCode::UNAUTHORIZED
            || (status == http::StatusCode::FORBIDDEN
                && Challenge::of(headers).insufficient_scope())
    }

    /// The tokens kept in the store for this server.
    async fn load(&self) -> Result<Option<Tokens>, ClientError> {
        self.config
            .store
            .load_boxed(&self.key)
            .await
            .map_err(|e| store_error("loading the tokens", &e))
    }

    /// Sends `tokens` from now on (without saving them).
    fn adopt(&self, learnt: &mut Learnt, tokens: Tokens) {
        learnt.refresh_token.clone_from(&tokens.refresh_token);
        learnt.client.clone_from(&tokens.client);
        *self.refresh_at.locked() = refresh_at(tokens.expires_at);
        *self.unbound.locked() = tokens.unbound;
        *self.bearer.locked() = Some(tokens.access_token);
    }

    /// Gets a token after a request sent with `sent` was answered with `status` and `headers`:
    /// one kept meanwhile, a refreshed one, or one from the whole flow.
    pub(in crate::client) async fn authenticate(
        &self,
        status: http::StatusCode,
        headers: &http::HeaderMap,
        sent: Option<&str>,
    ) -> Result<(), ClientError> {
        let mut learnt = self.flow.lock().await;
        learnt.loaded = true;
        let now = self.bearer();
        if now.is_some() && now.as_deref() != sent {
            // Another request got a new token while this one waited.
            return Ok(());
        }
        let challenge = Challenge::of(headers);
        let step_up = status == http::StatusCode::FORBIDDEN;
        if step_up && learnt.stepped_up {
            let asked: BTreeSet<String> = challenge
                .scope
                .as_deref()
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            if asked.is_subset(&learnt.scopes) {
                // The retry limit of step-up: asking the user again for what they granted would
                // loop.
                return Err(ClientError::auth(
                    AuthStep::Authorization,
                    format!(
                        "the server refuses the token for scopes the last step-up asked for already (`{}`): not asking again",
                        asked.into_iter().collect::<Vec<_>>().join(" ")
                    ),
                ));
            }
        }
        if !step_up {
            if let Some(kept) = self.load().await?
                && Some(kept.access_token.as_str()) != sent
            {
                self.adopt(&mut learnt, kept);
                return Ok(());
            }
            if self.refresh(&mut learnt, sent, Some(&challenge)).await? {
                return Ok(());
            }
        }
        let tokens = match self.flow(&mut learnt, &challenge, step_up).await {
            Ok(tokens) => tokens,
            Err(ClientError::Auth { step, message }) if learnt.refresh_failed.is_some() => {
                let why = learnt.refresh_failed.take().unwrap_or_default();
                return Err(ClientError::auth(
                    step,
                    format!("{message} (before that, the refresh failed: {why})"),
                ));
            }
            Err(e) => return Err(e),
        };
        learnt.stepped_up = step_up;
        self.keep(&mut learnt, tokens).await
    }

    async fn keep(&self, learnt: &mut Learnt, mut tokens: Tokens) -> Result<(), ClientError> {
        if let Some((_, identity)) = &learnt.server {
            tokens.client = Some(identity.issued_to());
        }
        self.adopt(learnt, tokens.clone());
        self.config
            .store
            .save_boxed(&self.key, tokens)
            .await
            .map_err(|e| store_error("saving the tokens", &e))
    }

    /// Before a request: the tokens another client kept in the store, the first time; then a
    /// refresh when the bearer is due ([`refresh_at`]) and there is a refresh token (a failed
    /// refresh leaves it: the server's `401` then starts the flow). A store that cannot be read
    /// is an error.
    pub(in crate::client) async fn fresh(&self) -> Result<(), ClientError> {
        if self.bearer.locked().is_none() || expiring(*self.refresh_at.locked()) {
            let mut learnt = self.flow.lock().await;
            if !learnt.loaded {
                learnt.loaded = true;
                if self.bearer.locked().is_none()
                    && let Some(kept) = self.load().await?
                {
                    self.adopt(&mut learnt, kept);
                }
            }
            let bearer = self.bearer();
            if bearer.is_some() && expiring(*self.refresh_at.locked()) {
                let refreshed = match self.refresh(&mut learnt, bearer.as_deref(), None).await {
                    Ok(refreshed) => refreshed,
                    Err(
                        e @ ClientError::Auth {
                            step: AuthStep::Store,
                            ..
                        },
                    ) => return Err(e),
                    // The bearer is still good: the server says when it is done, and the grant
                    // runs again then.
                    Err(e) => {
                        tracing::debug!(error = %e, "an early renewal failed");
                        false
                    }
                };
                if !refreshed {
                    // Not tried again before each request: the server says when the token is done.
                    *self.refresh_at.locked() = None;
                }
            }
        }
        Ok(())
    }

    /// Replaces the bearer `stale` with a refreshed one: whether it got one. One client of
    /// those sharing the store refreshes (the one that takes the store's lease); the others
    /// wait for the tokens it saves. A store that cannot be read, written or leased is an error;
    /// a refused refresh is `false` (the flow runs again).
    async fn refresh(
        &self,
        learnt: &mut Learnt,
        stale: Option<&str>,
        challenge: Option<&Challenge>,
    ) -> Result<bool, ClientError> {
        let store = &self.config.store;
        // Tokens other than the stale ones are newer: another client's.
        let fresher = |kept: &Tokens| Some(kept.access_token.as_str()) != stale;
        let deadline = tokio::time::Instant::now() + LEASE + POLL;
        loop {
            let taken = store
                .lock_boxed(&self.key, &self.holder, LEASE)
                .await
                .map_err(|e| store_error("taking the refresh lease", &e))?;
            let kept = self.load().await;
            if !taken {
                // Another client refreshes: its tokens, once saved.
                if let Some(kept) = kept?.filter(fresher) {
                    self.adopt(learnt, kept);
                    return Ok(true);
                }
                if tokio::time::Instant::now() >= deadline {
                    return Ok(false);
                }
                tokio::time::sleep(POLL).await;
                continue;
            }
            let refreshed = self.refresh_held(learnt, kept, &fresher, challenge).await;
            let given = store.unlock_boxed(&self.key, &self.holder).await;
            let refreshed = refreshed?;
            given.map_err(|e| store_error("giving the refresh lease back", &e))?;
            return Ok(refreshed);
        }
    }

    /// [`refresh`](Self::refresh) with the lease held: the kept tokens if another client
    /// refreshed meanwhile, else a refresh with the newest refresh token.
    async fn refresh_held(
        &self,
        learnt: &mut Learnt,
        kept: Result<Option<Tokens>, ClientError>,
        fresher: &(dyn Fn(&Tokens) -> bool + Sync),
        challenge: Option<&Challenge>,
    ) -> Result<bool, ClientError> {
        let kept = kept?;
        if let Some(kept) = kept.as_ref().filter(|k| fresher(k)) {
            self.adopt(learnt, kept.clone());
            return Ok(true);
        }
        let refresh = kept
            .and_then(|kept| kept.refresh_token)
            .or_else(|| learnt.refresh_token.clone());
        // A grant without a user and without a refresh token is renewed by the grant itself,
        // under the lease too, so that the clients sharing the store ask once.
        let renew = !matches!(self.config.grant, Grant::AuthorizationCode);
        if refresh.is_none() && !renew {
            return Ok(false);
        }
        let mut listed = None;
        if learnt.server.is_none() {
            let resource_metadata = challenge.and_then(|c| c.resource_metadata.as_deref());
            match self.discover(learnt, resource_metadata).await {
                Ok(scopes) => listed = scopes,
                Err(e) if renew && refresh.is_none() => return Err(e),
                Err(e) => {
                    tracing::debug!(error = %e, "no refresh: discovery failed");
                    learnt.refresh_failed = Some(e.to_string());
                    return Ok(false);
                }
            }
        }
        let (Some((server, identity)), Some(resource)) = (&learnt.server, &learnt.resource) else {
            return Ok(false);
        };
        let refreshed = match (&self.config.grant, refresh.as_deref()) {
            (Grant::AuthorizationCode, Some(refresh)) => {
                grant::refresh(
                    &self.fetch,
                    server,
                    identity,
                    &self.config.redirect_uri,
                    resource,
                    refresh,
                )
                .await
            }
            (_, Some(refresh)) => {
                machine::request(&self.fetch, &self.config, learnt, &[], Some(refresh)).await
            }
            (_, None) => {
                // The scopes granted before, else those the server asks for, else those it lists.
                let asked = challenge.and_then(|c| c.scope.as_deref()).map(|scope| {
                    scope
                        .split_whitespace()
                        .map(str::to_owned)
                        .collect::<BTreeSet<_>>()
                });
                let scopes = match asked {
                    _ if !learnt.scopes.is_empty() => learnt.scopes.clone(),
                    Some(asked) => asked,
                    None => listed.unwrap_or_default().into_iter().collect(),
                };
                let list: Vec<String> = scopes.iter().cloned().collect();
                // Asking again would ask the same: its error is the flow's.
                let tokens =
                    machine::request(&self.fetch, &self.config, learnt, &list, None).await?;
                learnt.scopes = scopes;
                Ok(tokens)
            }
        };
        match refreshed {
            Ok(tokens) => {
                learnt.refresh_failed = None;
                self.keep(learnt, tokens).await?;
                Ok(true)
            }
            Err(e) => {
                tracing::debug!(error = %e, "refresh failed");
                learnt.refresh_failed = Some(e.to_string());
                Ok(false)
            }
        }
    }

    /// Finds the authorization server and this client's identity there (registering when it
    /// has none there yet): the scopes the resource lists.
    async fn discover(
        &self,
        learnt: &mut Learnt,
        resource_metadata: Option<&str>,
    ) -> Result<Option<Vec<String>>, ClientError> {
        let found = discovery::resource(&self.fetch, &self.server, resource_metadata).await?;
        let (issuer, resource, resource_scopes) = match &found {
            Some(found) => (
                found.issuer.clone(),
                found.resource.clone(),
                found.scopes_supported.clone(),
            ),
            // A 2025-03-26 server: its origin is its authorization server.
            None => (
                discovery::origin(&self.server),
                self.server.as_str().to_owned(),
                None,
            ),
        };
        let server = match discovery::server(&self.fetch, &issuer, found.is_some()).await? {
            Some(server) => server,
            None if found.is_none() => discovery::fallback(&issuer),
            None => {
                return Err(ClientError::auth(
                    AuthStep::Discovery,
                    format!("`{issuer}` publishes no authorization server metadata"),
                ));
            }
        };
        // The client the kept tokens were issued to, unless the credentials given name another.
        let kept = learnt
            .client
            .as_ref()
            .filter(|client| {
                self.config
                    .credentials
                    .as_ref()
                    .is_none_or(|(id, _)| *id == client.client_id)
            })
            .and_then(|client| Identity::kept(client, &server.issuer));
        let identity = match (&learnt.server, kept) {
            (Some((_, identity)), _) if identity.issuer == server.issuer => identity.clone(),
            (_, Some(kept)) => kept,
            _ => registration::identity(&self.fetch, &self.config, &server).await?,
        };
        learnt.resource = Some(resource);
        learnt.server = Some((server, identity));
        Ok(resource_scopes)
    }

    /// The whole flow: discovery, identity, authorization, token.
    async fn flow(
        &self,
        learnt: &mut Learnt,
        challenge: &Challenge,
        step_up: bool,
    ) -> Result<Tokens, ClientError> {
        let resource_scopes = self
            .discover(learnt, challenge.resource_metadata.as_deref())
            .await?;
        let (Some((server, identity)), Some(resource)) = (&learnt.server, &learnt.resource) else {
            return Err(ClientError::auth(
                AuthStep::Discovery,
                "no authorization server",
            ));
        };
        let mut scopes: BTreeSet<String> = match (&challenge.scope, resource_scopes) {
            (Some(scope), _) => scope.split_whitespace().map(str::to_owned).collect(),
            (None, Some(supported)) => supported.into_iter().collect(),
            (None, None) => BTreeSet::new(),
        };
        if step_up {
            scopes.extend(learnt.scopes.iter().cloned());
        }
        // A refresh token is asked for a user's grant; a grant without a user asks again instead.
        if !scopes.is_empty()
            && matches!(self.config.grant, Grant::AuthorizationCode)
            && server
                .scopes_supported
                .as_deref()
                .is_some_and(|s| s.iter().any(|s| s == "offline_access"))
        {
            scopes.insert("offline_access".to_owned());
        }
        let list: Vec<String> = scopes.iter().cloned().collect();
        let tokens = match self.config.grant {
            Grant::AuthorizationCode => {
                grant::authorization_code(
                    &self.fetch,
                    self.config.authorize.as_deref(),
                    server,
                    identity,
                    &self.config.redirect_uri,
                    resource,
                    &list,
                )
                .await?
            }
            _ => machine::request(&self.fetch, &self.config, learnt, &list, None).await?,
        };
        learnt.scopes = scopes;
        Ok(tokens)
    }
}
