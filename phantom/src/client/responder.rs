//! One call's other side: [`Responder`], what answers its server requests in place of the
//! builder's handlers, and [`Cancel`], what tells the server when the caller stops waiting.

use std::sync::Arc;

use serde_json::{Value, json};

use super::session::Link;
use crate::kernel::BoxFuture;
use crate::protocol::Method;

/// What answers the server's requests and hears its notifications during one
/// [`Client::request_with`](super::Client::request_with).
pub trait Responder: Send + Sync {
    /// The `result` for the server's request `method` (or a JSON-RPC error object). `key` names
    /// it within the call: the server's own key in 2026-07-28 (`inputRequests`), `input-1`,
    /// `input-2`, … in the order asked on a legacy session.
    fn answer<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Value, Value>>;

    /// The answers to several requests the server made at once (one 2026-07-28 round:
    /// `(key, method, params)` each), in order; by default [`answer`](Self::answer) for each in
    /// turn.
    fn answer_all<'a>(
        &'a self,
        asked: &'a [(String, String, Value)],
    ) -> BoxFuture<'a, Vec<Result<Value, Value>>> {
        Box::pin(async move {
            let mut answers = Vec::with_capacity(asked.len());
            for (key, method, params) in asked {
                answers.push(self.answer(method, params.clone(), key).await);
            }
            answers
        })
    }

    /// The server ended the call's stream before its answer (SEP-1699 polling); the client
    /// resumes it. A gateway ends its own client's stream too.
    fn stream_closed(&self) {}

    /// A notification the server sent while the call ran (`notifications/progress`,
    /// `notifications/message`, …).
    fn notified(&self, method: &str, params: &Value);
}

/// Sends `notifications/cancelled` for request `id` when dropped while armed (`link` set).
pub(super) struct Cancel {
    pub(super) link: Option<Arc<Link>>,
    pub(super) id: i64,
}

impl Drop for Cancel {
    fn drop(&mut self) {
        let Some(link) = self.link.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let message = json!({
            "jsonrpc": "2.0",
            "method": Method::Cancelled.as_str(),
            "params": {"requestId": self.id, "reason": "the client stopped waiting"},
        });
        runtime.spawn(async move {
            if let Err(e) = link.send(message.to_string()).await {
                tracing::debug!(error = %e, "could not send notifications/cancelled");
            }
        });
    }
}
