//! Bounded requests to another server for a document: what `JwtVerifier::discover` reads from an
//! issuer and what the authorization server asks of its upstream identity provider. No redirect
//! is followed, no connection kept between them, each answer is read within a time and a size.

use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode, header};
use http_body_util::{BodyExt as _, Full, Limited};
use hyper_util::client::legacy::Client as Hyper;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use super::Trust;

/// The longest a server may take to answer one request, its body included, by default.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The largest answer read, by default.
const LIMIT: usize = 1 << 20;

/// What a server answered: its status, its headers and its body, whole.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    #[allow(dead_code, reason = "read by tests of the upstream identity provider")]
    pub(crate) headers: http::HeaderMap,
    pub(crate) body: Bytes,
}

impl Answer {
    /// The body as a JSON object; why it is not one.
    pub(crate) fn object(&self) -> Result<serde_json::Map<String, Value>, String> {
        match serde_json::from_slice::<Value>(&self.body) {
            Ok(Value::Object(object)) => Ok(object),
            Ok(_) => Err("the answer is not a JSON object".into()),
            Err(e) => Err(format!("the answer is not JSON: {e}")),
        }
    }
}

/// A client for such requests, each within [`TIMEOUT`] and [`LIMIT`].
#[derive(Clone)]
pub(crate) struct Fetch {
    client: Hyper<super::Connector, Full<Bytes>>,
    timeout: Duration,
}

impl Fetch {
    /// A fetch over the client's connector (`https://` with the feature `tls`, trusting the
    /// platform's roots and those of `trust`); why there is none (no trusted root at all).
    pub(crate) fn new(trust: &Trust) -> Result<Self, String> {
        let connector = super::connector(trust)?;
        Ok(Self {
            client: Hyper::builder(TokioExecutor::new())
                .pool_max_idle_per_host(0)
                .build(connector),
            timeout: TIMEOUT,
        })
    }

    /// The same fetch, giving up after `timeout`.
    #[cfg(test)]
    pub(crate) fn timeout(self, timeout: Duration) -> Self {
        Self { timeout, ..self }
    }

    /// `request` sent and its answer read, whatever its status; why there is none (the URL's
    /// scheme, the connection, no answer in time, a body too large). The error never holds the
    /// request's URL, headers or body: the caller names what it may.
    pub(crate) async fn send(&self, request: Request<Full<Bytes>>) -> Result<Answer, String> {
        super::check_scheme(request.uri())?;
        let answer = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| super::describe(&e))?;
            let status = response.status();
            let headers = response.headers().clone();
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
            Ok(Answer {
                status,
                headers,
                body,
            })
        };
        tokio::time::timeout(self.timeout, answer)
            .await
            .map_err(|_| format!("no answer within {:?}", self.timeout))?
    }

    /// The JSON object at `url`; `Ok(None)` when the answer is a 4xx (no document there).
    pub(crate) async fn json(&self, url: &str) -> Result<Option<Value>, String> {
        let uri: http::Uri = url.parse().map_err(|e| format!("not a URL: {e}"))?;
        let request = Request::get(uri)
            .header(header::ACCEPT, "application/json")
            .body(Full::default())
            .map_err(|e| format!("not a URL: {e}"))?;
        let answer = self.send(request).await?;
        if answer.status.is_client_error() {
            return Ok(None);
        }
        if !answer.status.is_success() {
            return Err(format!("answered HTTP {}", answer.status));
        }
        answer.object().map(|object| Some(Value::Object(object)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_server_that_never_answers_is_given_up_on() {
        // Connections are accepted (into the backlog) and never answered.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let url = format!("http://{}/jwks", silent.local_addr().expect("an address"));
        let fetch = Fetch::new(&Trust::default())
            .expect("a connector")
            .timeout(Duration::from_millis(200));
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
            let error = Fetch::new(&Trust::default())
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
