//! stdio transport: newline-delimited JSON-RPC on stdin/stdout, one session per process.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::dispatch::{Dispatcher, Outbound, SessionSlot};
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
        // What the handling sends before its result is written as it comes.
        let (outbound, mut rx) = Outbound::channel();
        let reply = {
            let handling = dispatcher.handle(&line, &request, &mut session, &outbound);
            tokio::pin!(handling);
            loop {
                tokio::select! {
                    biased;
                    reply = &mut handling => break reply,
                    Some(message) = rx.recv() => write_line(&mut output, message).await?,
                }
            }
        };
        while let Ok(message) = rx.try_recv() {
            write_line(&mut output, message).await?;
        }
        if let Some(reply) = reply {
            write_line(&mut output, reply.body).await?;
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

async fn write_line<W: AsyncWrite + Unpin>(output: &mut W, line: String) -> std::io::Result<()> {
    let mut bytes = line.into_bytes();
    bytes.push(b'\n');
    output.write_all(&bytes).await?;
    output.flush().await
}
