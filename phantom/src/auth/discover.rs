//! What [`JwtVerifier::discover`](super::JwtVerifier::discover) reads from an issuer: its
//! authorization server metadata (RFC 8414 or OpenID discovery), which names its `jwks_uri`, and
//! the JWKS there; each GET bounded in time and size.

use std::time::Duration;

use bytes::Bytes;
use http::{Request, header};
use http_body_util::{BodyExt as _, Empty, Limited};
use hyper_util::client::legacy::Client as Hyper;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// The longest an issuer may take to answer one GET, its body included.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The largest document read from an issuer (metadata or JWKS).
const LIMIT: usize = 1 << 20;

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

/// GETs of an issuer's JSON documents: no redirect followed, no connection kept between them
/// (a JWKS is read again at most once a refetch interval), each within [`TIMEOUT`] and
/// [`LIMIT`].
pub(super) struct Fetch {
    client: Hyper<crate::kernel::Connector, Empty<Bytes>>,
    timeout: Duration,
}

impl Fetch {
    /// A fetch over the client's connector (`https://` with the feature `tls`, trusting the
    /// platform's roots); why there is none (no trusted root at all).
    pub(super) fn new() -> Result<Self, String> {
        let connector = crate::kernel::connector(&crate::kernel::Trust::default())?;
        Ok(Self {
            client: Hyper::builder(TokioExecutor::new())
                .pool_max_idle_per_host(0)
                .build(connector),
            timeout: TIMEOUT,
        })
    }

    /// The JSON object at `url`; `Ok(None)` when the answer is a 4xx (no document there).
    pub(super) async fn json(&self, url: &str) -> Result<Option<Value>, String> {
        let uri: http::Uri = url.parse().map_err(|e| format!("not a URL: {e}"))?;
        crate::kernel::check_scheme(&uri)?;
        let request = Request::get(uri)
            .header(header::ACCEPT, "application/json")
            .body(Empty::new())
            .map_err(|e| format!("not a URL: {e}"))?;
        let answer = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| crate::kernel::describe(&e))?;
            let status = response.status();
            if status.is_client_error() {
                return Ok(None);
            }
            if !status.is_success() {
                return Err(format!("answered HTTP {status}"));
            }
            let body = Limited::new(response.into_body(), LIMIT)
                .collect()
                .await
                .map_err(|e| {
                    if e.is::<http_body_util::LengthLimitError>() {
                        format!("the answer is larger than {} KiB", LIMIT >> 10)
                    } else {
                        format!("reading the answer: {e}")
                    }
                })?
                .to_bytes();
            match serde_json::from_slice::<Value>(&body) {
                Ok(value) if value.is_object() => Ok(Some(value)),
                Ok(_) => Err("the answer is not a JSON object".into()),
                Err(e) => Err(format!("the answer is not JSON: {e}")),
            }
        };
        tokio::time::timeout(self.timeout, answer)
            .await
            .map_err(|_| format!("no answer within {:?}", self.timeout))?
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
        let fetch = Fetch::new().expect("a connector");
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

    #[tokio::test]
    async fn a_server_that_never_answers_is_given_up_on() {
        // Connections are accepted (into the backlog) and never answered.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let url = format!("http://{}/jwks", silent.local_addr().expect("an address"));
        let fetch = Fetch {
            timeout: Duration::from_millis(200),
            ..Fetch::new().expect("a connector")
        };
        let error = tokio::time::timeout(Duration::from_secs(5), fetch.json(&url))
            .await
            .expect("the fetch gives up by itself")
            .expect_err("no answer");
        assert_eq!(error, "no answer within 200ms");
    }

    #[cfg(not(feature = "tls"))]
    #[tokio::test]
    async fn an_https_url_says_tls_is_not_built_in() {
        for url in [
            "https://auth.example/.well-known/openid-configuration",
            "HTTPS://auth.example/.well-known/openid-configuration",
        ] {
            let error = Fetch::new()
                .expect("a connector")
                .json(url)
                .await
                .expect_err("no TLS");
            assert!(
                error.starts_with("https:// needs phantom's `tls` feature"),
                "{error}"
            );
        }
    }
}
