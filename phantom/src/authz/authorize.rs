//! `GET <issuer path>/authorize` (the MCP client's authorization request, RFC 6749 §4.1.1 with
//! PKCE and RFC 8707's `resource`) and `GET <issuer path>/callback` (the upstream provider's
//! answer): the records they leave in the [`GrantStore`](crate::store::GrantStore) for the next
//! step, on whichever node it lands.

use std::time::Duration;

use axum::response::Response;
use http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::AuthorizationServer;
use super::register::{Registered, loopback_host};
use super::server::Unknown;
use super::upstream::Started;
use super::web::{self, page, redirect, with_query};

/// How long a pending authorization waits for the upstream provider's callback, and a consent
/// form for its answer.
pub(super) const SIGN_IN: Duration = Duration::from_secs(600);

/// What the MCP client asked for, once checked.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Asked {
    pub(super) client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) client_name: Option<String>,
    pub(super) redirect_uri: String,
    /// Whether the request named the redirect URI (then the token request must name it too).
    pub(super) redirect_uri_given: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) state: Option<String>,
    /// The client's PKCE challenge (S256).
    pub(super) code_challenge: String,
    pub(super) scopes: Vec<String>,
    pub(super) resource: String,
}

/// An authorization waiting for the upstream provider, by the `state` phantom sent it.
#[derive(Debug, Serialize, Deserialize)]
struct Pending {
    asked: Asked,
    started: Started,
}

/// A user signed in for a request: who, the claims tokens carry, the scopes the app grants. The
/// record of a consent form, of a code and of a refresh-token family.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Signed {
    pub(super) asked: Asked,
    pub(super) subject: String,
    /// The identity's claims carried in access tokens (`email`, `name`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub(super) claims: Map<String, Value>,
    pub(super) scopes: Vec<String>,
}

/// Whether the redirect URI `given` is the registered one: the same text, or for `http://` to a
/// loopback host the same host and path on any port (RFC 8252 §7.3).
pub(super) fn redirect_matches(registered: &str, given: &str) -> bool {
    if registered == given {
        return true;
    }
    match (loopback_parts(registered), loopback_parts(given)) {
        (Some((host, path)), Some((given_host, given_path))) => {
            host.eq_ignore_ascii_case(given_host) && path == given_path
        }
        _ => false,
    }
}

/// The loopback host and what follows the authority, of an `http://` URI to a loopback host
/// with a port or none.
fn loopback_parts(uri: &str) -> Option<(&str, &str)> {
    let rest = uri.strip_prefix("http://")?;
    let (authority, path) = rest
        .find(['/', '?'])
        .map_or((rest, ""), |at| rest.split_at(at));
    let host = loopback_host(authority)?;
    let port = &authority[host.len()..];
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    port_ok.then_some((host, path))
}

impl AuthorizationServer {
    /// Where the browser goes back to the client with an error (RFC 6749 §4.1.2.1, with `iss`).
    pub(super) fn refused(&self, asked: &Asked, error: &str, description: &str) -> Response {
        let mut pairs = vec![("error", error), ("error_description", description)];
        if let Some(state) = &asked.state {
            pairs.push(("state", state));
        }
        pairs.push(("iss", self.metadata.issuer()));
        redirect(&with_query(&asked.redirect_uri, &pairs))
    }

    /// The upstream provider's redirect URI: phantom's own callback.
    pub(super) fn callback_uri(&self) -> String {
        format!("{}/callback", self.metadata.issuer())
    }

    /// `GET /authorize`: checks the request (an error page while the client or its redirect URI
    /// is not established, then errors sent back to it), keeps it pending under a fresh `state`
    /// and sends the browser to the upstream provider.
    pub(super) async fn authorizing(&self, query: &str) -> Response {
        let failed = |status, message: &str| page(status, "Sign-in failed", message);
        let params = match web::params(query) {
            Ok(params) => params,
            Err(why) => return failed(StatusCode::BAD_REQUEST, &why),
        };
        let Some(client_id) = params.get("client_id") else {
            return failed(
                StatusCode::BAD_REQUEST,
                "The request names no client: `client_id` is missing.",
            );
        };
        let client: Registered = match self.client(client_id).await {
            Ok(client) => client,
            Err(Unknown::Refused(why)) => {
                return failed(
                    StatusCode::BAD_REQUEST,
                    &format!("The client cannot sign in here: {why}."),
                );
            }
            Err(Unknown::Unreadable) => {
                return failed(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "The client's registration cannot be read.",
                );
            }
            Err(Unknown::Store(e)) => {
                tracing::warn!(error = %e, "the client store failed at an authorization request");
                return failed(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The sign-in cannot start now: try again later.",
                );
            }
        };
        let redirect_uri = match params.get("redirect_uri") {
            Some(uri)
                if client
                    .redirect_uris
                    .iter()
                    .any(|r| redirect_matches(r, uri)) =>
            {
                uri.clone()
            }
            Some(_) => {
                return failed(
                    StatusCode::BAD_REQUEST,
                    "The `redirect_uri` is not one the client registered.",
                );
            }
            None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
            None => {
                return failed(
                    StatusCode::BAD_REQUEST,
                    "The request has no `redirect_uri`, and the client registered several.",
                );
            }
        };
        let mut asked = Asked {
            client_id: client_id.clone(),
            client_name: client.client_name.clone(),
            redirect_uri,
            redirect_uri_given: params.contains_key("redirect_uri"),
            state: params.get("state").cloned(),
            code_challenge: String::new(),
            scopes: Vec::new(),
            resource: self.resource.clone(),
        };
        match params.get("response_type").map(String::as_str) {
            Some("code") => {}
            Some(_) => {
                return self.refused(
                    &asked,
                    "unsupported_response_type",
                    "only `response_type=code` is supported",
                );
            }
            None => {
                return self.refused(&asked, "invalid_request", "`response_type` is missing");
            }
        }
        match (
            params.get("code_challenge"),
            params.get("code_challenge_method").map(String::as_str),
        ) {
            (Some(challenge), Some("S256")) if challenge.len() == 43 => {
                asked.code_challenge.clone_from(challenge);
            }
            (Some(_), Some("S256")) => {
                return self.refused(
                    &asked,
                    "invalid_request",
                    "`code_challenge` is not a base64url SHA-256 (43 characters)",
                );
            }
            (None, _) => {
                return self.refused(
                    &asked,
                    "invalid_request",
                    "PKCE is required: `code_challenge` is missing",
                );
            }
            (Some(_), _) => {
                return self.refused(
                    &asked,
                    "invalid_request",
                    "`code_challenge_method` must be `S256`",
                );
            }
        }
        if let Some(resource) = params.get("resource")
            && *resource != self.resource
        {
            return self.refused(
                &asked,
                "invalid_target",
                &format!("`resource` must be `{}`", self.resource),
            );
        }
        let supported = self.metadata.scopes_supported();
        asked.scopes = match params.get("scope").or(client.scope.as_ref()) {
            Some(scope) => {
                let mut scopes: Vec<String> = Vec::new();
                for scope in scope.split_ascii_whitespace() {
                    if !scopes.iter().any(|s| s == scope) {
                        scopes.push(scope.to_owned());
                    }
                }
                scopes
            }
            None => supported.to_vec(),
        };
        if !supported.is_empty()
            && let Some(unknown) = asked.scopes.iter().find(|s| !supported.contains(s))
        {
            return self.refused(
                &asked,
                "invalid_scope",
                &format!("scope `{unknown}` is not one this server grants"),
            );
        }
        let Some(upstream) = &self.upstream else {
            return self.refused(&asked, "server_error", "no identity provider is configured");
        };
        let state = crate::kernel::random_id::<32>();
        let started = match upstream.start(&self.callback_uri(), &state).await {
            Ok(started) => started,
            Err(e) => {
                tracing::warn!(error = %e, "the identity provider could not start a sign-in");
                let error = if e.is_unreachable() {
                    "temporarily_unavailable"
                } else {
                    "server_error"
                };
                return self.refused(&asked, error, "the identity provider could not be reached");
            }
        };
        let url = started.url.clone();
        let pending = serde_json::to_string(&Pending { asked, started })
            .expect("a pending authorization is plain data");
        if let Err(e) = self
            .grants
            .put(&format!("pending:{state}"), &pending, SIGN_IN)
            .await
        {
            tracing::warn!(error = %e, "the grant store failed at an authorization request");
            let asked: Pending = serde_json::from_str(&pending).expect("just written");
            return self.refused(
                &asked.asked,
                "temporarily_unavailable",
                "the sign-in cannot be kept now: try again later",
            );
        }
        redirect(&url)
    }

    /// `GET /callback`: the upstream provider's answer. The pending authorization is taken by its
    /// `state` (an unknown or used one is an error page); the identity is confirmed and mapped to
    /// scopes; then the consent page, or a code when the user consented before.
    pub(super) async fn called_back(&self, query: &str) -> Response {
        let failed = |status, message: &str| page(status, "Sign-in failed", message);
        let params = match web::params(query) {
            Ok(params) => params,
            Err(why) => return failed(StatusCode::BAD_REQUEST, &why),
        };
        let Some(state) = params.get("state") else {
            return failed(
                StatusCode::BAD_REQUEST,
                "The identity provider's answer has no `state`.",
            );
        };
        let pending: Pending = match self.grants.take(&format!("pending:{state}")).await {
            Ok(Some(text)) => match serde_json::from_str(&text) {
                Ok(pending) => pending,
                Err(_) => {
                    return failed(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "The pending sign-in cannot be read.",
                    );
                }
            },
            Ok(None) => {
                return failed(
                    StatusCode::BAD_REQUEST,
                    "This sign-in is unknown, expired or finished already: start again from the application.",
                );
            }
            Err(e) => {
                tracing::warn!(error = %e, "the grant store failed at the upstream callback");
                return failed(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The sign-in cannot go on now: try again later.",
                );
            }
        };
        let asked = pending.asked;
        if let Some(error) = params.get("error") {
            tracing::debug!(upstream_error = %error, "the identity provider refused a sign-in");
            return self.refused(
                &asked,
                "access_denied",
                "the identity provider did not sign the user in",
            );
        }
        let Some(code) = params.get("code") else {
            return self.refused(
                &asked,
                "access_denied",
                "the identity provider's answer has no code",
            );
        };
        let Some(upstream) = &self.upstream else {
            return self.refused(&asked, "server_error", "no identity provider is configured");
        };
        let identity = match upstream
            .finish(&self.callback_uri(), code, &pending.started)
            .await
        {
            Ok(identity) => identity,
            Err(e) => {
                tracing::warn!(error = %e, "the identity provider could not finish a sign-in");
                let error = if e.is_unreachable() {
                    "temporarily_unavailable"
                } else {
                    "server_error"
                };
                return self.refused(
                    &asked,
                    error,
                    "the identity provider could not confirm the sign-in",
                );
            }
        };
        let grant = &self.grant;
        let granted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            grant(&identity, &asked.scopes)
        }));
        let scopes = match granted {
            Ok(Ok(scopes)) => scopes,
            Ok(Err(why)) => return self.refused(&asked, "access_denied", &why),
            Err(_) => {
                crate::kernel::exception("authorization server", "grant");
                return self.refused(&asked, "server_error", "the scopes could not be granted");
            }
        };
        let mut claims = Map::new();
        for (name, value) in [("email", identity.email()), ("name", identity.name())] {
            if let Some(value) = value {
                claims.insert(name.to_owned(), Value::from(value));
            }
        }
        let signed = Signed {
            subject: identity.subject().to_owned(),
            claims,
            scopes,
            asked,
        };
        self.asking(signed).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_match_exactly_but_for_a_loopback_port() {
        for (registered, given, same) in [
            ("https://app.example/cb", "https://app.example/cb", true),
            ("https://app.example/cb", "https://app.example/cb/", false),
            (
                "https://app.example/cb",
                "https://app.example:8443/cb",
                false,
            ),
            ("https://app.example/cb", "https://evil.example/cb", false),
            ("http://127.0.0.1/cb", "http://127.0.0.1:5173/cb", true),
            ("http://127.0.0.1:1/cb", "http://127.0.0.1:5173/cb", true),
            ("http://[::1]/cb", "http://[::1]:80/cb", true),
            ("http://localhost/cb", "http://127.0.0.1/cb", false),
            ("http://127.0.0.1/cb", "http://127.0.0.1:5173/other", false),
            (
                "http://127.0.0.1/cb",
                "http://127.0.0.1.evil.example/cb",
                false,
            ),
            (
                "http://127.0.0.1/cb",
                "http://127.0.0.1:x@evil.example/cb",
                false,
            ),
        ] {
            assert_eq!(
                redirect_matches(registered, given),
                same,
                "{registered} {given}"
            );
        }
    }
}
