//! stdio transport: newline-delimited JSON-RPC on stdin/stdout, one session per process.

use std::collections::{HashMap, VecDeque};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::dispatch::Dispatcher;
use crate::kernel::Outbound;
use crate::protocol::Method;
use crate::server::Server;
use crate::session::SessionSlot;
use crate::session::{Request, Transport};
use crate::subscriptions::{Changes, Kind, Registration};

/// Serves `server` on the process's stdin and stdout until stdin closes. Logs go to stderr (set up
/// `tracing_subscriber` with `with_writer(std::io::stderr)`).
///
/// At end of input the session's `disconnect` and `terminate` callbacks run. With a
/// [`Config`](crate::Config): [`run_with_config`].
pub async fn run<S: Server>(server: S) -> std::io::Result<()> {
    serve(
        Dispatcher::new(server),
        tokio::io::stdin(),
        tokio::io::stdout(),
    )
    .await
}

/// [`run`] with a [`Config`](crate::Config): limits, stores, middleware, a notifier, as
/// [`Dispatcher::with_config`] takes them (on stdio a [`BearerAuth`](crate::auth::BearerAuth)
/// verifies nothing: `connect` reads the credentials, see [`phantom::auth`](crate::auth)).
///
/// ```no_run
/// # use phantom::prelude::*;
/// # #[derive(Clone)]
/// # struct Studies;
/// # #[mcp_router(name = "studies", version = "1.0.0")]
/// # impl Studies {
/// #     #[tool]
/// #     async fn search(&self, query: String) -> String { query }
/// # }
/// # async fn run() -> std::io::Result<()> {
/// let config = phantom::Config::default().with_page_size(20);
/// phantom::stdio::run_with_config(Studies, config).await
/// # }
/// ```
pub async fn run_with_config<S: Server>(server: S, config: crate::Config) -> std::io::Result<()> {
    serve(
        Dispatcher::with_config(server, config),
        tokio::io::stdin(),
        tokio::io::stdout(),
    )
    .await
}

/// Serves a dispatcher on any reader and writer pair (used by [`run`] and by tests).
pub async fn serve<S: Server, R, W>(
    dispatcher: Dispatcher<S>,
    input: R,
    mut output: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let request = Request {
        transport: Transport::Stdio,
        ..Request::default()
    };
    let mut session = SessionSlot::default();
    let mut lines = BufReader::new(input).lines();
    // Requests that arrive while another is handled wait their turn; responses (answers to the
    // handler's input requests) and notifications (`notifications/cancelled`) are handled at once.
    let mut queued = VecDeque::new();
    let mut eof = false;
    // Once the session is initialized, change notifications (list changes, updates of subscribed
    // resources) are written as they come, between and during requests.
    let mut changes: Option<(Registration, Changes)> = None;
    // 2026-07-28 `subscriptions/listen` requests never end on their own: each runs in a task of
    // its own (by request id, so `notifications/cancelled` can end it), writing through `streamed`.
    let mut listens: HashMap<String, tokio::task::JoinHandle<()>> = HashMap::new();
    let (streamed_tx, mut streamed) = mpsc::unbounded_channel::<String>();
    loop {
        let line = match queued.pop_front() {
            Some(line) => line,
            None if eof => break,
            None => tokio::select! {
                next = lines.next_line() => match next? {
                    Some(line) => line,
                    None => break,
                },
                Some(message) = next_change(&mut changes) => {
                    write_line(&mut output, message).await?;
                    continue;
                }
                Some(message) = streamed.recv() => {
                    write_line(&mut output, message).await?;
                    continue;
                }
            },
        };
        if line.trim().is_empty() || cancels_listen(&line, &mut listens) {
            continue;
        }
        if let Some(id) = listen_id(&line) {
            listens.retain(|_, task| !task.is_finished());
            let task = tokio::spawn(listen(
                dispatcher.clone(),
                line,
                request.clone(),
                streamed_tx.clone(),
            ));
            listens.insert(id, task);
            continue;
        }
        let snapshot = session.get().cloned();
        // What the handling sends before its result is written as it comes.
        let (outbound, mut rx) = Outbound::channel();
        let reply = {
            let handling = dispatcher.handle(&line, &request, &mut session, &outbound);
            tokio::pin!(handling);
            loop {
                tokio::select! {
                    biased;
                    reply = &mut handling => break reply,
                    Some(frame) = rx.recv() => {
                        if let Some(message) = frame.into_message() {
                            write_line(&mut output, message).await?;
                        }
                    }
                    Some(message) = next_change(&mut changes) => {
                        write_line(&mut output, message).await?;
                    }
                    Some(message) = streamed.recv() => {
                        write_line(&mut output, message).await?;
                    }
                    next = lines.next_line(), if !eof => match next? {
                        None => eof = true,
                        Some(next) if cancels_listen(&next, &mut listens) => {}
                        Some(next) if is_request(&next) => queued.push_back(next),
                        Some(next) => {
                            let mut side = SessionSlot::new(snapshot.clone());
                            let answer = dispatcher
                                .handle(&next, &request, &mut side, &Outbound::none())
                                .await;
                            if let Some(answer) = answer {
                                write_line(&mut output, answer.body).await?;
                            }
                        }
                    },
                }
            }
        };
        while let Ok(frame) = rx.try_recv() {
            if let Some(message) = frame.into_message() {
                write_line(&mut output, message).await?;
            }
        }
        if let Some(reply) = reply {
            write_line(&mut output, reply.body).await?;
        }
        if changes.is_none()
            && let Some(s) = session.get()
            && !s.is_modern()
        {
            changes = Some(dispatcher.listen_for_changes(Arc::new(s.clone()), Kind::Session));
        }
    }
    for task in listens.into_values() {
        task.abort();
    }
    if let Some(session) = session.get() {
        let server = dispatcher.server();
        crate::telemetry::disconnect(session);
        server.disconnect(session).await;
        let terminated = server.terminate(session).await;
        crate::telemetry::terminate(session, terminated.is_ok());
        if let Err(e) = terminated {
            tracing::warn!(error = %e, "terminate callback failed");
        }
    }
    Ok(())
}

/// Whether a line is a request (it has a method and an id), as opposed to a response or a
/// notification.
fn is_request(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line).is_ok_and(|v| {
        v.is_array() || (v.get("method").is_some() && v.get("id").is_some_and(|id| !id.is_null()))
    })
}

async fn write_line<W: AsyncWrite + Unpin>(output: &mut W, line: String) -> std::io::Result<()> {
    let mut bytes = line.into_bytes();
    bytes.push(b'\n');
    output.write_all(&bytes).await?;
    output.flush().await
}

/// The next change notification, once the session listens; never otherwise.
async fn next_change(changes: &mut Option<(Registration, Changes)>) -> Option<String> {
    match changes {
        Some((_, rx)) => futures_util::StreamExt::next(rx).await.map(String::from),
        None => std::future::pending().await,
    }
}

/// Runs one `subscriptions/listen` request to its end, writing what it sends through `out`.
async fn listen<S: Server>(
    dispatcher: Dispatcher<S>,
    line: String,
    request: Request,
    out: mpsc::UnboundedSender<String>,
) {
    let (outbound, mut rx) = Outbound::channel();
    let mut slot = SessionSlot::default();
    let handling = dispatcher.handle(&line, &request, &mut slot, &outbound);
    tokio::pin!(handling);
    let reply = loop {
        tokio::select! {
            biased;
            reply = &mut handling => break reply,
            Some(frame) = rx.recv() => {
                if let Some(message) = frame.into_message() {
                    let _ = out.send(message);
                }
            }
        }
    };
    while let Ok(frame) = rx.try_recv() {
        if let Some(message) = frame.into_message() {
            let _ = out.send(message);
        }
    }
    if let Some(reply) = reply {
        let _ = out.send(reply.body);
    }
}

/// The id (as JSON text) of a `subscriptions/listen` request.
fn listen_id(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    let method = Method::parse(v.get("method")?.as_str()?)?;
    (method == Method::SubscriptionsListen).then(|| v.get("id").map(ToString::to_string))?
}

/// Ends the listen a `notifications/cancelled` names; `true` when it named one.
fn cancels_listen(line: &str, listens: &mut HashMap<String, tokio::task::JoinHandle<()>>) -> bool {
    if listens.is_empty() {
        return false;
    }
    let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
        return false;
    };
    let cancel = v
        .get("method")
        .and_then(serde_json::Value::as_str)
        .and_then(Method::parse)
        == Some(Method::Cancelled);
    match v["params"].get("requestId").map(ToString::to_string) {
        Some(id) if cancel => listens.remove(&id).map(|task| task.abort()).is_some(),
        _ => false,
    }
}
