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

/// Serves `server` on the process's stdin and stdout until stdin closes or the process gets
/// `SIGTERM` or `SIGINT` ([`shutdown_signal`](crate::shutdown_signal)). Logs go to stderr (set
/// up `tracing_subscriber` with `with_writer(std::io::stderr)`).
///
/// At end of input the session's `disconnect` and `terminate` callbacks run. On a signal the
/// server reads no more input, finishes the requests it has read (their answers are written),
/// ends its `subscriptions/listen` streams with their final results, runs the same callbacks and
/// returns `Ok`, so that a `main` returning it exits 0 — even while the host keeps stdin open
/// (stdin is read on a thread of its own, which does not hold the runtime's shutdown). With a
/// [`Config`](crate::Config): [`run_with_config`].
pub async fn run<S: Server>(server: S) -> std::io::Result<()> {
    serve_until(
        Dispatcher::new(server),
        process_stdin(),
        tokio::io::stdout(),
        crate::shutdown_signal(),
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
    serve_until(
        Dispatcher::with_config(server, config),
        process_stdin(),
        tokio::io::stdout(),
        crate::shutdown_signal(),
    )
    .await
}

/// The process's stdin, read by a thread of its own. tokio's `stdin()` reads on the runtime's
/// blocking pool, and a runtime waits for its blocking pool as it shuts down: a host that keeps
/// stdin open after `SIGTERM` would keep the process alive. A plain thread ends with the process.
fn process_stdin() -> impl AsyncRead + Unpin {
    use std::io::Read as _;
    // A duplex pipe rather than a simplex one: dropping its writing end ends the input.
    let (mut writer, reader) = tokio::io::duplex(64 * 1024);
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        // Outside a runtime nothing can be served anyway: the input is empty.
        return reader;
    };
    let spawned = std::thread::Builder::new()
        .name("phantom-stdin".into())
        .spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let mut buf = vec![0u8; 8 * 1024];
            loop {
                let n = match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                if runtime.block_on(writer.write_all(&buf[..n])).is_err() {
                    break;
                }
            }
            // Dropping the writer ends the input.
        });
    if let Err(error) = spawned {
        tracing::warn!(%error, "cannot start the thread that reads stdin");
    }
    reader
}

/// Serves a dispatcher on any reader and writer pair (used by [`run`] and by tests), until the
/// input ends.
pub async fn serve<S: Server, R, W>(
    dispatcher: Dispatcher<S>,
    input: R,
    output: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    serve_until(dispatcher, input, output, std::future::pending()).await
}

/// [`serve`] until the input ends or `stop` completes: then no more input is read, the requests
/// read already are answered and the listens end with their final results.
async fn serve_until<S: Server, R, W>(
    dispatcher: Dispatcher<S>,
    input: R,
    mut output: W,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    tokio::pin!(stop);
    // Set once `stop` completed: it is not polled again.
    let mut stopped = false;
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
                () = &mut stop, if !stopped => {
                    stopped = true;
                    break;
                }
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
                    // No more input: this request finishes, and the ones read already.
                    () = &mut stop, if !stopped => {
                        stopped = true;
                        eof = true;
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
    if stopped {
        // The listens end with their final results, written before the process goes.
        dispatcher.close_listens();
        for task in listens.into_values() {
            if tokio::time::timeout(LISTENS_END_WITHIN, task)
                .await
                .is_err()
            {
                tracing::warn!("a listen did not end in time");
            }
        }
        while let Ok(message) = streamed.try_recv() {
            write_line(&mut output, message).await?;
        }
    } else {
        for task in listens.into_values() {
            task.abort();
        }
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

/// How long the listens have to write their final results once the server stops.
const LISTENS_END_WITHIN: std::time::Duration = std::time::Duration::from_secs(1);

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
