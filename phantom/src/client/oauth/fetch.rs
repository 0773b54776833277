//! The flow's own HTTP requests (metadata, registration, the token endpoint through `oauth2`),
//! on the hyper client the MCP requests use (its connections, and so the roots it trusts).

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client as Hyper;
use serde_json::Value;

use crate::kernel::{Connector, Trust, describe};

/// The largest answer read from an authorization server or a metadata URL.
const LIMIT: usize = 1 << 20;

/// A failed request of the flow: the URL and why (what `oauth2` wraps for the token endpoint).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct FetchError(String);

impl FetchError {
    /// A server's failure (a 5xx) at `uri`: its status, and the OAuth error its body names, if
    /// any (never the body itself).
    pub(super) fn failed(uri: &http::Uri, status: StatusCode, body: &[u8]) -> Self {
        let mut message = format!("{}: HTTP {status}", without_query(uri));
        if let Ok(answer) = serde_json::from_slice::<Value>(body)
            && let Some(error) = answer["error"].as_str()
        {
            message.push_str(&format!(": {error}"));
            if let Some(description) = answer["error_description"].as_str() {
                message.push_str(&format!(" ({description})"));
            }
        }
        Self(message)
    }
}

/// An HTTP client for the flow; cheap to clone.
#[derive(Clone)]
pub(super) struct Fetch {
    client: Hyper<Connector, Full<Bytes>>,
    /// The client's DPoP key and the nonces servers gave, when DPoP is on.
    dpop: Option<std::sync::Arc<super::dpop::Dpop>>,
}

impl Fetch {
    /// The flow's requests on `client`, the MCP link's (one pool, the same trusted roots).
    pub(super) fn over(client: &Hyper<Connector, Full<Bytes>>) -> Self {
        Self {
            client: client.clone(),
            dpop: None,
        }
    }

    /// This client with DPoP proofs on its token requests.
    pub(super) fn with_dpop(mut self, dpop: std::sync::Arc<super::dpop::Dpop>) -> Self {
        self.dpop = Some(dpop);
        self
    }

    /// Sends a token request: with a DPoP proof when DPoP is on, sent again once with the
    /// nonce the token endpoint asks for (`use_dpop_nonce`, RFC 9449 §8).
    pub(super) async fn token(
        &self,
        request: Request<Vec<u8>>,
    ) -> Result<Response<Vec<u8>>, FetchError> {
        let Some(dpop) = &self.dpop else {
            return self.send(request).await;
        };
        let (parts, body) = request.into_parts();
        let mut retried = false;
        loop {
            let mut request = Request::builder()
                .method(parts.method.clone())
                .uri(parts.uri.clone())
                .body(body.clone())
                .map_err(|e| FetchError(format!("the token request: {e}")))?;
            *request.headers_mut() = parts.headers.clone();
            let proof = dpop.proof_for_token(parts.method.as_str(), &parts.uri.to_string());
            if let Ok(value) = header::HeaderValue::try_from(proof) {
                request.headers_mut().insert("dpop", value);
            }
            let response = self.send(request).await?;
            let error = serde_json::from_slice::<Value>(response.body())
                .ok()
                .and_then(|v| v["error"].as_str().map(str::to_owned));
            let asked = dpop.token_nonce(response.headers(), error.as_deref());
            if asked && !retried && response.status().is_client_error() {
                retried = true;
                continue;
            }
            return Ok(response);
        }
    }

    /// A client of its own, trusting `trust`.
    pub(super) fn new(trust: &Trust) -> Result<Self, FetchError> {
        let client = crate::kernel::client(trust).map_err(FetchError)?;
        Ok(Self { client, dpop: None })
    }

    /// Sends `request` (no redirect followed); the answer with its body read (at most 1 MiB).
    pub(super) async fn send(
        &self,
        request: Request<Vec<u8>>,
    ) -> Result<Response<Vec<u8>>, FetchError> {
        let (parts, body) = request.into_parts();
        let target = format!("{} {}", parts.method, without_query(&parts.uri));
        crate::kernel::check_scheme(&parts.uri)
            .map_err(|why| FetchError(format!("{target}: {why}")))?;
        let request = Request::from_parts(parts, Full::new(Bytes::from(body)));
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| FetchError(format!("{target}: {}", describe(&e))))?;
        let (parts, body) = response.into_parts();
        let body = http_body_util::Limited::new(body, LIMIT)
            .collect()
            .await
            .map_err(|e| FetchError(format!("{target}: reading the answer: {e}")))?
            .to_bytes();
        Ok(Response::from_parts(parts, body.to_vec()))
    }

    /// GETs a JSON document: `Ok(None)` for a 4xx (not there), an error for anything else that
    /// is not a JSON object.
    pub(super) async fn json(&self, url: &str) -> Result<Option<Value>, FetchError> {
        let request = Request::builder()
            .method(Method::GET)
            .uri(url)
            .header(header::ACCEPT, "application/json")
            .body(Vec::new())
            .map_err(|e| FetchError(format!("`{url}` is not a URL: {e}")))?;
        let response = self.send(request).await?;
        if response.status().is_client_error() {
            return Ok(None);
        }
        object(url, response.status(), response.body()).map(Some)
    }

    /// POSTs `body` as JSON; the answer's status and JSON object.
    pub(super) async fn post_json(
        &self,
        url: &str,
        body: &Value,
    ) -> Result<(StatusCode, Value), FetchError> {
        let request = Request::builder()
            .method(Method::POST)
            .uri(url)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json")
            .body(body.to_string().into_bytes())
            .map_err(|e| FetchError(format!("`{url}` is not a URL: {e}")))?;
        let response = self.send(request).await?;
        let status = response.status();
        if status.is_client_error() {
            let text = String::from_utf8_lossy(response.body());
            let value = serde_json::from_str(&text).unwrap_or(Value::String(text.into()));
            return Ok((status, value));
        }
        Ok((status, object(url, status, response.body())?))
    }
}

fn object(url: &str, status: StatusCode, body: &[u8]) -> Result<Value, FetchError> {
    if !status.is_success() {
        return Err(FetchError(format!("{url}: HTTP {status}")));
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(value) if value.is_object() => Ok(value),
        Ok(_) => Err(FetchError(format!(
            "{url}: the answer is not a JSON object"
        ))),
        Err(e) => Err(FetchError(format!("{url}: the answer is not JSON: {e}"))),
    }
}

/// A URL without its query (which may carry a code or a state), for messages.
pub(super) fn without_query(uri: &http::Uri) -> String {
    match (uri.scheme_str(), uri.authority()) {
        (Some(scheme), Some(authority)) => format!("{scheme}://{authority}{}", uri.path()),
        _ => uri.path().to_owned(),
    }
}

#[cfg(all(test, not(feature = "tls")))]
mod tests {
    use super::*;

    #[test]
    fn an_https_request_without_the_tls_feature_is_refused_naming_it() {
        let fetch = Fetch::new(&Trust::default()).expect("a client");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let url = "https://as.example.com/.well-known/oauth-authorization-server?x=secret";
        let refused = runtime.block_on(fetch.json(url)).expect_err("refused");
        assert_eq!(
            refused.to_string(),
            "GET https://as.example.com/.well-known/oauth-authorization-server: https:// needs \
             phantom's `tls` feature (`phantom-mcp` with the feature \"tls\" beside \"client\" \
             or \"jwt\"), or a proxy in front that speaks TLS"
        );
    }
}
