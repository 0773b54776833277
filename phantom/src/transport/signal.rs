//! [`shutdown_signal`]: the signals that stop a server, as one future.

/// Completes when the process is asked to stop: on `SIGTERM` (what Kubernetes, systemd and
/// `docker stop` send) or `SIGINT` (Ctrl-C); elsewhere than on Unix, on Ctrl-C.
///
/// Pass it as the `shutdown` of [`serve_listener`](crate::http::serve_listener) or
/// [`serve_dispatcher`](crate::http::serve_dispatcher) ([`serve`](crate::serve) and
/// [`stdio::run`](crate::stdio::run) use it already): the server then drains (see
/// [`HttpConfig::with_drain_delay`](crate::http::HttpConfig::with_drain_delay) and
/// [`HttpConfig::with_grace`](crate::http::HttpConfig::with_grace)) and returns.
///
/// Once it has completed, a second signal ends the process at once, with the status a shell
/// gives a process killed by that signal (143 for `SIGTERM`, 130 for `SIGINT`): an operator who
/// does not want to wait for the drain sends it again.
///
/// The signal handlers are installed when the future is first polled, and stay installed for
/// the life of the process (the signals no longer end it by themselves).
///
/// ```no_run
/// # use phantom::prelude::*;
/// # #[derive(Clone)] struct App;
/// # #[mcp_router(name = "app", version = "1.0.0")] impl App {}
/// # async fn run() -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("0.0.0.0:4000").await?;
/// let http = phantom::http::HttpConfig::for_addr(listener.local_addr()?);
/// phantom::http::serve_listener(listener, App, http, phantom::shutdown_signal()).await
/// # }
/// ```
pub async fn shutdown_signal() {
    let mut signals = Signals::install();
    let first = signals.next().await;
    tracing::info!(
        signal = first.name(),
        "shutting down (a second signal ends the process at once)"
    );
    // The second signal is awaited on the same handlers, so none is missed in between.
    if tokio::runtime::Handle::try_current().is_ok() {
        tokio::spawn(async move {
            let second = signals.next().await;
            tracing::warn!(
                signal = second.name(),
                "a second signal: the process ends now"
            );
            std::process::exit(second.exit_status());
        });
    }
}

/// A signal that stops the server.
#[derive(Clone, Copy)]
enum Stop {
    Terminate,
    Interrupt,
}

impl Stop {
    fn name(self) -> &'static str {
        match self {
            Self::Terminate => "SIGTERM",
            Self::Interrupt => "SIGINT",
        }
    }

    /// 128 + the signal's number, as a shell reports a process the signal ended.
    fn exit_status(self) -> i32 {
        match self {
            Self::Terminate => 143,
            Self::Interrupt => 130,
        }
    }
}

/// The handlers of the stopping signals (one that could not be installed never fires).
struct Signals {
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    #[cfg(unix)]
    fn install() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        let install = |kind: SignalKind, name: &str| match signal(kind) {
            Ok(handler) => Some(handler),
            Err(error) => {
                tracing::warn!(%error, "cannot listen for {name}");
                None
            }
        };
        Self {
            terminate: install(SignalKind::terminate(), "SIGTERM"),
            interrupt: install(SignalKind::interrupt(), "SIGINT"),
        }
    }

    #[cfg(not(unix))]
    fn install() -> Self {
        Self {}
    }

    #[cfg(unix)]
    async fn next(&mut self) -> Stop {
        async fn recv(handler: &mut Option<tokio::signal::unix::Signal>) {
            match handler {
                Some(handler) => {
                    if handler.recv().await.is_none() {
                        std::future::pending::<()>().await;
                    }
                }
                None => std::future::pending::<()>().await,
            }
        }
        tokio::select! {
            () = recv(&mut self.terminate) => Stop::Terminate,
            () = recv(&mut self.interrupt) => Stop::Interrupt,
        }
    }

    #[cfg(not(unix))]
    async fn next(&mut self) -> Stop {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        Stop::Interrupt
    }
}
