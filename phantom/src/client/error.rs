//! [`ClientError`]: what can go wrong when a [`Client`](super::Client) talks to a server.

use serde_json::Value;

/// A failed request of a [`Client`](super::Client), by cause, so a caller can match on it. A tool
/// that ran and failed is not an error: its result comes back with `is_error` set.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server could not be reached, or the connection broke (the server's process exited,
    /// the TCP connection was refused or dropped).
    #[error("transport: {0}")]
    Transport(String),
    /// The server answered over HTTP with a status that is not a JSON-RPC answer (`401`, `403`,
    /// `404` for an unknown session, `429`, `503`, …), with the headers and body it sent. A `401`,
    /// or any answer with a `WWW-Authenticate` challenge (a `403` for a missing scope), is always
    /// this, whatever its body (an OAuth error such as `{"error":"invalid_token"}` is not a
    /// JSON-RPC answer, and a JSON-RPC one would hide the challenge); read the challenge with
    /// [`www_authenticate`](Self::www_authenticate), a `429`'s wait with
    /// [`retry_after`](Self::retry_after).
    #[error("HTTP {status}: {body}")]
    Http {
        /// The HTTP status code.
        status: u16,
        /// The response's headers (`WWW-Authenticate`, `Retry-After`, …).
        headers: http::HeaderMap,
        /// The response body, as text.
        body: String,
    },
    /// The server answered with a JSON-RPC error.
    #[error("JSON-RPC error {code}: {message}")]
    Rpc {
        /// The error's `code` (`-32602` invalid params, `-32601` unknown method, …).
        code: i64,
        /// The error's `message`.
        message: String,
        /// The error's `data`, if any.
        data: Option<Value>,
    },
    /// The server sent something that does not follow the protocol (a body that is not JSON, a
    /// stream that ended without the response, a result of the wrong shape).
    #[error("protocol: {0}")]
    Protocol(String),
    /// No answer within the client's request timeout.
    #[error("no answer within {0:?}")]
    Timeout(std::time::Duration),
    /// A skill file read does not match what the skill's listing says of it (SEP-2640): its
    /// size, its `sha256:` digest, or (for `SKILL.md`) its frontmatter. The file is not used.
    #[error("`{uri}` does not match its listing: {what}")]
    Verification {
        /// The file read.
        uri: String,
        /// What differs, with both values.
        what: String,
    },
    /// The caller cancelled the request ([`Client::cancellable`](super::Client::cancellable)).
    #[error("cancelled by the caller")]
    Cancelled,
    /// The server asked for a token and the client's OAuth flow (feature `oauth`) could not get
    /// one: the step that failed and why (never a token, code or secret).
    #[error("authorization failed at {step}: {message}")]
    Auth {
        /// The step of the flow that failed.
        step: AuthStep,
        /// What went wrong.
        message: String,
    },
}

/// A step of the client's OAuth flow, named by [`ClientError::Auth`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthStep {
    /// Finding the protected resource's metadata (RFC 9728) and its authorization server's
    /// (RFC 8414, OpenID discovery), and checking them (`resource`, `issuer`).
    Discovery,
    /// Getting a client identity: a metadata document URL, pre-registered credentials or
    /// dynamic registration (RFC 7591).
    Registration,
    /// The authorization request and its redirect (`state`, `iss`, `code`, or the error the
    /// authorization server or the user gave).
    Authorization,
    /// The token request (authorization code, client credentials, JWT bearer or refresh
    /// token), or an assertion the client would not send (feature `oauth`).
    Token,
    /// Reading or writing the `TokenStore` (feature `oauth`; its backend down, its file
    /// unreadable), or taking its refresh lease.
    Store,
}

impl std::fmt::Display for AuthStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Discovery => "discovery",
            Self::Registration => "registration",
            Self::Authorization => "authorization",
            Self::Token => "token",
            Self::Store => "the token store",
        })
    }
}

impl ClientError {
    /// The JSON-RPC error code, when the server answered with one.
    pub fn code(&self) -> Option<i64> {
        match self {
            Self::Rpc { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The HTTP status, when the server answered with one that is not a JSON-RPC answer
    /// ([`ClientError::Http`]).
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Http { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The `WWW-Authenticate` challenge of an HTTP answer (`401`, or `403` for a scope the token
    /// lacks), e.g. `Bearer error="invalid_token", resource_metadata="…"`.
    pub fn www_authenticate(&self) -> Option<&str> {
        self.header(http::header::WWW_AUTHENTICATE)
    }

    /// How long an HTTP answer (`429`, `503`) asks to wait before trying again: its
    /// `Retry-After` in seconds (an HTTP date is not read).
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        let seconds = self
            .header(http::header::RETRY_AFTER)?
            .trim()
            .parse()
            .ok()?;
        Some(std::time::Duration::from_secs(seconds))
    }

    fn header(&self, name: http::header::HeaderName) -> Option<&str> {
        match self {
            Self::Http { headers, .. } => headers.get(name)?.to_str().ok(),
            _ => None,
        }
    }

    pub(crate) fn from_rpc(error: &Value) -> Self {
        Self::Rpc {
            code: error["code"].as_i64().unwrap_or(0),
            message: error["message"].as_str().unwrap_or_default().to_owned(),
            data: error.get("data").cloned(),
        }
    }

    pub(crate) fn auth(step: AuthStep, message: impl std::fmt::Display) -> Self {
        Self::Auth {
            step,
            message: message.to_string(),
        }
    }

    pub(crate) fn protocol(what: impl std::fmt::Display) -> Self {
        Self::Protocol(what.to_string())
    }
}
