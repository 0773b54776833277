//! The client's side of MCP authorization (feature `oauth`): when the server answers `401` (or
//! `403` for a scope the token lacks), the client discovers the authorization server, gets a
//! client identity, runs the authorization code grant with PKCE (or a grant without a user:
//! client credentials, JWT bearer) and retries the request once with the token. See [`OAuth`].

mod challenge;
mod discovery;
mod dpop;
mod fetch;
mod file;
mod grant;
mod loopback;
mod machine;
mod registration;
mod store;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use oauth2::url::Url;

pub use file::FileTokenStore;
pub use loopback::Loopback;
pub(crate) use store::IssuedTo;
pub use store::{MemoryTokenStore, TokenStore, Tokens};

use self::challenge::Challenge;
use self::discovery::Server;
use self::fetch::Fetch;
use self::registration::Identity;
use self::store::DynStore;
use super::{AuthStep, ClientError};
use crate::kernel::{BoxFuture, Locked as _};
use crate::store::StoreError;

/// The interactive step of the authorization: takes the user (or a script) to the authorization
/// URL and returns the URL the authorization server redirected back to (the redirect URI with
/// `code` and `state`).
///
/// [`FetchRedirect`] fetches the URL and reads the redirect, for an authorization server that
/// answers without a user (tests, the conformance suite).
pub trait Authorize: Send + Sync + 'static {
    /// Runs the authorization at `url`; the redirect URL it ended at, or why it did not end
    /// (which [`ClientError::Auth`] names as the authorization step).
    fn authorize(&self, url: &str) -> impl Future<Output = Result<String, String>> + Send;
}

/// [`Authorize`], object-safe.
pub(super) trait DynAuthorize: Send + Sync {
    fn authorize_boxed<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>>;
}

impl<T: Authorize> DynAuthorize for T {
    fn authorize_boxed<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(self.authorize(url))
    }
}

/// [`Authorize`] without a user: GETs the authorization URL, follows no redirect, and returns
/// the `Location` of the answer (an error for any answer that is not a redirect).
#[derive(Debug, Clone, Copy, Default)]
pub struct FetchRedirect;

impl Authorize for FetchRedirect {
    /// On a connection of its own that trusts the platform's roots. As a client's step (the
    /// default, or given to [`OAuth::authorize`]) it runs on the client's connection instead,
    /// which trusts what `Builder::root_certificate` (feature `tls`) added.
    async fn authorize(&self, url: &str) -> Result<String, String> {
        let fetch = Fetch::new(&crate::kernel::Trust::default()).map_err(|e| e.to_string())?;
        fetch_redirect(&fetch, url).await
    }
}

/// [`FetchRedirect`] on `fetch`.
async fn fetch_redirect(fetch: &Fetch, url: &str) -> Result<String, String> {
    let request = http::Request::get(url)
        .body(Vec::new())
        .map_err(|e| format!("the authorization URL is not a URL: {e}"))?;
    let uri = request.uri().clone();
    let response = fetch.send(request).await.map_err(|e| e.to_string())?;
    let location = response
        .headers()
        .get(http::header::LOCATION)
        .and_then(|v| v.to_str().ok());
    match location {
        Some(location) if response.status().is_redirection() => Url::parse(&uri.to_string())
            .and_then(|base| base.join(location))
            .map(String::from)
            .map_err(|e| format!("the redirect's `Location` is not a URL: {e}")),
        _ => Err(format!(
            "{} answered HTTP {} and no redirect",
            fetch::without_query(&uri),
            response.status()
        )),
    }
}

/// How a [`Client`](super::Client) gets tokens from the server's authorization server
/// ([`Builder::oauth`](super::Builder::oauth)).
///
/// ```no_run
/// # async fn run() -> Result<(), phantom::client::ClientError> {
/// use phantom::client::{Client, FetchRedirect, OAuth};
///
/// let client = Client::http("http://127.0.0.1:4000/mcp")
///     .oauth(
///         OAuth::new("http://localhost:3000/callback")
///             .client_metadata_url("https://app.example.com/client-metadata.json")
///             .authorize(FetchRedirect),
///     )
///     .connect()
///     .await?;
/// # drop(client); Ok(()) }
/// ```
///
/// On a `401` the client reads the challenge and finds the protected resource metadata (the URL
/// the challenge names, else path-based, else at the root; its `resource` must be the server's
/// URL or a parent of it), then the authorization server's metadata (RFC 8414, then OpenID
/// discovery; its `issuer` must be the one the resource names). Its identity there: the
/// [credentials](Self::credentials) given, else the [metadata document
/// URL](Self::client_metadata_url) when the server takes one, else a dynamic registration. The
/// scopes asked: the challenge's, else the resource's `scopes_supported`, else none (with
/// `offline_access` when the server lists it). The authorization request (PKCE S256, `state`,
/// `resource`) goes through the [`Authorize`] step; the redirect's `state` and `iss` are
/// checked; the code is exchanged with the token endpoint authentication the server supports.
/// The tokens go to the [`TokenStore`] and the request is sent again. A later `401` uses the
/// refresh token first; a `403` with `insufficient_scope` asks again with the union of scopes.
///
/// Without a user, [`client_credentials`](Self::client_credentials),
/// [`private_key_jwt`](Self::private_key_jwt) and [`jwt_bearer`](Self::jwt_bearer) replace the
/// authorization code grant, and [`enterprise_managed`](Self::enterprise_managed) replaces it
/// with a user's enterprise sign-in: the same discovery, `resource`, scopes, refresh and store,
/// with no registration, redirect or [`Authorize`] step.
///
/// ```no_run
/// # async fn run() -> Result<(), phantom::client::ClientError> {
/// use phantom::client::{Client, OAuth};
///
/// let client = Client::http("http://127.0.0.1:4000/mcp")
///     .oauth(OAuth::client_credentials("reporting-job", "its-secret"))
///     .connect()
///     .await?;
/// # drop(client); Ok(()) }
/// ```
///
/// The client reads the store before its first request, so tokens another client kept are
/// used. Clients sharing a store (an `Arc` of a [`MemoryTokenStore`], a [`FileTokenStore`],
/// `phantom_redis::RedisTokenStore`) refresh an expiring token once: the one that takes the
/// store's refresh lease refreshes, the others wait for what it saves. A store that cannot be
/// read or written fails the request with [`ClientError::Auth`] at [`AuthStep::Store`].
#[must_use]
#[derive(Clone)]
pub struct OAuth {
    redirect_uri: String,
    client_metadata_url: Option<String>,
    credentials: Option<(String, Option<String>)>,
    client_name: String,
    /// The interactive step; none: [`FetchRedirect`] on the flow's own connection.
    authorize: Option<Arc<dyn DynAuthorize>>,
    store: Arc<dyn DynStore>,
    grant: Grant,
    signing_key: Option<SigningKey>,
    dpop: bool,
}

/// Where the application's assertion for the JWT bearer grant comes from, at each token request.
type AssertionSource =
    Arc<dyn Fn() -> BoxFuture<'static, Result<String, String>> + Send + Sync + 'static>;

/// The grant the flow runs for a token.
#[derive(Clone)]
enum Grant {
    /// The authorization code grant with PKCE, through [`Authorize`].
    AuthorizationCode,
    /// The client credentials grant (RFC 6749 §4.4).
    ClientCredentials,
    /// The JWT bearer grant (RFC 7523 §2.1), with the application's assertion.
    JwtBearer(AssertionSource),
    /// The JWT bearer grant with an ID-JAG the identity provider exchanged the user's ID
    /// token for.
    EnterpriseManaged(Arc<IdentityProvider>),
}

/// The enterprise identity provider of [`OAuth::enterprise_managed`].
struct IdentityProvider {
    token_endpoint: String,
    /// This client's id at the identity provider.
    client_id: String,
    id_token: AssertionSource,
}

/// A private key the client signs its assertions with (`private_key_jwt`); never printed.
#[derive(Clone)]
struct SigningKey {
    pem: String,
    algorithm: String,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("pem", &"<redacted>")
            .field("algorithm", &self.algorithm)
            .finish()
    }
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("redirect_uri", &self.redirect_uri)
            .field("client_metadata_url", &self.client_metadata_url)
            .field(
                "client_id",
                &self.credentials.as_ref().map(|(id, _)| id.as_str()),
            )
            .field(
                "grant",
                &match self.grant {
                    Grant::AuthorizationCode => "authorization_code",
                    Grant::ClientCredentials => "client_credentials",
                    Grant::JwtBearer(_) => "jwt-bearer",
                    Grant::EnterpriseManaged(_) => "jwt-bearer with an ID-JAG",
                },
            )
            .field("signing_key", &self.signing_key)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

impl OAuth {
    /// A flow whose authorization redirects to `redirect_uri`, with [`FetchRedirect`] as its
    /// interactive step and a [`MemoryTokenStore`] until set otherwise.
    pub fn new(redirect_uri: &str) -> Self {
        Self {
            redirect_uri: redirect_uri.to_owned(),
            client_metadata_url: None,
            credentials: None,
            client_name: "phantom-client".to_owned(),
            authorize: None,
            store: Arc::new(MemoryTokenStore::new()),
            grant: Grant::AuthorizationCode,
            signing_key: None,
            dpop: false,
        }
    }

    /// Sender-constrained tokens (DPoP, RFC 9449): the client makes an ES256 key pair of its
    /// own (in memory, for the client's life), sends a proof signed with it on each token
    /// request and on each request to the server (`htm`, `htu`, `iat`, a unique `jti`, and
    /// `ath`, the access token's hash, with the token), and presents the token as
    /// `Authorization: DPoP …`. A nonce the authorization server or the server asks for
    /// (`use_dpop_nonce`) is put in the proofs from then on, and the request that was refused
    /// for it is sent again once. A token kept in a store is bound to the key of the client
    /// that got it: a client that starts later gets a new token.
    pub fn dpop(mut self) -> Self {
        self.dpop = true;
        self
    }

    /// A flow without a user: the client credentials grant (RFC 6749 §4.4), the client
    /// authenticated with `client_secret` (`client_secret_basic`, or `client_secret_post` when
    /// the authorization server supports only that). No redirect, no [`Authorize`] step; the
    /// token is asked for the server's URL as the RFC 8707 `resource`, with the scopes the
    /// authorization code flow would ask.
    pub fn client_credentials(client_id: &str, client_secret: &str) -> Self {
        let mut oauth = Self::new("");
        oauth.credentials = Some((client_id.to_owned(), Some(client_secret.to_owned())));
        oauth.grant = Grant::ClientCredentials;
        oauth
    }

    /// The client credentials grant (RFC 6749 §4.4) with the client authenticated by a signed
    /// assertion instead of a secret (`private_key_jwt`, RFC 7523 §2.2): a JWT whose `iss` and
    /// `sub` are `client_id` and whose `aud` is the authorization server's issuer, with a
    /// unique `jti`, valid for a minute, signed with `private_key_pem` (PKCS #8 or SEC 1 for an
    /// EC key, PKCS #1 or #8 for RSA) by `algorithm` (`ES256`, `ES384`, `RS256`, `PS256`,
    /// `EdDSA`, …). A key or algorithm that does not fit fails the token request with
    /// [`ClientError::Auth`] at [`AuthStep::Token`]. The key is never printed.
    pub fn private_key_jwt(client_id: &str, private_key_pem: &str, algorithm: &str) -> Self {
        let mut oauth = Self::new("");
        oauth.credentials = Some((client_id.to_owned(), None));
        oauth.grant = Grant::ClientCredentials;
        oauth.signing_key = Some(SigningKey {
            pem: private_key_pem.to_owned(),
            algorithm: algorithm.to_owned(),
        });
        oauth
    }

    /// Enterprise-managed authorization: the user's sign-in at their organisation's identity
    /// provider stands for the authorization. At each token request the user's ID token, which
    /// `id_token` returns, is exchanged at the identity provider's `idp_token_endpoint`
    /// (RFC 8693 token exchange, as `idp_client_id`, `subject_token_type` `id_token`,
    /// `requested_token_type` `id-jag`, the `audience` the authorization server's issuer and
    /// the `resource` the server's) for an Identity Assertion JWT Authorization Grant (ID-JAG),
    /// which then goes to the authorization server as the assertion of the JWT bearer grant
    /// (RFC 7523 §2.1), the client authenticated there with `client_id` and `client_secret`.
    /// An error of `id_token`, or a refused exchange, fails the request with
    /// [`ClientError::Auth`] at [`AuthStep::Token`].
    pub fn enterprise_managed<F, Fut>(
        client_id: &str,
        client_secret: Option<&str>,
        idp_token_endpoint: &str,
        idp_client_id: &str,
        id_token: F,
    ) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        let mut oauth = Self::new("");
        oauth.credentials = Some((client_id.to_owned(), client_secret.map(str::to_owned)));
        oauth.grant = Grant::EnterpriseManaged(Arc::new(IdentityProvider {
            token_endpoint: idp_token_endpoint.to_owned(),
            client_id: idp_client_id.to_owned(),
            id_token: Arc::new(move || Box::pin(id_token())),
        }));
        oauth
    }

    /// A flow without a user for a workload with an identity of its own: the JWT bearer grant
    /// (RFC 7523 §2.1), whose `assertion` is the JWT `assertion` returns. It is called at each
    /// token request (a workload's token is short-lived and rotated: read it from the file or
    /// the metadata service each time). An assertion that has expired, or whose `aud` names
    /// neither the authorization server's issuer nor its token endpoint, is not sent: the
    /// request fails with [`ClientError::Auth`] at [`AuthStep::Token`], as does an error
    /// `assertion` returns. A refused assertion is not retried. `client_id` goes in the form
    /// (the server's client, authenticated by nothing else unless [`Self::credentials`] gives
    /// a secret).
    pub fn jwt_bearer<F, Fut>(client_id: &str, assertion: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        let mut oauth = Self::new("");
        oauth.credentials = Some((client_id.to_owned(), None));
        oauth.grant = Grant::JwtBearer(Arc::new(move || Box::pin(assertion())));
        oauth
    }

    /// The HTTPS URL of this client's metadata document (a Client ID Metadata Document), its
    /// `client_id` at authorization servers that take one
    /// (`client_id_metadata_document_supported`).
    pub fn client_metadata_url(mut self, url: &str) -> Self {
        self.client_metadata_url = Some(url.to_owned());
        self
    }

    /// Credentials registered beforehand with the authorization server: used instead of any
    /// registration (a confidential client with a secret, a public one without).
    pub fn credentials(mut self, client_id: &str, client_secret: Option<&str>) -> Self {
        self.credentials = Some((client_id.to_owned(), client_secret.map(str::to_owned)));
        self
    }

    /// The `client_name` of a dynamic registration (default `phantom-client`).
    pub fn client_name(mut self, name: &str) -> Self {
        self.client_name = name.to_owned();
        self
    }

    /// The interactive step (default [`FetchRedirect`]).
    pub fn authorize(mut self, step: impl Authorize) -> Self {
        let fetch_redirect = (&step as &dyn std::any::Any).is::<FetchRedirect>();
        self.authorize = match fetch_redirect {
            true => None,
            false => Some(Arc::new(step)),
        };
        self
    }

    /// Where the tokens are kept (default a [`MemoryTokenStore`] of this client's own); an
    /// `Arc` of a store shares it between clients.
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
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

/// How long before its expiry a bearer is refreshed.
const EARLY: u64 = 30;

/// How long the refresh lease lasts: a holder that died holds the others back this long at most.
const LEASE: Duration = Duration::from_secs(15);

/// How often a client waiting for another's refresh loads the store again.
const POLL: Duration = Duration::from_millis(50);

/// Seconds since the Unix epoch.
fn now() -> u64 {
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
struct Learnt {
    /// The authorization server's metadata and this client's identity there.
    server: Option<(Server, Identity)>,
    /// The resource identifier tokens are asked for.
    resource: Option<String>,
    /// The scopes asked for last (a step-up asks for their union with the new ones).
    scopes: BTreeSet<String>,
    refresh_token: Option<String>,
    /// The client the kept tokens were issued to (a refresh uses it, not a new registration).
    client: Option<IssuedTo>,
    /// Whether the store was read for tokens another client kept.
    loaded: bool,
    /// Why the last refresh failed, for the error of the flow that then runs.
    refresh_failed: Option<String>,
    /// Whether the tokens came from a step-up (a `403` asking for more scopes).
    stepped_up: bool,
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
            Some(dpop) => (
                format!("DPoP {token}"),
                Some(dpop.proof_for_resource(method, self.server.as_str(), token)),
            ),
            None => (format!("Bearer {token}"), None),
        }
    }

    /// Whether the server's answer asks for a DPoP nonce (kept for the next proofs).
    pub(in crate::client) fn nonce_asked(
        &self,
        status: http::StatusCode,
        headers: &http::HeaderMap,
    ) -> bool {
        status == http::StatusCode::UNAUTHORIZED
            && self
                .dpop
                .as_ref()
                .is_some_and(|dpop| dpop.resource_nonce(headers))
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
            if self
                .refresh(&mut learnt, sent, challenge.resource_metadata.as_deref())
                .await?
            {
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
            if bearer.is_some()
                && expiring(*self.refresh_at.locked())
                && !self.refresh(&mut learnt, bearer.as_deref(), None).await?
            {
                // Not tried again before each request: the server says when the token is done.
                *self.refresh_at.locked() = None;
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
        resource_metadata: Option<&str>,
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
            let refreshed = self
                .refresh_held(learnt, kept, &fresher, resource_metadata)
                .await;
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
        resource_metadata: Option<&str>,
    ) -> Result<bool, ClientError> {
        let kept = kept?;
        if let Some(kept) = kept.as_ref().filter(|k| fresher(k)) {
            self.adopt(learnt, kept.clone());
            return Ok(true);
        }
        let Some(refresh) = kept
            .and_then(|kept| kept.refresh_token)
            .or_else(|| learnt.refresh_token.clone())
        else {
            return Ok(false);
        };
        if learnt.server.is_none()
            && let Err(e) = self.discover(learnt, resource_metadata).await
        {
            tracing::debug!(error = %e, "no refresh: discovery failed");
            learnt.refresh_failed = Some(e.to_string());
            return Ok(false);
        }
        let (Some((server, identity)), Some(resource)) = (&learnt.server, &learnt.resource) else {
            return Ok(false);
        };
        let refreshed = match self.config.grant {
            Grant::AuthorizationCode => {
                grant::refresh(
                    &self.fetch,
                    server,
                    identity,
                    &self.config.redirect_uri,
                    resource,
                    &refresh,
                )
                .await
            }
            _ => machine::request(&self.fetch, &self.config, learnt, &[], Some(&refresh)).await,
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
        if !scopes.is_empty()
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
