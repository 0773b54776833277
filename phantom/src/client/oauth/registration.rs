//! Who the client is to the authorization server: pre-registered credentials, a Client ID
//! Metadata Document URL, or a dynamic registration (RFC 7591).

use serde_json::{Value, json};

use super::OAuth;
use super::discovery::Server;
use super::fetch::Fetch;
use super::store::IssuedTo;
use crate::client::{AuthStep, ClientError};

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    /// `client_secret_basic`: HTTP Basic.
    Basic,
    /// `client_secret_post`: the secret in the form.
    Post,
    /// `none`: a public client, its id in the form.
    None,
}

impl Method {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(Self::Basic),
            "client_secret_post" => Some(Self::Post),
            "none" => Some(Self::None),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Basic => "client_secret_basic",
            Self::Post => "client_secret_post",
            Self::None => "none",
        }
    }
}

/// The client's identity at one authorization server.
#[derive(Clone)]
pub(super) struct Identity {
    /// The issuer it is valid at (registration again when the server changes).
    pub(super) issuer: String,
    pub(super) client_id: String,
    pub(super) client_secret: Option<String>,
    pub(super) method: Method,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("method", &self.method)
            .finish()
    }
}

impl Identity {
    /// The record kept with the tokens issued to this client.
    pub(super) fn issued_to(&self) -> IssuedTo {
        IssuedTo {
            issuer: self.issuer.clone(),
            client_id: self.client_id.clone(),
            client_secret: self.client_secret.clone(),
            method: self.method.name().to_owned(),
        }
    }

    /// The identity the kept tokens were issued to, if it is one at `issuer` this client speaks.
    pub(super) fn kept(client: &IssuedTo, issuer: &str) -> Option<Self> {
        (client.issuer == issuer).then_some(())?;
        Some(Self {
            issuer: client.issuer.clone(),
            client_id: client.client_id.clone(),
            client_secret: client.client_secret.clone(),
            method: Method::parse(&client.method)?,
        })
    }
}

fn registration(message: impl std::fmt::Display) -> ClientError {
    ClientError::auth(AuthStep::Registration, message)
}

/// The method to use with a secret or without one, among those the server supports
/// (RFC 8414's default: `client_secret_basic`).
fn choose(server: &Server, secret: bool) -> Method {
    if !secret {
        return Method::None;
    }
    let supported = server.token_endpoint_auth_methods.as_deref().unwrap_or(&[]);
    let has = |m: Method| supported.iter().any(|s| s == m.name());
    if has(Method::Basic) || supported.is_empty() {
        Method::Basic
    } else if has(Method::Post) {
        Method::Post
    } else {
        Method::Basic
    }
}

/// The method to ask for when registering: `none` (a public client, as a native app is) when
/// the server supports it, else the first of its methods this client speaks.
fn wanted(server: &Server) -> Method {
    match server.token_endpoint_auth_methods.as_deref() {
        None => Method::None,
        Some(supported) => {
            if supported.iter().any(|s| s == "none") {
                Method::None
            } else {
                supported
                    .iter()
                    .find_map(|s| Method::parse(s))
                    .unwrap_or(Method::Basic)
            }
        }
    }
}

/// The client's identity at `server`: the configured credentials, else the metadata document
/// URL when the server takes one, else a dynamic registration.
pub(super) async fn identity(
    fetch: &Fetch,
    config: &OAuth,
    server: &Server,
) -> Result<Identity, ClientError> {
    if let Some((id, secret)) = &config.credentials {
        return Ok(Identity {
            issuer: server.issuer.clone(),
            client_id: id.clone(),
            client_secret: secret.clone(),
            method: choose(server, secret.is_some()),
        });
    }
    if server.cimd_supported
        && let Some(url) = &config.client_metadata_url
    {
        return Ok(Identity {
            issuer: server.issuer.clone(),
            client_id: url.clone(),
            client_secret: None,
            method: Method::None,
        });
    }
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(registration(format!(
            "`{}` offers no dynamic registration, and the client has no credentials for it (`OAuth::credentials`) or no metadata document it takes (`OAuth::client_metadata_url`)",
            server.issuer
        )));
    };
    let wanted = wanted(server);
    let mut grant_types = vec!["authorization_code"];
    if server
        .scopes_supported
        .as_deref()
        .is_none_or(|s| s.iter().any(|s| s == "offline_access"))
    {
        grant_types.push("refresh_token");
    }
    let body = json!({
        "client_name": config.client_name,
        "redirect_uris": [config.redirect_uri],
        "grant_types": grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": wanted.name(),
        "application_type": application_type(&config.redirect_uri),
    });
    let (status, answer) = fetch
        .post_json(endpoint, &body)
        .await
        .map_err(registration)?;
    if !status.is_success() {
        return Err(registration(format!(
            "{endpoint} refused the registration: HTTP {status}: {}",
            oauth_error(&answer)
        )));
    }
    let client_id = answer["client_id"]
        .as_str()
        .ok_or_else(|| registration(format!("{endpoint} answered with no `client_id`")))?;
    let client_secret = answer["client_secret"].as_str().map(str::to_owned);
    let method = match answer["token_endpoint_auth_method"].as_str() {
        Some(name) => Method::parse(name).ok_or_else(|| {
            registration(format!(
                "{endpoint} registered the client for `{name}`, which this client does not speak"
            ))
        })?,
        None => wanted,
    };
    let method = if method != Method::None && client_secret.is_none() {
        Method::None
    } else {
        method
    };
    tracing::debug!(%endpoint, method = method.name(), "client registered");
    Ok(Identity {
        issuer: server.issuer.clone(),
        client_id: client_id.to_owned(),
        client_secret: if method == Method::None {
            None
        } else {
            client_secret
        },
        method,
    })
}

/// `native` for a loopback or custom-scheme redirect (a CLI, a desktop app), else `web`
/// (OpenID Connect Dynamic Registration; MCP 2026-07-28 asks for it, older servers ignore it).
fn application_type(redirect_uri: &str) -> &'static str {
    match oauth2::url::Url::parse(redirect_uri) {
        Ok(url) if url.scheme() == "https" => match url.host_str() {
            Some("localhost" | "127.0.0.1" | "[::1]") => "native",
            _ => "web",
        },
        _ => "native",
    }
}

/// An OAuth error answer's `error` and `error_description`, for a message.
pub(super) fn oauth_error(answer: &Value) -> String {
    match (
        answer["error"].as_str(),
        answer["error_description"].as_str(),
    ) {
        (Some(e), Some(d)) => format!("{e}: {d}"),
        (Some(e), None) => e.to_owned(),
        _ => "no OAuth error in the answer".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_custom_schemes_are_native() {
        assert_eq!(application_type("http://localhost:3000/callback"), "native");
        assert_eq!(application_type("http://127.0.0.1:9/cb"), "native");
        assert_eq!(application_type("com.example.app:/cb"), "native");
        assert_eq!(application_type("https://app.example.com/cb"), "web");
    }

    #[test]
    fn a_secret_goes_the_way_the_server_takes_it() {
        let mut server = Server::default();
        assert_eq!(choose(&server, true), Method::Basic);
        assert_eq!(choose(&server, false), Method::None);
        server.token_endpoint_auth_methods = Some(vec!["client_secret_post".into()]);
        assert_eq!(choose(&server, true), Method::Post);
    }
}
