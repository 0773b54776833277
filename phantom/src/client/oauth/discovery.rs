//! Where to authorize: the protected resource's metadata (RFC 9728), then its authorization
//! server's (RFC 8414 and OpenID discovery, with the path-insertion variants), each checked.

use oauth2::url::Url;
use serde_json::Value;

use super::fetch::Fetch;
use crate::client::{AuthStep, ClientError};

/// What the protected resource publishes about itself.
#[derive(Debug, Clone)]
pub(super) struct Resource {
    /// Its identifier, exactly as published (sent as the RFC 8707 `resource`).
    pub(super) resource: String,
    /// The authorization server to use (the first listed).
    pub(super) issuer: String,
    pub(super) scopes_supported: Option<Vec<String>>,
}

/// What the authorization server publishes (the fields the flow reads).
#[derive(Debug, Clone, Default)]
pub(super) struct Server {
    pub(super) issuer: String,
    pub(super) authorization_endpoint: String,
    pub(super) token_endpoint: String,
    pub(super) registration_endpoint: Option<String>,
    pub(super) scopes_supported: Option<Vec<String>>,
    pub(super) token_endpoint_auth_methods: Option<Vec<String>>,
    pub(super) cimd_supported: bool,
    pub(super) iss_parameter_supported: bool,
    pub(super) pkce_s256: bool,
}

fn discovery(message: impl std::fmt::Display) -> ClientError {
    ClientError::auth(AuthStep::Discovery, message)
}

fn strings(value: &Value) -> Option<Vec<String>> {
    value.as_array().map(|list| {
        list.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
}

/// The protected resource metadata of the MCP server at `server`: at the URL the challenge
/// named, else path-based, else at the root. `None` when there is none (a 2025-03-26 server).
/// Its `resource` must be `server` or a parent of it on the same origin, else the metadata is
/// refused.
pub(super) async fn resource(
    fetch: &Fetch,
    server: &Url,
    named: Option<&str>,
) -> Result<Option<Resource>, ClientError> {
    let mut candidates = Vec::new();
    if let Some(named) = named {
        candidates.push(named.to_owned());
    }
    let path = server.path().trim_end_matches('/');
    let origin = origin(server);
    if !path.is_empty() {
        candidates.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    candidates.push(format!("{origin}/.well-known/oauth-protected-resource"));
    for url in candidates {
        let Some(document) = fetch.json(&url).await.map_err(discovery)? else {
            continue;
        };
        tracing::debug!(%url, "protected resource metadata found");
        let resource = document["resource"]
            .as_str()
            .ok_or_else(|| discovery(format!("{url} has no `resource`")))?;
        if !covers(resource, server) {
            return Err(discovery(format!(
                "the protected resource metadata at {url} is for `{resource}`, not for `{server}`"
            )));
        }
        let issuer = document["authorization_servers"]
            .as_array()
            .and_then(|list| list.first())
            .and_then(Value::as_str)
            .ok_or_else(|| discovery(format!("{url} lists no `authorization_servers`")))?;
        return Ok(Some(Resource {
            resource: resource.to_owned(),
            issuer: issuer.to_owned(),
            scopes_supported: strings(&document["scopes_supported"]),
        }));
    }
    Ok(None)
}

/// Whether the resource identifier `resource` names `server`: same scheme, host and port, and
/// its path `server`'s or a parent of it (segment-wise).
fn covers(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.scheme() != server.scheme()
        || resource.host_str() != server.host_str()
        || resource.port_or_known_default() != server.port_or_known_default()
    {
        return false;
    }
    let parent = resource.path().trim_end_matches('/');
    let path = server.path().trim_end_matches('/');
    path == parent || path.starts_with(&format!("{parent}/"))
}

/// `scheme://host[:port]`, no trailing slash.
pub(super) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// The authorization server metadata of `issuer`: RFC 8414 then OpenID discovery, path
/// inserted after the well-known prefix, then OpenID appended to the issuer's path. Its
/// `issuer` must be `issuer` (RFC 8414 §3.3) when `issuer` is one a resource named; a
/// 2025-03-26 server's (`named` false: its origin, which names no issuer) is taken as it says.
/// `None` when no document is found.
pub(super) async fn server(
    fetch: &Fetch,
    issuer: &str,
    named: bool,
) -> Result<Option<Server>, ClientError> {
    let url = Url::parse(issuer)
        .map_err(|e| discovery(format!("the issuer `{issuer}` is not a URL: {e}")))?;
    let candidates = crate::auth::authorization_server_metadata(&origin(&url), url.path());
    for candidate in candidates {
        let Some(document) = fetch.json(&candidate).await.map_err(discovery)? else {
            continue;
        };
        let found = document["issuer"].as_str().unwrap_or_default();
        if named && found != issuer && found.trim_end_matches('/') != issuer.trim_end_matches('/') {
            return Err(discovery(format!(
                "the authorization server metadata at {candidate} names the issuer `{found}`, not `{issuer}`"
            )));
        }
        let endpoint = |name: &str| {
            document[name]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| discovery(format!("{candidate} has no `{name}`")))
        };
        tracing::debug!(url = %candidate, "authorization server metadata found");
        return Ok(Some(Server {
            issuer: if found.is_empty() { issuer } else { found }.to_owned(),
            authorization_endpoint: endpoint("authorization_endpoint")?,
            token_endpoint: endpoint("token_endpoint")?,
            registration_endpoint: document["registration_endpoint"]
                .as_str()
                .map(str::to_owned),
            scopes_supported: strings(&document["scopes_supported"]),
            token_endpoint_auth_methods: strings(
                &document["token_endpoint_auth_methods_supported"],
            ),
            cimd_supported: document["client_id_metadata_document_supported"] == true,
            iss_parameter_supported: document["authorization_response_iss_parameter_supported"]
                == true,
            pkce_s256: strings(&document["code_challenge_methods_supported"])
                .is_none_or(|methods| methods.iter().any(|m| m == "S256")),
        }));
    }
    Ok(None)
}

/// A 2025-03-26 server with no metadata at all: the default endpoints at the root of the
/// server's origin.
pub(super) fn fallback(origin: &str) -> Server {
    Server {
        issuer: origin.to_owned(),
        authorization_endpoint: format!("{origin}/authorize"),
        token_endpoint: format!("{origin}/token"),
        registration_endpoint: Some(format!("{origin}/register")),
        pkce_s256: true,
        ..Server::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_covers_its_url_and_the_urls_below_it() {
        let server = Url::parse("http://localhost:3000/mcp").unwrap();
        assert!(covers("http://localhost:3000/mcp", &server));
        assert!(covers("http://localhost:3000", &server));
        assert!(covers("http://localhost:3000/", &server));
        assert!(!covers("https://evil.example.com/mcp", &server));
        assert!(!covers("http://localhost:3001/mcp", &server));
        assert!(!covers("http://localhost:3000/mc", &server));
        assert!(!covers("http://localhost:3000/mcp/other", &server));
    }
}
