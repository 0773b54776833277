//! Serving on a TCP listener: [`serve`], [`serve_listener`] and [`serve_dispatcher`], with the
//! liveness and readiness probes and a drain on shutdown.

use std::sync::Arc;
use std::time::Duration;

use super::coalesce::Coalesce;
use super::watch::{self, Watch};
use super::{AtMcp, HttpConfig, endpoint_for, metadata_body};
use crate::dispatch::Dispatcher;
use crate::server::Server;
use crate::transport::shutdown_signal;

/// Serves `server` at `http://<addr>/mcp` until `SIGTERM` or `SIGINT`
/// ([`shutdown_signal`](crate::shutdown_signal)), then drains, with `TCP_NODELAY` on every
/// socket, the default [`Config`](crate::Config) and the safe defaults of
/// [`HttpConfig::for_addr`]: what [`serve_dispatcher`] does for `Dispatcher::new(server)`.
pub async fn serve<S: Server>(
    server: S,
    addr: impl tokio::net::ToSocketAddrs,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let http = HttpConfig::for_addr(listener.local_addr()?);
    serve_dispatcher(listener, Dispatcher::new(server), http, shutdown_signal()).await
}

/// Serves `server` with the default [`Config`](crate::Config) on a bound listener at `/mcp` until
/// `shutdown` completes ([`shutdown_signal`](crate::shutdown_signal) in a deployment; tests bind
/// `127.0.0.1:0` and pass a channel), then drains: what [`serve_dispatcher`] does for
/// `Dispatcher::new(server)`.
pub async fn serve_listener<S, F>(
    listener: tokio::net::TcpListener,
    server: S,
    http: HttpConfig,
    shutdown: F,
) -> std::io::Result<()>
where
    S: Server,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    serve_dispatcher(listener, Dispatcher::new(server), http, shutdown).await
}

/// Serves a dispatcher on a bound listener at `/mcp` until `shutdown` completes, then drains:
/// the one way phantom serves HTTP on its own sockets ([`serve`] and [`serve_listener`] come
/// here).
///
/// Beside the endpoint the listener answers `GET /healthz` and `GET /readyz`
/// ([`HttpConfig::health_path`], [`HttpConfig::ready_path`]), and, with the `prometheus`
/// feature and `install_prometheus()`, `GET /metrics` (`HttpConfig::metrics_path`); with an [`HttpConfig::admin_addr`] it binds that address too
/// and answers the probes and the metrics there, the metrics there alone. Once `shutdown`
/// completes:
///
/// 1. readiness answers `503` ([`Dispatcher::drain`]), and the listener keeps accepting and
///    serving for [`HttpConfig::drain_delay`], so that a load balancer checking it stops
///    sending new work before the port closes;
/// 2. the listener closes; open `subscriptions/listen` streams end with
///    `notifications/cancelled` and their final result, and GET streams end, each with a
///    `retry:` hint, so that clients listen again or resume (`Last-Event-ID`) on another node;
///    kept-alive connections close once their current answer is written;
/// 3. requests in flight have [`HttpConfig::grace`] to finish, and so have the tasks running
///    on this node (it starts no new one from then on); tasks still running then are stored `failed`
///    with a message saying the node shut down ([`Dispatcher::finish_tasks`]); then the
///    function returns, and what still runs is dropped with the runtime.
///
/// The dispatcher carries the server's [`Config`](crate::Config) ([`Dispatcher::with_config`]),
/// backend included: its session and event stores serve the HTTP sessions and streams, its other
/// seams the requests, so the two cannot disagree. Make it beforehand to mount upstreams or
/// merge routers into it, and keep a clone to reach the served instance while it runs (its
/// [`registry`](Dispatcher::registry), its [`notifier`](Dispatcher::notifier)).
///
/// ```no_run
/// # use phantom::prelude::*;
/// # #[derive(Clone)] struct App;
/// # #[mcp_router(name = "app", version = "1.0.0")] impl App {}
/// # async fn run(backend: phantom::store::Backend) -> Result<(), Box<dyn std::error::Error>> {
/// use phantom::dispatch::Dispatcher;
/// use phantom::http::HttpConfig;
///
/// // `backend`: `phantom_redis::backend("redis://…").await?`, shared by every node.
/// let config = phantom::Config::default().with_backend(backend);
/// let dispatcher = Dispatcher::with_config(App, config);
/// let listener = tokio::net::TcpListener::bind("0.0.0.0:4000").await?;
/// let http = HttpConfig::for_addr(listener.local_addr()?);
/// phantom::http::serve_dispatcher(listener, dispatcher, http, async { /* a signal */ }).await?;
/// # Ok(()) }
/// ```
pub async fn serve_dispatcher<S, F>(
    listener: tokio::net::TcpListener,
    dispatcher: Dispatcher<S>,
    http: HttpConfig,
    shutdown: F,
) -> std::io::Result<()>
where
    S: Server,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    // A node keyed differently from the others sharing its backend does not start.
    dispatcher.check_state_key().await?;
    // hyper serves each connection directly (no axum `serve`, no router): the peer address
    // travels in the connection's endpoint rather than in a per-request extension.
    let local = listener.local_addr()?;
    // Each connection is served by hyper's HTTP/1 or HTTP/2 server, chosen from the peeked
    // preface (`sent_a_version`): hyper-util's `auto` builder would read the first bytes itself
    // and hand them back through a `Rewind`, whose short first read makes hyper grow the
    // connection's read buffer to 16 KB, kept for as long as the connection (a held SSE stream).
    let mut http1 = hyper::server::conn::http1::Builder::new();
    // A client that sends half a request head (or idles on a kept-alive connection) is dropped
    // after the header timeout instead of holding its connection forever. The timer is each
    // connection's own (`watch::HeadTimer`), given when the connection is served.
    http1
        // The response head and body are written from one buffer rather than queued for a
        // vectored write: a held SSE stream keeps no write queue besides hyper's 8 KB buffer.
        .writev(false)
        .header_read_timeout(http.header_read_timeout);
    let (drain_delay, grace) = (http.drain_delay, http.grace);
    let mut http2 = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new());
    http2.timer(hyper_util::rt::TokioTimer::new());
    let builders = Arc::new((http1, http2));
    let header_timeout = http.header_read_timeout;
    let watch = Watch::new();
    tokio::spawn(Arc::clone(&watch).sweep(watch::sweep_every(header_timeout)));
    let metadata = http.protected_resource.as_ref().map(metadata_body);
    // The probes and the metrics on an address of their own, if one is set; it is served
    // until this function returns (the probes answer through the drain).
    let admin = match http.admin_addr {
        Some(addr) => {
            let admin_listener = tokio::net::TcpListener::bind(addr).await?;
            let router = super::probes::admin(&dispatcher, &http);
            tracing::info!(addr = %admin_listener.local_addr()?, "serving the probes and metrics");
            Some(AbortOnDrop(tokio::spawn(async move {
                if let Err(e) = axum::serve(admin_listener, router).await {
                    tracing::warn!(error = %e, "the admin listener stopped");
                }
            })))
        }
        None => None,
    };
    #[cfg(feature = "authz")]
    let authorization_server = http.authorization_server.clone();
    let app = AtMcp {
        mcp: endpoint_for(dispatcher, http),
        metadata,
        #[cfg(feature = "authz")]
        authorization_server,
    };
    let st = Arc::clone(&app.mcp.plain.st);
    tracing::info!(%local, "serving MCP at http://{local}/mcp");
    let mut shutdown = std::pin::pin!(shutdown);
    // When the listener closes, once the shutdown began.
    let mut closing: Option<tokio::time::Instant> = None;
    loop {
        let (tcp, peer) = tokio::select! {
            biased;
            () = tokio::time::sleep_until(closing.unwrap_or_else(tokio::time::Instant::now)),
                if closing.is_some() => break,
            () = &mut shutdown, if closing.is_none() => {
                st.dispatcher.drain();
                tracing::info!(
                    ?drain_delay,
                    "shutting down: readiness answers 503; accepting for the drain delay"
                );
                closing = Some(tokio::time::Instant::now() + drain_delay);
                continue;
            }
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!(error = %e, "could not set TCP_NODELAY");
        }
        let app = app.clone();
        // The builders are shared: a connection's task (held by every open SSE stream) keeps a
        // pointer to them, not copies of both.
        let (builders, served) = (Arc::clone(&builders), watch.connection());
        // hyper hands the service each request as soon as its head is read: the wait for the
        // head is over.
        let arrived = served.head_arrived();
        let svc = hyper::service::service_fn(move |req| {
            arrived.now();
            app.answer(peer, req)
        });
        tokio::spawn(async move {
            let Some(version) = sent_a_version(&tcp, header_timeout).await else {
                return;
            };
            let io = hyper_util::rt::TokioIo::new(tcp);
            let served = match version {
                Version::Http1 => {
                    // The shared settings, with this connection's own header timer; the copy
                    // is gone once `serve_connection` has copied them into the connection.
                    let conn = {
                        let mut http1 = builders.0.clone();
                        http1.timer(served.head_timer());
                        http1.serve_connection(io, svc)
                    };
                    served.serve(conn).await
                }
                // Boxed: an HTTP/2 connection's state is larger, and the task of every
                // HTTP/1.1 connection (one per held SSE stream) would be as large inline.
                // Its writes are put off by a turn, so that the frames of its streams leave
                // together (`coalesce`).
                Version::Http2 => {
                    let io = Coalesce::new(io);
                    Box::pin(served.serve(builders.1.serve_connection(io, svc))).await
                }
            };
            if let Err(e) = served {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }
    // Stop accepting, end the streams (listens with their final result, each with a `retry:`
    // hint), then let open connections finish their requests (as `axum::serve` does), for at
    // most the grace period.
    drop(listener);
    st.dispatcher.close_listens();
    st.sessions.close_streams();
    tracing::info!(
        ?grace,
        "stopped accepting; finishing the requests in flight"
    );
    // Tasks running here have the same grace; those still running then are stored failed.
    let (requests, ()) = tokio::join!(
        tokio::time::timeout(grace, watch.shutdown()),
        st.dispatcher.finish_tasks(grace)
    );
    if requests.is_err() {
        tracing::warn!(
            ?grace,
            "requests still in flight at the end of the grace period are dropped"
        );
    }
    drop(admin);
    Ok(())
}

/// Stops a spawned task when dropped (the admin listener, when serving ends however it ends).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The HTTP version a connection speaks, told by its first bytes.
enum Version {
    Http1,
    Http2,
}

/// Waits until a new connection has sent enough to tell HTTP/1 from HTTP/2 (the HTTP/2 preface),
/// for at most `within`, and says which: the bytes are peeked, so hyper reads them again itself.
/// A peer that connects and sends nothing (or a few bytes of the preface) would otherwise hold
/// its connection for ever. `None` when the peer sent too little in time, or closed.
async fn sent_a_version(tcp: &tokio::net::TcpStream, within: Duration) -> Option<Version> {
    const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    let deadline = tokio::time::Instant::now() + within;
    let mut buf = [0u8; 24];
    let mut seen = 0;
    loop {
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        let n = match tokio::time::timeout_at(deadline, tcp.peek(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => n,
            _ => return None,
        };
        if buf[..n] != PREFACE[..n] {
            return Some(Version::Http1);
        }
        if n == PREFACE.len() {
            return Some(Version::Http2);
        }
        if n == seen {
            // A prefix of the preface and nothing new: `peek` would return at once again.
            tokio::time::sleep_until(
                deadline.min(tokio::time::Instant::now() + Duration::from_millis(20)),
            )
            .await;
        }
        seen = n;
    }
}
