//! Streamable HTTP, the client side: each request a POST whose answer is one JSON message or an
//! SSE stream of them; the session id and negotiated version sent back on every later request;
//! `DELETE` on close.

use std::sync::Mutex;

use bytes::Bytes;
use futures_util::StreamExt as _;
use http::{HeaderName, HeaderValue, Method, Request, StatusCode, header};
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client as Hyper;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

use super::{ClientError, Messages};
use crate::kernel::{BoxFuture, Locked as _};

const SESSION: &str = "mcp-session-id";
const VERSION: &str = "mcp-protocol-version";

/// One server's endpoint.
pub(super) struct Http {
    client: Hyper<HttpConnector, Full<Bytes>>,
    url: http::Uri,
    headers: Vec<(HeaderName, HeaderValue)>,
    session: Mutex<Option<String>>,
    version: Mutex<Option<String>>,
}

impl Http {
    pub(super) fn new(
        url: &str,
        headers: Vec<(HeaderName, HeaderValue)>,
    ) -> Result<Self, ClientError> {
        let url: http::Uri = url
            .parse()
            .map_err(|e| ClientError::Transport(format!("`{url}` is not a URL: {e}")))?;
        if url.scheme_str() != Some("http") {
            return Err(ClientError::Transport(format!(
                "`{url}`: only http:// URLs are served by this client (put TLS in front with a proxy)"
            )));
        }
        Ok(Self {
            client: Hyper::builder(TokioExecutor::new()).build_http(),
            url,
            headers,
            session: Mutex::default(),
            version: Mutex::default(),
        })
    }

    pub(super) fn session(&self) -> Option<String> {
        self.session.locked().clone()
    }

    pub(super) fn set_version(&self, version: &str) {
        *self.version.locked() = Some(version.to_owned());
    }

    fn build(
        &self,
        method: Method,
        extra: &[(String, String)],
        body: Option<String>,
    ) -> Result<Request<Full<Bytes>>, ClientError> {
        let mut request = Request::builder().method(method).uri(self.url.clone());
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        if let Some(session) = self.session.locked().as_deref() {
            request = request.header(SESSION, session);
        }
        if let Some(version) = self.version.locked().as_deref() {
            request = request.header(VERSION, version);
        }
        for (name, value) in extra {
            request = request.header(name.as_str(), value);
        }
        let body = match body {
            Some(body) => {
                request = request
                    .header(header::CONTENT_TYPE, "application/json")
                    .header(header::ACCEPT, "application/json, text/event-stream");
                Full::new(Bytes::from(body))
            }
            None => Full::default(),
        };
        request
            .body(body)
            .map_err(|e| ClientError::Transport(format!("a header does not encode: {e}")))
    }

    /// POSTs one message; the messages that answer it, in order.
    pub(super) fn post<'a>(
        &'a self,
        message: String,
        extra: &'a [(String, String)],
    ) -> BoxFuture<'a, Result<Messages, ClientError>> {
        Box::pin(async move {
            let request = self.build(Method::POST, extra, Some(message))?;
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| ClientError::Transport(format!("POST {}: {e}", self.url)))?;
            if let Some(id) = response
                .headers()
                .get(SESSION)
                .and_then(|v| v.to_str().ok())
            {
                *self.session.locked() = Some(id.to_owned());
            }
            let status = response.status();
            let sse = response
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|t| t.starts_with("text/event-stream"));
            if status == StatusCode::ACCEPTED {
                return Ok(futures_util::stream::empty().boxed());
            }
            if !status.is_success() && !sse {
                let body = response.into_body().collect().await.map(|b| b.to_bytes());
                let body = body.unwrap_or_default();
                let text = String::from_utf8_lossy(&body).into_owned();
                // A JSON-RPC error sent with a 4xx status is still a JSON-RPC answer.
                if let Ok(value) = serde_json::from_str::<Value>(&text)
                    && value.get("error").is_some()
                {
                    return Ok(futures_util::stream::iter([Ok(value)]).boxed());
                }
                return Err(ClientError::Http {
                    status: status.as_u16(),
                    body: text,
                });
            }
            if sse {
                return Ok(events(response.into_body()));
            }
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(|e| ClientError::Transport(format!("reading the answer: {e}")))?
                .to_bytes();
            let value: Value = serde_json::from_slice(&body)
                .map_err(|e| ClientError::protocol(format!("the answer is not JSON: {e}")))?;
            Ok(futures_util::stream::iter([Ok(value)]).boxed())
        })
    }

    /// Opens the session's GET stream: the messages the server sends outside any request
    /// (`None` when it offers none: `405`).
    pub(super) async fn get(&self) -> Result<Option<Messages>, ClientError> {
        let accept = [("accept".to_owned(), "text/event-stream".to_owned())];
        let request = self.build(Method::GET, &accept, None)?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| ClientError::Transport(format!("GET {}: {e}", self.url)))?;
        match response.status() {
            StatusCode::METHOD_NOT_ALLOWED => Ok(None),
            s if s.is_success() => Ok(Some(events(response.into_body()))),
            s => Err(ClientError::Http {
                status: s.as_u16(),
                body: String::new(),
            }),
        }
    }

    /// Ends the session (`DELETE`), if there is one.
    pub(super) async fn close(&self) {
        if self.session.locked().is_none() {
            return;
        }
        if let Ok(request) = self.build(Method::DELETE, &[], None) {
            let _ = self.client.request(request).await;
        }
        *self.session.locked() = None;
    }
}

/// The JSON messages of an SSE body: each event's `data` lines, joined; comments and events
/// without data skipped.
fn events(body: hyper::body::Incoming) -> Messages {
    let state = (
        body.into_data_stream(),
        Vec::<u8>::new(),
        Vec::<Value>::new(),
    );
    futures_util::stream::unfold(state, |(mut body, mut buffer, mut ready)| async move {
        loop {
            if let Some(value) = ready.pop() {
                return Some((Ok(value), (body, buffer, ready)));
            }
            match body.next().await {
                Some(Ok(chunk)) => {
                    buffer.extend_from_slice(&chunk);
                    let mut parsed = Vec::new();
                    while let Some(end) = event_end(&buffer) {
                        let event: Vec<u8> = buffer.drain(..end.1).collect();
                        if let Some(value) = data_of(&event[..end.0]) {
                            parsed.push(value);
                        }
                    }
                    parsed.reverse();
                    ready = parsed;
                }
                Some(Err(e)) => {
                    let error = ClientError::Transport(format!("the event stream broke: {e}"));
                    return Some((Err(error), (body, Vec::new(), Vec::new())));
                }
                None => return None,
            }
        }
    })
    .boxed()
}

/// Where the first complete event of `buffer` ends: (end of its lines, end of its blank line).
fn event_end(buffer: &[u8]) -> Option<(usize, usize)> {
    let lf = buffer
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|i| (i, i + 2));
    let crlf = buffer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, i + 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

fn data_of(event: &[u8]) -> Option<Value> {
    let text = String::from_utf8_lossy(event);
    let mut data = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    if data.is_empty() {
        return None;
    }
    match serde_json::from_str(&data) {
        Ok(value) => Some(value),
        Err(e) => {
            tracing::warn!(error = %e, "an SSE event whose data is not JSON; skipped");
            None
        }
    }
}
