//! Streamable HTTP, the client side: each request a POST whose answer is one JSON message or an
//! SSE stream of them; the session id and negotiated version sent back on every later request;
//! `DELETE` on close.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::StreamExt as _;
use http::{HeaderName, HeaderValue, Method, Request, StatusCode, header};
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client as Hyper;
use serde_json::Value;

use super::{ClientError, Messages};
use crate::kernel::{BoxFuture, Connector, Locked as _, Trust, describe};

const SESSION: &str = "mcp-session-id";
const VERSION: &str = "mcp-protocol-version";

/// The OAuth room of a link ([`Builder::oauth`](super::Builder::oauth)), when the feature is on.
#[cfg(feature = "oauth")]
pub(super) type Auth = Option<super::oauth::OAuth>;
/// The OAuth room of a link: none without the `oauth` feature.
#[cfg(not(feature = "oauth"))]
pub(super) type Auth = ();

/// One server's endpoint.
pub(super) struct Http {
    client: Hyper<Connector, Full<Bytes>>,
    url: http::Uri,
    headers: Vec<(HeaderName, HeaderValue)>,
    session: Mutex<Option<String>>,
    version: Mutex<Option<String>>,
    /// Gets a token when the server asks for one, and holds it.
    #[cfg(feature = "oauth")]
    oauth: Option<super::oauth::Session>,
}

impl Http {
    pub(super) fn new(
        url: &str,
        headers: Vec<(HeaderName, HeaderValue)>,
        auth: &Auth,
        trust: &Trust,
    ) -> Result<Self, ClientError> {
        let url: http::Uri = url
            .parse()
            .map_err(|e| ClientError::Transport(format!("`{url}` is not a URL: {e}")))?;
        crate::kernel::check_scheme(&url)
            .map_err(|why| ClientError::Transport(format!("`{url}`: {why}")))?;
        let client = crate::kernel::client(trust).map_err(ClientError::Transport)?;
        #[cfg(feature = "oauth")]
        if auth.is_some()
            && headers
                .iter()
                .any(|(name, _)| name == header::AUTHORIZATION)
        {
            // Two `Authorization` headers would reach the server, and which one it reads is
            // its own choice.
            return Err(ClientError::Transport(
                "both an `Authorization` header (`bearer` or `header`) and `oauth` were given: the OAuth flow sends the token, so give one of them".to_owned(),
            ));
        }
        #[cfg(feature = "oauth")]
        let oauth = match auth {
            Some(config) => Some(super::oauth::Session::new(
                config.clone(),
                &url.to_string(),
                &client,
            )?),
            None => None,
        };
        #[cfg(not(feature = "oauth"))]
        let () = *auth;
        Ok(Self {
            client,
            url,
            headers,
            session: Mutex::default(),
            version: Mutex::default(),
            #[cfg(feature = "oauth")]
            oauth,
        })
    }

    pub(super) fn session(&self) -> Option<String> {
        self.session.locked().clone()
    }

    /// The `MCP-Protocol-Version` sent on every later request (none: not sent, as for
    /// `initialize`).
    pub(super) fn set_version(&self, version: Option<&str>) {
        *self.version.locked() = version.map(str::to_owned);
    }

    /// The OAuth access token to send, if any.
    fn bearer(&self) -> Option<String> {
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &self.oauth {
            return oauth.bearer();
        }
        None
    }

    fn build(
        &self,
        method: &Method,
        extra: &[(String, String)],
        body: Option<Bytes>,
    ) -> Result<Request<Full<Bytes>>, ClientError> {
        let mut request = Request::builder()
            .method(method.clone())
            .uri(self.url.clone());
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        if let Some(token) = self.bearer() {
            #[cfg(feature = "oauth")]
            let (authorization, proof) = match &self.oauth {
                Some(oauth) => oauth.authorization(&token, method.as_str()),
                None => (format!("Bearer {token}"), None),
            };
            #[cfg(not(feature = "oauth"))]
            let (authorization, proof): (String, Option<String>) =
                (format!("Bearer {token}"), None);
            if let Some(proof) = proof
                && let Ok(mut value) = HeaderValue::try_from(proof)
            {
                value.set_sensitive(true);
                request = request.header("dpop", value);
            }
            let mut value = HeaderValue::try_from(authorization).map_err(|_| {
                ClientError::auth(
                    super::AuthStep::Token,
                    "the access token is not a valid header value",
                )
            })?;
            value.set_sensitive(true);
            request = request.header(header::AUTHORIZATION, value);
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
                Full::new(body)
            }
            None => Full::default(),
        };
        request
            .body(body)
            .map_err(|e| ClientError::Transport(format!("a header does not encode: {e}")))
    }

    /// POSTs one message; the messages that answer it, in order.
    pub(super) fn post<'a>(
        self: &'a Arc<Self>,
        message: String,
        extra: &'a [(String, String)],
    ) -> BoxFuture<'a, Result<Messages, ClientError>> {
        Box::pin(async move {
            let message = Bytes::from(message);
            #[cfg(feature = "oauth")]
            if let Some(oauth) = &self.oauth {
                oauth.fresh().await?;
            }
            let response = self.send_post(&message, extra).await?;
            #[cfg(feature = "oauth")]
            let response = self.authorized(response, &message, extra).await?;
            let response = response.0;
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
                let (parts, body) = response.into_parts();
                let body = body.collect().await.map(|b| b.to_bytes());
                let body = body.unwrap_or_default();
                let text = String::from_utf8_lossy(&body).into_owned();
                // A JSON-RPC error sent with a 4xx status is still a JSON-RPC answer. A 401, or
                // any answer with an authentication challenge (a 403 for a missing scope), is
                // the HTTP layer's whatever its body — the caller needs the challenge — and so
                // is a body that is not a JSON-RPC error response (an OAuth error's
                // `{"error":"invalid_token"}`).
                let challenged = status == StatusCode::UNAUTHORIZED
                    || parts.headers.contains_key(header::WWW_AUTHENTICATE);
                if !challenged
                    && let Ok(value) = serde_json::from_str::<Value>(&text)
                    && is_rpc_error(&value)
                {
                    return Ok(futures_util::stream::iter([Ok(value)]).boxed());
                }
                return Err(ClientError::Http {
                    status: status.as_u16(),
                    headers: parts.headers,
                    body: text,
                });
            }
            if sse {
                return Ok(self.resuming(response.into_body()));
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

    /// When `answer` asks for a token (`401`, or `403` with `insufficient_scope`) and OAuth is
    /// set up: gets one and POSTs `message` again, once (a token the server refuses again is its
    /// answer).
    #[cfg(feature = "oauth")]
    async fn authorized(
        &self,
        answer: (http::Response<hyper::body::Incoming>, Option<String>),
        message: &Bytes,
        extra: &[(String, String)],
    ) -> Result<(http::Response<hyper::body::Incoming>, Option<String>), ClientError> {
        let Some(oauth) = &self.oauth else {
            return Ok(answer);
        };
        let (mut answer, mut nonce_sent, mut token_sent) = (answer, false, false);
        loop {
            let (response, sent) = &answer;
            // A DPoP nonce asked for (RFC 9449 §9): sent again with it, once.
            // Every answer is heard for the server's next nonce, the last one included.
            let asked = oauth.nonce_asked(response.status(), response.headers());
            if asked && !nonce_sent {
                nonce_sent = true;
            } else if !token_sent
                && super::oauth::Session::wants(response.status(), response.headers())
            {
                token_sent = true;
                oauth
                    .authenticate(response.status(), response.headers(), sent.as_deref())
                    .await?;
            } else {
                return Ok(answer);
            }
            answer = self.send_post(message, extra).await?;
        }
    }

    /// POSTs `message`; the answer, and the access token it was sent with.
    async fn send_post(
        &self,
        message: &Bytes,
        extra: &[(String, String)],
    ) -> Result<(http::Response<hyper::body::Incoming>, Option<String>), ClientError> {
        let sent = self.bearer();
        let request = self.build(&Method::POST, extra, Some(message.clone()))?;
        let response =
            self.client.request(request).await.map_err(|e| {
                ClientError::Transport(format!("POST {}: {}", self.url, describe(&e)))
            })?;
        Ok((response, sent))
    }

    /// Opens the session's GET stream: the messages the server sends outside any request
    /// (`None` when it offers none: `405`).
    pub(super) async fn get(&self) -> Result<Option<Messages>, ClientError> {
        let accept = [("accept".to_owned(), "text/event-stream".to_owned())];
        let request = self.build(&Method::GET, &accept, None)?;
        let response =
            self.client.request(request).await.map_err(|e| {
                ClientError::Transport(format!("GET {}: {}", self.url, describe(&e)))
            })?;
        match response.status() {
            StatusCode::METHOD_NOT_ALLOWED => Ok(None),
            s if s.is_success() => Ok(Some(events(response.into_body()))),
            s => Err(ClientError::Http {
                status: s.as_u16(),
                headers: response.headers().clone(),
                body: String::new(),
            }),
        }
    }

    /// Ends the session (`DELETE`), if there is one.
    pub(super) async fn close(&self) {
        if self.session.locked().is_none() {
            return;
        }
        if let Ok(request) = self.build(&Method::DELETE, &[], None) {
            let _ = self.client.request(request).await;
        }
        *self.session.locked() = None;
    }
}

/// Where an SSE body is read: the body, what is buffered, what is parsed and waits to be handed out.
struct Reading {
    body: Option<http_body_util::BodyDataStream<hyper::body::Incoming>>,
    buffer: Vec<u8>,
    ready: std::collections::VecDeque<Value>,
    /// The last event id the server gave, and the reconnection delay it asked for.
    last_id: Option<String>,
    retry: std::time::Duration,
    /// Whether a response (a message with no `method`) came: the stream is done with.
    answered: bool,
    resumes: usize,
}

/// Resumptions of one broken stream at most.
const RESUMES: usize = 64;

/// A private notification the resuming stream hands out when the server ended a request's
/// stream early and it is resumed (`GET` with `Last-Event-ID`): never sent on the wire.
pub(super) const RESUMED: &str = "phantom/client/resumed";

impl Http {
    /// The messages of one SSE answer. When the server ends it before the response (SEP-1699
    /// polling) or it breaks, having given event ids, it is resumed with `GET` and
    /// `Last-Event-ID` after the `retry` it asked for (1 s by default).
    fn resuming(self: &Arc<Self>, body: hyper::body::Incoming) -> Messages {
        let reading = Reading {
            body: Some(body.into_data_stream()),
            buffer: Vec::new(),
            ready: std::collections::VecDeque::new(),
            last_id: None,
            retry: std::time::Duration::from_secs(1),
            answered: false,
            resumes: 0,
        };
        let http = Arc::clone(self);
        futures_util::stream::unfold(reading, move |mut r| {
            let http = Arc::clone(&http);
            async move {
                loop {
                    if let Some(value) = r.ready.pop_front() {
                        if value.get("method").is_none() {
                            r.answered = true;
                        }
                        return Some((Ok(value), r));
                    }
                    let next = match r.body.as_mut() {
                        Some(body) => body.next().await,
                        None => None,
                    };
                    match next {
                        Some(Ok(chunk)) => {
                            r.buffer.extend_from_slice(&chunk);
                            while let Some(end) = event_end(&r.buffer) {
                                let event: Vec<u8> = r.buffer.drain(..end.1).collect();
                                let parsed = parse_event(&event[..end.0]);
                                if let Some(id) = parsed.id {
                                    r.last_id = Some(id);
                                }
                                if let Some(retry) = parsed.retry {
                                    r.retry = retry;
                                }
                                r.ready.extend(parsed.data);
                            }
                        }
                        end => {
                            let broke = matches!(end, Some(Err(_)));
                            let Some(id) = r.last_id.clone().filter(|_| !r.answered) else {
                                if let Some(Err(e)) = end {
                                    let error = ClientError::Transport(format!(
                                        "the event stream broke: {e}"
                                    ));
                                    r.body = None;
                                    r.answered = true;
                                    return Some((Err(error), r));
                                }
                                return None;
                            };
                            if r.resumes >= RESUMES {
                                let error = ClientError::Transport(format!(
                                    "the event stream ended {RESUMES} times before its response"
                                ));
                                r.answered = true;
                                r.last_id = None;
                                return Some((Err(error), r));
                            }
                            r.resumes += 1;
                            r.buffer.clear();
                            let first = r.body.take().is_some() && r.resumes == 1;
                            tracing::debug!(broke, last_event = %id, "resuming an event stream");
                            tokio::time::sleep(r.retry).await;
                            match http.resume(&id).await {
                                Ok(body) => r.body = Some(body.into_data_stream()),
                                Err(e) => {
                                    r.answered = true;
                                    return Some((Err(e), r));
                                }
                            }
                            if first {
                                let note = serde_json::json!({"method": RESUMED});
                                return Some((Ok(note), r));
                            }
                        }
                    }
                }
            }
        })
        .boxed()
    }

    /// `GET` with `Last-Event-ID`: the rest of a stream.
    async fn resume(&self, last_id: &str) -> Result<hyper::body::Incoming, ClientError> {
        let extra = [
            ("accept".to_owned(), "text/event-stream".to_owned()),
            ("last-event-id".to_owned(), last_id.to_owned()),
        ];
        let request = self.build(&Method::GET, &extra, None)?;
        let response = self.client.request(request).await.map_err(|e| {
            ClientError::Transport(format!("GET {} (resuming): {}", self.url, describe(&e)))
        })?;
        if !response.status().is_success() {
            return Err(ClientError::Http {
                status: response.status().as_u16(),
                headers: response.headers().clone(),
                body: String::new(),
            });
        }
        Ok(response.into_body())
    }
}

/// Whether `value` is a JSON-RPC error response: `"jsonrpc": "2.0"` and an `error` object with
/// an integer `code`.
fn is_rpc_error(value: &Value) -> bool {
    value.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && value
            .get("error")
            .and_then(|e| e.get("code"))
            .is_some_and(Value::is_i64)
}

/// One SSE event: its `id`, `retry` and the JSON of its `data` lines.
struct Event {
    id: Option<String>,
    retry: Option<std::time::Duration>,
    data: Option<Value>,
}

fn parse_event(event: &[u8]) -> Event {
    let text = String::from_utf8_lossy(event);
    let mut out = Event {
        id: None,
        retry: None,
        data: None,
    };
    for line in text.lines() {
        if let Some(id) = line.strip_prefix("id:") {
            out.id = Some(id.trim_start().to_owned());
        } else if let Some(ms) = line.strip_prefix("retry:") {
            out.retry = ms.trim().parse().ok().map(std::time::Duration::from_millis);
        }
    }
    out.data = data_of(event);
    out
}

/// The JSON messages of an SSE body (a GET stream): each event's `data` lines, joined;
/// comments and events without data skipped.
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

#[cfg(all(test, not(feature = "tls")))]
mod tests {
    use super::*;

    #[test]
    fn an_https_url_without_the_tls_feature_is_refused_naming_it() {
        let url = "https://mcp.example.com/mcp";
        let Err(refused) = Http::new(url, Vec::new(), &Auth::default(), &Trust::default()) else {
            panic!("an https URL is refused without `tls`");
        };
        let ClientError::Transport(message) = refused else {
            panic!("a transport error: {refused:?}");
        };
        assert!(
            message.starts_with(&format!("`{url}`: https:// needs phantom's `tls` feature")),
            "{message}"
        );
    }
}
