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
    /// `404` for an unknown session, `503`, …), with the body it sent.
    #[error("HTTP {status}: {body}")]
    Http {
        /// The HTTP status code.
        status: u16,
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
    /// The caller cancelled the request ([`Client::cancellable`](super::Client::cancellable)).
    #[error("cancelled by the caller")]
    Cancelled,
}

impl ClientError {
    /// The JSON-RPC error code, when the server answered with one.
    pub fn code(&self) -> Option<i64> {
        match self {
            Self::Rpc { code, .. } => Some(*code),
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

    pub(crate) fn protocol(what: impl std::fmt::Display) -> Self {
        Self::Protocol(what.to_string())
    }
}
