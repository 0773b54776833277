//! The client's side of MCP authorization (feature `oauth`): when the server answers `401` (or
//! `403` for a scope the token lacks), the client discovers the authorization server, gets a
//! client identity, runs the authorization code grant with PKCE (or a grant without a user:
//! client credentials, JWT bearer) and retries the request once with the token. See [`OAuth`].

mod authorize;
mod challenge;
mod discovery;
mod dpop;
mod fetch;
mod file;
mod grant;
mod loopback;
mod machine;
mod registration;
mod session;
mod store;

use std::sync::Arc;

pub(super) use authorize::DynAuthorize;
use authorize::fetch_redirect;
pub use authorize::{Authorize, FetchRedirect};
pub use file::FileTokenStore;
pub use loopback::Loopback;
pub(in crate::client) use session::Session;
use session::{Learnt, now};
pub(crate) use store::IssuedTo;
pub use store::{MemoryTokenStore, TokenStore, Tokens};

use self::store::DynStore;
#[cfg(doc)]
use crate::client::{AuthStep, ClientError};
use crate::kernel::BoxFuture;

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
