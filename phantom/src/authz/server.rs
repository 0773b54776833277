//! [`AuthorizationServer`]: the endpoints served, as an axum router.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};

use super::register::{self, Answer, MAX_REGISTRATION_BYTES, Registered};
use super::web::MAX_FORM_BYTES;
use super::{Identity, Keyring, Metadata, MetadataDocuments, RegistrationLimits, Upstream};
use crate::store::{
    ClientStore, ConsentStore, GrantStore, MemoryClientStore, MemoryConsentStore, MemoryGrantStore,
    MemoryRateStore, MemoryRefreshStore, RateStore, RefreshStore,
};

/// The app's mapping of a signed-in identity and the scopes a client asked for to the scopes
/// granted (`Err` refuses the sign-in, saying why).
type Grant = dyn Fn(&Identity, &[String]) -> Result<Vec<String>, String> + Send + Sync;

/// phantom's authorization server: its metadata, its keyring and the stores its state crosses.
/// [`router`](Self::router) serves, under the issuer's origin:
///
/// | route | what it answers |
/// |---|---|
/// | `GET /.well-known/oauth-authorization-server[/<issuer path>]` | the [`Metadata`] (RFC 8414) |
/// | `GET <issuer path>/jwks.json` | the [`Keyring`]'s public keys |
/// | `POST <issuer path>/register` | dynamic client registration (RFC 7591), within [`RegistrationLimits`] |
/// | `GET <issuer path>/authorize` | the authorization request (code, PKCE `S256`, RFC 8707 `resource`): the browser sent to the [`upstream`](Self::upstream) provider |
/// | `GET <issuer path>/callback` | the upstream provider's answer: the identity mapped to scopes ([`grant`](Self::grant)), then the consent page (or the code, when consented before) |
/// | `POST <issuer path>/consent` | the user's answer (CSRF-checked): the code (with `state` and `iss`), or `access_denied` |
/// | `POST <issuer path>/token` | the authorization code and refresh token grants: phantom's access token and a rotated refresh token |
/// | `POST <issuer path>/revoke` | revocation (RFC 7009): a refresh token revokes its grant |
///
/// Every answer carries `Cache-Control: no-store` except the two documents, which any origin may
/// read; pages cannot be framed. The stores are in memory by default; nodes that share the work
/// share them ([`clients`](Self::clients), [`rates`](Self::rates), [`grants`](Self::grants),
/// [`refreshes`](Self::refreshes), [`consents`](Self::consents)) and their keyring.
///
/// ```
/// use phantom::authz::{AuthorizationServer, Keyring, SigningKey};
///
/// let server = AuthorizationServer::new("https://mcp.example.com", Keyring::new(SigningKey::generate()));
/// let verifier = server.keyring().verifier(server.metadata().issuer(), "https://mcp.example.com/mcp");
/// let app: axum::Router = server.router();
/// # drop((verifier, app));
/// ```
#[derive(Clone)]
pub struct AuthorizationServer {
    pub(super) metadata: Metadata,
    pub(super) keyring: Keyring,
    pub(super) resource: String,
    pub(super) upstream: Option<Arc<Upstream>>,
    pub(super) grant: Arc<Grant>,
    pub(super) token_lifetime: Duration,
    pub(super) clients: Arc<dyn ClientStore>,
    pub(super) rates: Arc<dyn RateStore>,
    pub(super) grants: Arc<dyn GrantStore>,
    pub(super) refreshes: Arc<dyn RefreshStore>,
    pub(super) consents: Arc<dyn ConsentStore>,
    pub(super) limits: RegistrationLimits,
    pub(super) documents: Option<MetadataDocuments>,
}

impl std::fmt::Debug for AuthorizationServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorizationServer")
            .field("issuer", &self.metadata.issuer())
            .field("keyring", &self.keyring)
            .field("resource", &self.resource)
            .field("upstream", &self.upstream)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl AuthorizationServer {
    /// The authorization server `issuer` (the MCP server's origin, as a rule), signing with
    /// `keyring`, its stores in memory, for the resource `<issuer>/mcp`, with no upstream
    /// provider yet.
    pub fn new(issuer: impl Into<String>, keyring: Keyring) -> Self {
        let metadata = Metadata::new(issuer);
        Self {
            resource: format!("{}/mcp", metadata.issuer()),
            metadata,
            keyring,
            upstream: None,
            grant: Arc::new(|_: &Identity, requested: &[String]| Ok(requested.to_vec())),
            token_lifetime: Duration::from_secs(300),
            clients: Arc::new(MemoryClientStore::new()),
            rates: Arc::new(MemoryRateStore::new()),
            grants: Arc::new(MemoryGrantStore::new()),
            refreshes: Arc::new(MemoryRefreshStore::new()),
            consents: Arc::new(MemoryConsentStore::new()),
            limits: RegistrationLimits::default(),
            documents: None,
        }
    }

    /// The resource tokens are issued for (their audience, RFC 8707): the MCP endpoint's
    /// canonical URL (default `<issuer>/mcp`). An authorization request for another resource is
    /// refused with `invalid_target`.
    #[must_use]
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = resource.into();
        self
    }

    /// The identity provider users sign in with. Its redirect URI is phantom's
    /// `<issuer>/callback`, to register with the provider.
    #[must_use]
    pub fn upstream(mut self, upstream: Upstream) -> Self {
        self.upstream = Some(Arc::new(upstream));
        self
    }

    /// How a signed-in identity is granted scopes: `grant(identity, requested)` returns the
    /// scopes granted (shown on the consent page, then in tokens), or `Err(why)` to refuse the
    /// sign-in (`access_denied`, saying why). By default the requested scopes are granted. A
    /// panic refuses the sign-in (`server_error`).
    ///
    /// ```
    /// use phantom::authz::{AuthorizationServer, Identity, Keyring, SigningKey};
    ///
    /// let server = AuthorizationServer::new("https://mcp.example.com", Keyring::new(SigningKey::generate()))
    ///     .scopes(["notes:read", "notes:write"])
    ///     .grant(|identity: &Identity, requested: &[String]| {
    ///         match identity.email() {
    ///             Some(email) if email.ends_with("@example.com") => Ok(requested.to_vec()),
    ///             _ => Err("only example.com accounts may sign in".into()),
    ///         }
    ///     });
    /// # drop(server);
    /// ```
    #[must_use]
    pub fn grant<F>(mut self, grant: F) -> Self
    where
        F: Fn(&Identity, &[String]) -> Result<Vec<String>, String> + Send + Sync + 'static,
    {
        self.grant = Arc::new(grant);
        self
    }

    /// How long the access tokens issued are valid (default 5 minutes).
    #[must_use]
    pub fn token_lifetime(mut self, lifetime: Duration) -> Self {
        self.token_lifetime = lifetime;
        self
    }

    /// The scopes the app grants, published as `scopes_supported`.
    #[must_use]
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.metadata = self.metadata.scopes(scopes);
        self
    }

    /// Where registered clients are kept.
    #[must_use]
    pub fn clients(mut self, store: impl ClientStore) -> Self {
        self.clients = Arc::new(store);
        self
    }

    /// Where the registration rate is counted.
    #[must_use]
    pub fn rates(mut self, store: impl RateStore) -> Self {
        self.rates = Arc::new(store);
        self
    }

    /// Where pending authorizations, consent forms and codes are kept.
    #[must_use]
    pub fn grants(mut self, store: impl GrantStore) -> Self {
        self.grants = Arc::new(store);
        self
    }

    /// Where refresh-token families are kept.
    #[must_use]
    pub fn refreshes(mut self, store: impl RefreshStore) -> Self {
        self.refreshes = Arc::new(store);
        self
    }

    /// Where the consents users gave are remembered.
    #[must_use]
    pub fn consents(mut self, store: impl ConsentStore) -> Self {
        self.consents = Arc::new(store);
        self
    }

    /// The limits of dynamic registration.
    #[must_use]
    pub fn registration_limits(mut self, limits: RegistrationLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Serves clients whose `client_id` is an `https://` URL, their Client ID Metadata Document
    /// fetched and checked by `documents`; the metadata then says
    /// `client_id_metadata_document_supported` (with the feature `tls`).
    #[must_use]
    pub fn metadata_documents(mut self, documents: MetadataDocuments) -> Self {
        self.metadata = self
            .metadata
            .client_id_metadata_documents(MetadataDocuments::supported());
        self.documents = Some(documents);
        self
    }

    /// The metadata served.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The keyring tokens are signed with.
    pub fn keyring(&self) -> &Keyring {
        &self.keyring
    }

    /// The path of an endpoint on the issuer's origin: the issuer's path, then `end`.
    pub(super) fn path(&self, end: &str) -> String {
        let base = self.metadata.path();
        let under = base
            .strip_prefix("/.well-known/oauth-authorization-server")
            .unwrap_or_default();
        format!("{under}{end}")
    }

    /// The client `id` names: its registration, or, with [`metadata_documents`](Self::metadata_documents),
    /// the document an `https://` id is the URL of.
    pub(super) async fn client(&self, id: &str) -> Result<Registered, Unknown> {
        if id.starts_with("https://") {
            return match &self.documents {
                Some(documents) => documents.client(id).await.map_err(|e| Unknown::Refused(e.to_string())),
                None => Err(Unknown::Refused(
                    "`client_id` is a URL, and this server reads no client metadata documents: register the client".into(),
                )),
            };
        }
        match self.clients.client(id, self.limits.idle).await {
            Ok(Some(text)) => serde_json::from_str(&text).map_err(|_| Unknown::Unreadable),
            Ok(None) => Err(Unknown::Refused(
                "the client is not registered here (`client_id` is unknown, or its registration lapsed)".into(),
            )),
            Err(e) => Err(Unknown::Store(e)),
        }
    }

    /// The endpoints as an axum router, to merge beside the MCP endpoint.
    pub fn router(&self) -> axum::Router {
        let metadata: Arc<str> = Arc::from(self.metadata.to_json());
        let jwks: Arc<str> = Arc::from(self.keyring.jwks());
        let base = self.metadata.path();
        let under = self.path("");
        let this = self.clone();
        let queried = |answer: fn(Self, String) -> crate::kernel::BoxFuture<'static, Response>| {
            let this = self.clone();
            axum::routing::get(move |uri: http::Uri| {
                answer(this.clone(), uri.query().unwrap_or_default().to_owned())
            })
        };
        let posted = |answer: fn(
            Self,
            http::HeaderMap,
            axum::body::Bytes,
        ) -> crate::kernel::BoxFuture<'static, Response>| {
            let this = self.clone();
            axum::routing::post(move |request: axum::extract::Request| {
                let this = this.clone();
                async move {
                    let (parts, body) = request.into_parts();
                    match axum::body::to_bytes(body, MAX_FORM_BYTES).await {
                        Ok(body) => answer(this, parts.headers, body).await,
                        Err(_) => super::grant::error(
                            413,
                            "invalid_request",
                            &format!("the form is larger than {MAX_FORM_BYTES} bytes"),
                        ),
                    }
                }
            })
        };
        axum::Router::new()
            .route(
                &base,
                axum::routing::get(move || std::future::ready(document(&metadata))),
            )
            .route(
                &format!("{under}/jwks.json"),
                axum::routing::get(move || std::future::ready(document(&jwks))),
            )
            .route(
                &format!("{under}/register"),
                axum::routing::post(move |request: axum::extract::Request| {
                    let this = this.clone();
                    async move { this.registering(request).await }
                }),
            )
            .route(
                &format!("{under}/authorize"),
                queried(|this, query| Box::pin(async move { this.authorizing(&query).await })),
            )
            .route(
                &format!("{under}/callback"),
                queried(|this, query| Box::pin(async move { this.called_back(&query).await })),
            )
            .route(
                &format!("{under}/consent"),
                posted(|this, headers, body| {
                    Box::pin(async move { this.consenting(&headers, &body).await })
                }),
            )
            .route(
                &format!("{under}/token"),
                posted(|this, headers, body| {
                    Box::pin(async move { this.token(&headers, &body).await })
                }),
            )
            .route(
                &format!("{under}/revoke"),
                posted(|this, headers, body| {
                    Box::pin(async move { this.revoking(&headers, &body).await })
                }),
            )
    }

    async fn registering(&self, request: axum::extract::Request) -> Response {
        let answer = match axum::body::to_bytes(request.into_body(), MAX_REGISTRATION_BYTES).await {
            Ok(body) => {
                register::register(
                    &*self.clients,
                    &*self.rates,
                    self.limits,
                    &body,
                    seconds_now(),
                )
                .await
            }
            Err(_) => Answer::error(
                400,
                "invalid_client_metadata",
                format!("the registration is larger than {MAX_REGISTRATION_BYTES} bytes"),
            ),
        };
        answered(answer)
    }
}

pub(super) fn seconds_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A public JSON document, readable from any origin.
fn document(body: &str) -> Response {
    let mut response = Response::new(Body::from(body.to_owned()));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// An endpoint's answer: JSON, never cached.
pub(super) fn answered(answer: Answer) -> Response {
    let mut response = Response::new(Body::from(answer.body));
    *response.status_mut() =
        StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    if let Some(seconds) = answer.retry_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// Why [`AuthorizationServer::client`] found no client.
#[derive(Debug)]
pub(super) enum Unknown {
    /// Not registered, lapsed, or a metadata document refused: why, to show the user.
    Refused(String),
    /// The stored registration does not read.
    Unreadable,
    /// The client store failed.
    Store(crate::store::StoreError),
}
