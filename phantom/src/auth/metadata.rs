//! Where an authorization server publishes its metadata, for both of its readers: the client's
//! OAuth flow and `JwtVerifier::discover`.

/// The addresses of the metadata of the issuer at `origin` (`scheme://host[:port]`) with `path`,
/// in the order MCP clients try them: for an issuer with a path, RFC 8414 then OpenID Connect
/// Discovery with the path inserted after the well-known prefix, then OpenID appended to the
/// path; for one without, RFC 8414 then OpenID at the origin.
pub(crate) fn authorization_server_metadata(origin: &str, path: &str) -> Vec<String> {
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}
