//! stdio transport: newline-delimited JSON-RPC on stdin/stdout, one session per process.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::dispatch::{Dispatcher, SessionSlot};
use crate::server::Server;
use crate::server::{Request, Transport};

/// Serves `server` on the process's stdin and stdout until stdin closes. Logs go to stderr (set up
/// `tracing_subscriber` with `with_writer(std::io::stderr)`).
///
/// At end of input the session's `disconnect` and `terminate` callbacks run.
pub async fn run<S: Server>(server: S) -> std::io::Result<()> {
    serve(
        Dispatcher::new(server),
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
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        if let Some(reply) = dispatcher.handle(&line, &request, &mut session).await {
            let mut body = reply.body.into_bytes();
            body.push(b'\n');
            output.write_all(&body).await?;
            output.flush().await?;
        }
    }
    if let Some(session) = session.get() {
        let server = dispatcher.server();
        server.disconnect(session).await;
        if let Err(e) = server.terminate(session).await {
            tracing::warn!(error = %e, "terminate callback failed");
        }
    }
    Ok(())
}
