//! [`Outbound`]: what a request's handling sends the client before its result. Messages are
//! serialized JSON-RPC text, so a transport (or, later, a bus between nodes) carries them as they
//! are: an SSE response on HTTP, lines on stdio.

use serde::Serialize;
use serde_json::json;
use tokio::sync::mpsc;

use crate::protocol::Method;

/// The sending side of one request's outbound messages. Cloning is cheap; a handler may keep a
/// clone while it works. Without a listener (a transport that cannot send early), messages are
/// dropped.
#[derive(Debug, Clone, Default)]
pub struct Outbound {
    tx: Option<mpsc::UnboundedSender<String>>,
}

impl Outbound {
    /// An outbound path that sends nothing.
    pub fn none() -> Self {
        Self::default()
    }

    /// An outbound path and the receiver a transport drains while the request runs.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<String>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx: Some(tx) }, rx)
    }

    /// Whether a transport listens (this is not [`Outbound::none`]).
    pub(crate) fn is_open(&self) -> bool {
        self.tx.is_some()
    }

    /// What [`close_stream`](Self::close_stream) sends: never a JSON-RPC message.
    pub(crate) const CLOSE: &'static str = "";

    /// What [`keep_alive`](Self::keep_alive) sends: never a JSON-RPC message.
    pub(crate) const KEEP_ALIVE: &'static str = " ";

    /// Whether a message is one of the two signals to the transport ([`Self::CLOSE`],
    /// [`Self::KEEP_ALIVE`]) rather than a JSON-RPC message.
    pub(crate) fn is_signal(message: &str) -> bool {
        message == Self::CLOSE || message == Self::KEEP_ALIVE
    }

    /// Asks the transport to show the stream is alive (an SSE comment on HTTP; nothing on
    /// stdio); `false` when nobody listens any more.
    pub(crate) fn keep_alive(&self) -> bool {
        self.send(Self::KEEP_ALIVE.to_owned())
    }

    /// Asks the transport to end the request's stream now (2025-11-25 HTTP, SEP-1699 polling):
    /// the handling goes on, and the client fetches what follows with `Last-Event-ID`. Transports
    /// that cannot resume ignore it.
    pub(crate) fn close_stream(&self) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(Self::CLOSE.to_owned());
        }
    }

    /// Sends a message already serialized (a server-to-client request); `false` when nobody
    /// listens.
    pub(crate) fn send(&self, message: String) -> bool {
        self.tx.as_ref().is_some_and(|tx| tx.send(message).is_ok())
    }

    /// Sends a notification; `false` when nobody listens any more.
    pub(crate) fn notify(&self, method: Method, params: &impl Serialize) -> bool {
        let Some(tx) = &self.tx else {
            return false;
        };
        let message = json!({ "jsonrpc": "2.0", "method": method.as_str(), "params": params });
        tx.send(message.to_string()).is_ok()
    }
}
