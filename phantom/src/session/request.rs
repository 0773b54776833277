//! [`Request`]: what the transport knows about the request being served.

use std::net::SocketAddr;

use http::HeaderMap;

/// The transport side of a request: HTTP headers (empty on stdio), the peer address, the transport.
///
/// `connect` receives it, and handlers can take `&Request` as a parameter.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// HTTP request headers; empty for stdio.
    pub headers: HeaderMap,
    /// The peer's socket address, when known.
    pub peer: Option<SocketAddr>,
    /// Which transport carried the request.
    pub transport: Transport,
}

/// The transport a request arrived on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    /// Streamable HTTP.
    Http,
    /// stdio (newline-delimited JSON).
    Stdio,
    /// The in-process test client.
    #[default]
    InProcess,
}

impl Request {
    /// A request with these headers.
    pub fn with_headers(headers: HeaderMap) -> Self {
        Self {
            headers,
            ..Self::default()
        }
    }

    /// The first value of a header, if it is visible ASCII.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The token of an `Authorization: Bearer <token>` header (scheme matched case-insensitively).
    pub fn bearer(&self) -> Option<&str> {
        let value = self.header("authorization")?.trim();
        let (scheme, token) = value.split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| token.trim())
            .filter(|t| !t.is_empty())
    }
}
