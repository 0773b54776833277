//! What [`JwtVerifier::discover`](super::JwtVerifier::discover) reads from an issuer: its
//! authorization server metadata (RFC 8414 or OpenID discovery), which names its `jwks_uri`, and
//! the JWKS there; each GET bounded in time and size ([`Fetch`]).

use crate::kernel::Fetch;

/// Why [`JwtVerifier::discover`](super::JwtVerifier::discover) could not trust an issuer's keys:
/// the issuer, the URL being read and what was wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("discovering the keys of the issuer `{issuer}`: {url}: {problem}")]
pub struct DiscoveryError {
    issuer: String,
    url: String,
    problem: String,
}

impl DiscoveryError {
    pub(super) fn new(issuer: &str, url: &str, problem: impl Into<String>) -> Self {
        Self {
            issuer: issuer.to_owned(),
            url: url.to_owned(),
            problem: problem.into(),
        }
    }

    /// The issuer given to `discover`.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The URL that failed: the issuer itself, a metadata address, or the `jwks_uri`.
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// The `jwks_uri` of `issuer`, from the first metadata document found: RFC 8414 then OpenID
/// discovery with the issuer's path inserted after the well-known prefix, then OpenID appended
/// to it (the order of MCP's authorization discovery). The document's `issuer` must be `issuer`,
/// character for character (RFC 8414 §3.3, OpenID Discovery §4.3).
pub(super) async fn jwks_uri(fetch: &Fetch, issuer: &str) -> Result<String, DiscoveryError> {
    let refuse = |problem: &str| DiscoveryError::new(issuer, issuer, problem);
    let uri: http::Uri = issuer
        .parse()
        .map_err(|e| refuse(&format!("the issuer is not a URL: {e}")))?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(refuse("the issuer is not an absolute URL"));
    };
    if scheme != "http" && scheme != "https" {
        return Err(refuse("the issuer's scheme is not http or https"));
    }
    if uri.query().is_some() {
        return Err(refuse("an issuer has no query (RFC 8414 §2)"));
    }
    let candidates =
        super::authorization_server_metadata(&format!("{scheme}://{authority}"), uri.path());
    for candidate in &candidates {
        let document = fetch
            .json(candidate)
            .await
            .map_err(|problem| DiscoveryError::new(issuer, candidate, problem))?;
        let Some(document) = document else { continue };
        let found = document["issuer"].as_str();
        if found != Some(issuer) {
            let named = found.map_or_else(|| "no issuer".to_owned(), |f| format!("`{f}`"));
            return Err(DiscoveryError::new(
                issuer,
                candidate,
                format!("the metadata names {named}, not `{issuer}`"),
            ));
        }
        let jwks_uri = document["jwks_uri"].as_str().ok_or_else(|| {
            DiscoveryError::new(issuer, candidate, "the metadata has no `jwks_uri`")
        })?;
        tracing::debug!(url = %candidate, jwks_uri, "authorization server metadata found");
        return Ok(jwks_uri.to_owned());
    }
    Err(refuse(&format!(
        "no authorization server metadata at {}",
        candidates.join(" or ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_issuer_that_is_not_an_http_url_is_refused_before_any_request() {
        let fetch = Fetch::new(&crate::kernel::Trust::default()).expect("a connector");
        for (issuer, problem) in [
            ("auth.example", "the issuer is not an absolute URL"),
            (
                "ftp://auth.example",
                "the issuer's scheme is not http or https",
            ),
            (
                "http://auth.example/?tenant=1",
                "an issuer has no query (RFC 8414 §2)",
            ),
        ] {
            let error = jwks_uri(&fetch, issuer).await.expect_err(issuer);
            assert_eq!(error, DiscoveryError::new(issuer, issuer, problem));
        }
    }
}
