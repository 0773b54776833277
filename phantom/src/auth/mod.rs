//! Authorization, as an OAuth 2.1 resource server: a [`TokenVerifier`] seam that turns a bearer
//! token into an [`AuthInfo`], [`BearerAuth`] (the verifier, the metadata URL and the scopes every
//! request needs, set with [`Config::bearer_auth`](crate::Config::bearer_auth)), a constant-time
//! table of opaque tokens ([`StaticTokens`]), a JWT verifier behind the `jwt` feature
//! (`JwtVerifier`: a JWKS given, or discovered from the issuer and followed as it rotates its
//! keys), and the RFC 6750 / RFC 9728 challenges.
//!
//! With a `BearerAuth` configured, phantom verifies the `Authorization: Bearer` token of every
//! request before `connect` runs: over HTTP, and in the in-process
//! [`testing::Client`](crate::testing::Client) (its requests are HTTP ones unless it is built with
//! [`Transport::Stdio`](crate::dispatch::Transport)):
//!
//! | the request | the answer |
//! |---|---|
//! | no bearer token | 401, `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` |
//! | a token the verifier refuses (expired, another audience, a bad signature, unknown) | 401, `error="invalid_token"` and why |
//! | a token without a scope every request needs | 403, `error="insufficient_scope"` |
//! | a tool whose `#[tool(scopes = […])]` the token does not grant | 403, `error="insufficient_scope"` naming the scopes |
//!
//! Otherwise the session's [`principal`](crate::Session::principal) is the token's subject and
//! [`Session::auth`](crate::Session::auth) holds what the verifier found, for `connect` and every
//! handler. A legacy session stays bound to the subject that opened it: a token of another subject
//! on it is answered as if the session did not exist (404). stdio has no headers: nothing is
//! verified there, and `connect` sets `session.auth` from the process's environment if tools with
//! scopes are to be callable (`examples/roles.rs` does both, with one [`StaticTokens`] table).

mod challenge;
#[cfg(feature = "jwt")]
mod discover;
#[cfg(feature = "jwt")]
mod jwt;
#[cfg(any(feature = "jwt", feature = "oauth"))]
mod metadata;
mod verify;

pub use crate::kernel::WwwAuthenticate;
pub use challenge::{Bearer, ProtectedResource};
#[cfg(feature = "jwt")]
pub use discover::DiscoveryError;
#[cfg(feature = "jwt")]
pub use jwt::{InvalidJwks, JwtVerifier};
#[cfg(any(feature = "jwt", feature = "oauth"))]
pub(crate) use metadata::authorization_server_metadata;
pub use verify::{AuthInfo, BearerAuth, InvalidToken, StaticTokens, TokenVerifier};
pub(crate) use verify::{check_scopes, grants, insufficient_scope};
