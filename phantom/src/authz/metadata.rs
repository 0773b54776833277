//! [`Metadata`]: the RFC 8414 authorization server metadata document.

use serde::Serialize;

/// The authorization server's metadata (RFC 8414), served at
/// `/.well-known/oauth-authorization-server` under the issuer's origin (with the issuer's path
/// appended, for an issuer with one): the endpoints phantom serves under the issuer, authorization
/// code with PKCE (`S256` only) and refresh tokens, public clients (`none`) and confidential ones
/// (`client_secret_basic`, `client_secret_post`), and the scopes the app grants.
///
/// ```
/// use phantom::authz::Metadata;
///
/// let metadata = Metadata::new("https://mcp.example.com").scopes(["notes:read"]);
/// let document: serde_json::Value = serde_json::from_str(&metadata.to_json()).unwrap();
/// assert_eq!(document["token_endpoint"], "https://mcp.example.com/token");
/// assert_eq!(document["code_challenge_methods_supported"][0], "S256");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Metadata {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: String,
    revocation_endpoint: String,
    jwks_uri: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    scopes_supported: Vec<String>,
    response_types_supported: [&'static str; 1],
    response_modes_supported: [&'static str; 1],
    grant_types_supported: [&'static str; 2],
    code_challenge_methods_supported: [&'static str; 1],
    token_endpoint_auth_methods_supported: [&'static str; 3],
    revocation_endpoint_auth_methods_supported: [&'static str; 3],
    authorization_response_iss_parameter_supported: bool,
    client_id_metadata_document_supported: bool,
}

impl Metadata {
    /// The metadata of the issuer `issuer` (an `https://` URL, or `http://` for loopback; no
    /// query or fragment), its endpoints under it: `/authorize`, `/token`, `/register`,
    /// `/revoke`, `/jwks.json`.
    pub fn new(issuer: impl Into<String>) -> Self {
        let issuer = issuer.into().trim_end_matches('/').to_owned();
        let at = |path: &str| format!("{issuer}{path}");
        Self {
            authorization_endpoint: at("/authorize"),
            token_endpoint: at("/token"),
            registration_endpoint: at("/register"),
            revocation_endpoint: at("/revoke"),
            jwks_uri: at("/jwks.json"),
            issuer,
            scopes_supported: Vec::new(),
            response_types_supported: ["code"],
            response_modes_supported: ["query"],
            grant_types_supported: ["authorization_code", "refresh_token"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: [
                "none",
                "client_secret_basic",
                "client_secret_post",
            ],
            revocation_endpoint_auth_methods_supported: [
                "none",
                "client_secret_basic",
                "client_secret_post",
            ],
            authorization_response_iss_parameter_supported: true,
            // Client ID Metadata Documents are fetched only when the server is given
            // `MetadataDocuments` (`client_id_metadata_documents`).
            client_id_metadata_document_supported: false,
        }
    }

    /// The scopes the app grants (`scopes_supported`).
    #[must_use]
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Claims `client_id_metadata_document_supported`: `client_id`s that are `https://` URLs
    /// are served.
    pub(crate) fn client_id_metadata_documents(mut self, supported: bool) -> Self {
        self.client_id_metadata_document_supported = supported;
        self
    }

    /// The scopes the app grants.
    pub(crate) fn scopes_supported(&self) -> &[String] {
        &self.scopes_supported
    }

    /// The issuer, as tokens name it (`iss`).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The path this document is served at on the issuer's origin: RFC 8414's well-known
    /// prefix, then the issuer's path if it has one.
    pub fn path(&self) -> String {
        let after_scheme = self.issuer.split_once("://").map_or("", |(_, rest)| rest);
        let path = after_scheme.find('/').map_or("", |at| &after_scheme[at..]);
        format!("/.well-known/oauth-authorization-server{path}")
    }

    /// The document as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("the metadata is plain data")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_sit_under_the_issuer() {
        let metadata = Metadata::new("https://mcp.example.com/tenant1/");
        let document: serde_json::Value = serde_json::from_str(&metadata.to_json()).unwrap();
        assert_eq!(document["issuer"], "https://mcp.example.com/tenant1");
        assert_eq!(
            document["authorization_endpoint"],
            "https://mcp.example.com/tenant1/authorize"
        );
        assert_eq!(
            document["jwks_uri"],
            "https://mcp.example.com/tenant1/jwks.json"
        );
        assert_eq!(
            metadata.path(),
            "/.well-known/oauth-authorization-server/tenant1"
        );
        assert_eq!(
            Metadata::new("http://127.0.0.1:8080").path(),
            "/.well-known/oauth-authorization-server"
        );
    }

    #[test]
    fn pkce_is_s256_only_and_cimd_is_not_claimed() {
        let document: serde_json::Value =
            serde_json::from_str(&Metadata::new("https://a.example").to_json()).unwrap();
        assert_eq!(
            document["code_challenge_methods_supported"],
            serde_json::json!(["S256"])
        );
        assert_eq!(
            document["response_types_supported"],
            serde_json::json!(["code"])
        );
        assert_eq!(document["client_id_metadata_document_supported"], false);
        assert!(document.get("scopes_supported").is_none());
        let scoped = Metadata::new("https://a.example").scopes(["a", "b"]);
        assert_eq!(scoped.scopes_supported, ["a", "b"]);
    }
}
