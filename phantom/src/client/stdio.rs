//! stdio, the client side: the server is a child process speaking newline-delimited JSON on its
//! stdin and stdout; its stderr passes through; it is killed when the client is dropped.

use std::collections::HashMap;
use std::process::Stdio as Pipes;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt as _;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use super::{ClientError, Messages};
use crate::kernel::{BoxFuture, Locked as _};

type Senders = HashMap<String, mpsc::UnboundedSender<Result<Value, ClientError>>>;

/// A running server process.
pub(super) struct Stdio {
    stdin: tokio::sync::Mutex<ChildStdin>,
    /// The requests waiting for their responses, by id (as JSON text).
    pending: Arc<Mutex<Senders>>,
    _child: Child,
}

impl Stdio {
    /// Spawns `program` with `args`.
    pub(super) fn spawn(program: &str, args: &[String]) -> Result<Self, ClientError> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Pipes::piped())
            .stdout(Pipes::piped())
            .stderr(Pipes::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ClientError::Transport(format!("could not start `{program}`: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Transport("no pipes to the server".into()));
        };
        let pending: Arc<Mutex<Senders>> = Arc::default();
        let routes = Arc::clone(&pending);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(message) = serde_json::from_str::<Value>(&line) else {
                    tracing::warn!("the server wrote a line that is not JSON; skipped");
                    continue;
                };
                route(&routes, message);
            }
            // The process ended: every waiting request hears it.
            for (_, tx) in routes.locked().drain() {
                let _ = tx.send(Err(ClientError::Transport(
                    "the server's process exited".into(),
                )));
            }
        });
        Ok(Self {
            stdin: tokio::sync::Mutex::new(stdin),
            pending,
            _child: child,
        })
    }

    /// Writes one message; for a request (`id` given), the messages that answer it: server
    /// requests and notifications while it runs, then its response.
    pub(super) fn send<'a>(
        &'a self,
        message: String,
        id: Option<String>,
    ) -> BoxFuture<'a, Result<Messages, ClientError>> {
        Box::pin(async move {
            let rx = id.map(|id| {
                let (tx, rx) = mpsc::unbounded_channel();
                self.pending.locked().insert(id, tx);
                rx
            });
            let mut stdin = self.stdin.lock().await;
            let written = async {
                stdin.write_all(message.as_bytes()).await?;
                stdin.write_all(b"\n").await?;
                stdin.flush().await
            };
            written.await.map_err(|e| {
                ClientError::Transport(format!("writing to the server's stdin: {e}"))
            })?;
            Ok(match rx {
                Some(rx) => futures_util::stream::unfold(rx, |mut rx| async move {
                    rx.recv().await.map(|m| (m, rx))
                })
                .boxed(),
                None => futures_util::stream::empty().boxed(),
            })
        })
    }
}

/// Hands a message to the request it answers; server requests and notifications go to a request
/// in flight (whichever: the client answers them alike), or are dropped when none is.
fn route(pending: &Mutex<Senders>, message: Value) {
    let mut pending = pending.locked();
    let is_response = message.get("method").is_none();
    if is_response {
        let id = message.get("id").map(Value::to_string).unwrap_or_default();
        if let Some(tx) = pending.remove(&id) {
            let _ = tx.send(Ok(message));
        }
        return;
    }
    pending.retain(|_, tx| !tx.is_closed());
    if let Some(tx) = pending.values().next() {
        let _ = tx.send(Ok(message));
    } else {
        tracing::debug!("a server message with no request in flight; dropped");
    }
}
