//! [`Outbound`]: what a request's handling sends the client before its result, as [`Frame`]s.
//! Messages are serialized JSON-RPC text, so a transport (or a bus between nodes) carries them as
//! they are: an SSE response on HTTP, lines on stdio.

use serde::Serialize;
use serde_json::json;
use tokio::sync::mpsc;

use crate::protocol::Method;

/// One thing a request's handling sends its transport before the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A JSON-RPC message (a notification or a server-to-client request), serialized.
    Message(String),
    /// Show the stream is alive (an SSE comment on HTTP; nothing on stdio).
    KeepAlive,
    /// End the request's stream now (2025-11-25 HTTP, SEP-1699 polling): the handling goes on,
    /// and the client fetches what follows with `Last-Event-ID`. Transports that cannot resume
    /// ignore it.
    Close,
}

impl Frame {
    /// The message, if this is one.
    pub fn into_message(self) -> Option<String> {
        match self {
            Self::Message(message) => Some(message),
            Self::KeepAlive | Self::Close => None,
        }
    }
}

/// The sending side of one request's outbound messages. Cloning is cheap; a handler may keep a
/// clone while it works. Without a listener (a transport that cannot send early), messages are
/// dropped.
#[derive(Debug, Clone, Default)]
pub struct Outbound {
    tx: Option<mpsc::UnboundedSender<Frame>>,
}

impl Outbound {
    /// An outbound path that sends nothing.
    pub fn none() -> Self {
        Self::default()
    }

    /// An outbound path and the receiver a transport drains while the request runs.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Frame>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx: Some(tx) }, rx)
    }

    /// Whether a transport listens (this is not [`Outbound::none`]).
    pub(crate) fn is_open(&self) -> bool {
        self.tx.is_some()
    }

    /// Asks the transport to show the stream is alive (an SSE comment on HTTP; nothing on
    /// stdio); `false` when nobody listens any more.
    pub(crate) fn keep_alive(&self) -> bool {
        self.tx
            .as_ref()
            .is_some_and(|tx| tx.send(Frame::KeepAlive).is_ok())
    }

    /// Asks the transport to end the request's stream now (2025-11-25 HTTP, SEP-1699 polling):
    /// the handling goes on, and the client fetches what follows with `Last-Event-ID`. Transports
    /// that cannot resume ignore it.
    pub(crate) fn close_stream(&self) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(Frame::Close);
        }
    }

    /// Sends a message already serialized (a server-to-client request); `false` when nobody
    /// listens.
    pub(crate) fn send(&self, message: String) -> bool {
        self.tx
            .as_ref()
            .is_some_and(|tx| tx.send(Frame::Message(message)).is_ok())
    }

    /// Sends a notification; `false` when nobody listens any more.
    pub(crate) fn notify(&self, method: Method, params: &impl Serialize) -> bool {
        let Some(tx) = &self.tx else {
            return false;
        };
        let message = json!({ "jsonrpc": "2.0", "method": method.as_str(), "params": params });
        tx.send(Frame::Message(message.to_string())).is_ok()
    }
}
