//! [`AuthorizationServer`]: the endpoints served, as an axum router.

use std::sync::Arc;

use axum::body::Body;
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};

use super::register::{self, Answer, MAX_REGISTRATION_BYTES};
use super::{Keyring, Metadata, MetadataDocuments, RegistrationLimits};
use crate::store::{ClientStore, MemoryClientStore, MemoryRateStore, RateStore};

/// phantom's authorization server: its metadata, its keyring and the stores its state crosses.
/// [`router`](Self::router) serves, under the issuer's origin:
///
/// | route | what it answers |
/// |---|---|
/// | `GET /.well-known/oauth-authorization-server[/<issuer path>]` | the [`Metadata`] (RFC 8414) |
/// | `GET <issuer path>/jwks.json` | the [`Keyring`]'s public keys |
/// | `POST <issuer path>/register` | dynamic client registration (RFC 7591), within [`RegistrationLimits`] |
///
/// Every answer carries `Cache-Control: no-store` except the two documents, which any origin may
/// read. The stores are in memory by default; nodes that share the work share them
/// ([`clients`](Self::clients), [`rates`](Self::rates)).
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
    metadata: Metadata,
    keyring: Keyring,
    clients: Arc<dyn ClientStore>,
    rates: Arc<dyn RateStore>,
    limits: RegistrationLimits,
    documents: Option<MetadataDocuments>,
}

impl std::fmt::Debug for AuthorizationServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorizationServer")
            .field("issuer", &self.metadata.issuer())
            .field("keyring", &self.keyring)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl AuthorizationServer {
    /// The authorization server `issuer` (the MCP server's origin, as a rule), signing with
    /// `keyring`, its stores in memory.
    pub fn new(issuer: impl Into<String>, keyring: Keyring) -> Self {
        Self {
            metadata: Metadata::new(issuer),
            keyring,
            clients: Arc::new(MemoryClientStore::new()),
            rates: Arc::new(MemoryRateStore::new()),
            limits: RegistrationLimits::default(),
            documents: None,
        }
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

    /// The endpoints as an axum router, to merge beside the MCP endpoint.
    pub fn router(&self) -> axum::Router {
        let metadata: Arc<str> = Arc::from(self.metadata.to_json());
        let jwks: Arc<str> = Arc::from(self.keyring.jwks());
        let base = self.metadata.path();
        let under = base
            .strip_prefix("/.well-known/oauth-authorization-server")
            .unwrap_or_default()
            .to_owned();
        let this = self.clone();
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

fn seconds_now() -> u64 {
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
fn answered(answer: Answer) -> Response {
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
