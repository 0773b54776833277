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
    tx: Option<Tx>,
}

/// The sending half: tokio's channel for [`Outbound::channel`] (public), futures-channel's for
/// the HTTP transport's own requests ([`Outbound::frames`]), which opens one for every legacy
/// request of a session and usually sends nothing on it. Tokio's writes a cache-padded state
/// and a 32-slot block when it is made; futures-channel's is cheaper to make and drop (1.7 k
/// fewer instructions per legacy request in `bench/NOTES.md`, round 13).
#[derive(Debug, Clone)]
enum Tx {
    Tokio(mpsc::UnboundedSender<Frame>),
    Light(futures_channel::mpsc::UnboundedSender<Frame>),
}

impl Tx {
    fn send(&self, frame: Frame) -> bool {
        match self {
            Self::Tokio(tx) => tx.send(frame).is_ok(),
            Self::Light(tx) => tx.unbounded_send(frame).is_ok(),
        }
    }
}

/// The receiving half of [`Outbound::frames`].
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) type Frames = futures_channel::mpsc::UnboundedReceiver<Frame>;

impl Outbound {
    /// An outbound path that sends nothing.
    pub fn none() -> Self {
        Self::default()
    }

    /// An outbound path and the receiver a transport drains while the request runs.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Frame>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Self {
                tx: Some(Tx::Tokio(tx)),
            },
            rx,
        )
    }

    /// An outbound path and its receiver, on futures-channel's channel (see [`Tx`]).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn frames() -> (Self, Frames) {
        let (tx, rx) = futures_channel::mpsc::unbounded();
        (
            Self {
                tx: Some(Tx::Light(tx)),
            },
            rx,
        )
    }

    /// Whether a transport listens (this is not [`Outbound::none`]).
    pub(crate) fn is_open(&self) -> bool {
        self.tx.is_some()
    }

    /// Asks the transport to show the stream is alive (an SSE comment on HTTP; nothing on
    /// stdio); `false` when nobody listens any more.
    pub(crate) fn keep_alive(&self) -> bool {
        self.tx.as_ref().is_some_and(|tx| tx.send(Frame::KeepAlive))
    }

    /// Asks the transport to end the request's stream now (2025-11-25 HTTP, SEP-1699 polling):
    /// the handling goes on, and the client fetches what follows with `Last-Event-ID`. Transports
    /// that cannot resume ignore it.
    pub(crate) fn close_stream(&self) {
        if let Some(tx) = &self.tx {
            tx.send(Frame::Close);
        }
    }

    /// Sends a message already serialized (a server-to-client request); `false` when nobody
    /// listens.
    pub(crate) fn send(&self, message: String) -> bool {
        self.tx
            .as_ref()
            .is_some_and(|tx| tx.send(Frame::Message(message)))
    }

    /// Sends a notification; `false` when nobody listens any more.
    pub(crate) fn notify(&self, method: Method, params: &impl Serialize) -> bool {
        let Some(tx) = &self.tx else {
            return false;
        };
        let message = json!({ "jsonrpc": "2.0", "method": method.as_str(), "params": params });
        tx.send(Frame::Message(message.to_string()))
    }
}
