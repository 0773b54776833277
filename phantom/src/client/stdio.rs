//! stdio, the client side: the server is a child process speaking newline-delimited JSON on its
//! stdin and stdout; its stderr passes through; it is killed when the client is dropped.

use std::collections::HashMap;
use std::process::Stdio as Pipes;
use std::sync::{Arc, Mutex};

use futures_util::StreamExt as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use super::handlers::Handlers;
use super::{ClientError, Listener, Messages};
use crate::kernel::{BoxFuture, Locked as _};
use crate::protocol::Method;

type Senders = HashMap<String, mpsc::UnboundedSender<Result<Value, ClientError>>>;

/// A running server process.
pub(super) struct Stdio {
    stdin: Arc<tokio::sync::Mutex<ChildStdin>>,
    /// The requests waiting for their responses, by id (as JSON text).
    pending: Arc<Mutex<Senders>>,
    /// Killed when the client closes or is dropped (`kill_on_drop`).
    child: Mutex<Child>,
}

impl Stdio {
    /// Spawns `program` with `args`; notifications that belong to no request reach `listener`,
    /// requests that belong to none are answered by `handlers`.
    pub(super) fn spawn(
        program: &str,
        args: &[String],
        listener: Option<Listener>,
        handlers: Arc<Handlers>,
    ) -> Result<Self, ClientError> {
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
        let stdin = Arc::new(tokio::sync::Mutex::new(stdin));
        let replies = Arc::downgrade(&stdin);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(message) = serde_json::from_str::<Value>(&line) else {
                    tracing::warn!("the server wrote a line that is not JSON; skipped");
                    continue;
                };
                if let Some(request) = route(&routes, message, listener.as_ref()) {
                    tokio::spawn(reply(Arc::clone(&handlers), request, replies.clone()));
                }
            }
            // The process ended: every waiting request hears it.
            for (_, tx) in routes.locked().drain() {
                let _ = tx.send(Err(ClientError::Transport(
                    "the server's process exited".into(),
                )));
            }
        });
        Ok(Self {
            stdin,
            pending,
            child: Mutex::new(child),
        })
    }

    /// Kills the server's process (once: a second call finds it killed).
    pub(super) fn close(&self) {
        if let Err(error) = self.child.locked().start_kill() {
            tracing::debug!(%error, "the stdio server's process could not be killed");
        }
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

/// Answers a server request that came with no request of the client in flight (a task's
/// elicitation, a `ping`) through the client's handlers.
async fn reply(
    handlers: Arc<Handlers>,
    request: Value,
    stdin: std::sync::Weak<tokio::sync::Mutex<ChildStdin>>,
) {
    let method = request["method"].as_str().unwrap_or_default();
    let reply = match handlers.answer(method, request["params"].clone()).await {
        Ok(result) => json!({"jsonrpc": "2.0", "id": request["id"], "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": request["id"], "error": error}),
    };
    let Some(stdin) = stdin.upgrade() else { return };
    let mut stdin = stdin.lock().await;
    let mut line = reply.to_string();
    line.push('\n');
    if let Err(error) = stdin.write_all(line.as_bytes()).await {
        tracing::debug!(%error, "the answer to a server request could not be written");
    }
    let _ = stdin.flush().await;
}

/// Hands a message to the request it answers. A change the server announces
/// (`notifications/…/list_changed`, `notifications/resources/updated`, …) belongs to no request
/// and goes to `listener`; progress goes to the request whose id is its token; other server
/// requests and notifications go to a request in flight (whichever: stdio does not say which),
/// or to `listener` when none is; a server request with none in flight is given back, to be
/// answered by the handlers.
fn route(pending: &Mutex<Senders>, message: Value, listener: Option<&Listener>) -> Option<Value> {
    let mut pending = pending.locked();
    let method = message.get("method").and_then(Value::as_str);
    let Some(method) = method else {
        let id = message.get("id").map(Value::to_string).unwrap_or_default();
        if let Some(tx) = pending.remove(&id) {
            let _ = tx.send(Ok(message));
        }
        return None;
    };
    pending.retain(|_, tx| !tx.is_closed());
    let is_request = message.get("id").is_some();
    let kind = Method::parse(method);
    let belongs = is_request || matches!(kind, Some(Method::Progress | Method::LogMessage));
    let target = if kind == Some(Method::Progress) {
        let token = message["params"]["progressToken"].to_string();
        pending.get(&token).or_else(|| pending.values().next())
    } else if belongs {
        pending.values().next()
    } else {
        None
    };
    match (target, listener) {
        (Some(tx), _) => {
            let _ = tx.send(Ok(message));
        }
        (None, _) if is_request => return Some(message),
        (None, Some(listener)) => listener(method, &message["params"]),
        (None, None) => tracing::debug!(
            method,
            "a server notification with no request in flight and no listener; dropped"
        ),
    }
    None
}
