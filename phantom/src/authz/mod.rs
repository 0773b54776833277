//! An OAuth 2.1 authorization server in front of the identity provider a team already has
//! (feature `authz`): phantom signs MCP clients in and issues tokens of its own, so the
//! upstream's tokens never reach them.
//!
//! What is here so far:
//!
//! - [`Keyring`] and [`SigningKey`]: the ES256 keys phantom signs its access tokens with, one
//!   signing and the ones it replaced still published, shared by every node through
//!   configuration ([`SigningKey::from_base64url`]), published as a JWKS
//!   ([`Keyring::jwks`]) and trusted by the same app's resource-server side without
//!   configuration ([`Keyring::verifier`]);
//! - [`AccessToken`]: a short-lived JWT (RFC 9068) for one resource, issued by
//!   [`Keyring::issue`];
//! - [`Metadata`]: the RFC 8414 authorization server metadata document;
//! - [`MetadataDocuments`]: Client ID Metadata Documents fetched behind SSRF guards (an
//!   injectable [`Resolve`]r, every address vetted and the connection pinned to it), within
//!   [`DocumentLimits`], kept by their HTTP caching headers; [`CimdError`] says why one is refused;
//! - [`Upstream`]: the identity provider users sign in through, with the team's fixed
//!   credentials (any OpenID Connect provider by discovery, or the Google and GitHub presets),
//!   and who signed in there ([`Identity`], mapped to scopes by the app with
//!   [`AuthorizationServer::grant`]) or why not ([`UpstreamError`]);
//! - [`AuthorizationServer`]: the endpoints served as an axum router (the metadata, the JWKS,
//!   dynamic client registration within [`RegistrationLimits`], and the sign-in: the
//!   authorization request, the [`Upstream`] provider's callback, the consent page, the token
//!   and revocation endpoints), merged beside the MCP endpoint.
//!
//! Its state (registered clients, pending authorizations and codes, refresh-token families,
//! consents) crosses the store seams [`ClientStore`](crate::store::ClientStore),
//! [`GrantStore`](crate::store::GrantStore), [`RefreshStore`](crate::store::RefreshStore) and
//! [`ConsentStore`](crate::store::ConsentStore), so each step of a sign-in may land on another
//! node.

mod authorize;
mod cimd;
mod consent;
mod grant;
mod keys;
mod metadata;
mod register;
mod revoke;
mod server;
mod token;
mod upstream;
mod web;

pub use cimd::{CimdError, DocumentLimits, MetadataDocuments, Resolve};
pub use keys::{InvalidKey, Keyring, SigningKey};
pub use metadata::Metadata;
pub use register::{MAX_REDIRECT_URIS, MAX_REGISTRATION_BYTES, RegistrationLimits};
pub use server::AuthorizationServer;
pub use token::AccessToken;
pub use upstream::{Identity, Upstream, UpstreamError};
