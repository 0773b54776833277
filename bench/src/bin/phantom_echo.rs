//! The phantom side of the benchmark: one tool `echo {text}` → text, one tool `progress {count}`
//! (that many `notifications/progress`, then `done`), one tool `touch {uri}` (announces that the
//! resource was updated, for the fan-out scenarios), one task tool `job {text}` (the task-creation
//! scenario) and one resource template,
//! the same behaviour as the rmcp peer, at `http://$ADDR/mcp` (default `127.0.0.1:8940`), with
//! phantom's defaults (no tuning).
//!
//! | env | values | default | effect |
//! |---|---|---|---|
//! | `MODE` | `stateful` \| `stateless` | `stateful` | `stateless`: legacy stateless mode, `HttpConfig::default().with_stateless(true)` (no `Mcp-Session-Id`, every 2025-11-25 request stands alone); the same switch the rmcp peer takes. 2026-07-28 requests are stateless either way. |
//! | `ADDR` | `host:port` | `127.0.0.1:8940` | listen address |
//! | `REDIS` | `redis://host:port/` | unset | every shared seam in that Redis (`phantom_redis::backend`): the scale-out benchmark (`bench/scale.py`) |
//! | `MIDDLEWARE` | `rate`, `audit`, comma-separated | unset | that chain of built-in middleware (a rate limit no request reaches, an access log): the chain's cost |
//! | `METRICS` | `1` | unset | with phantom-bench's `metrics` feature (phantom's `prometheus`): `phantom::http::install_prometheus()` before serving, so every request is recorded and `/metrics` answers; without the feature phantom's metrics are not compiled at all. Round 22's off/on rows of `phantom-bench instructions` |
//! | `MOUNT` | `1` | unset | phantom mounted in an axum app (`nest_service("/mcp", phantom::http::service(..))` under `axum::serve`) instead of `phantom::serve`: the `mounted-call` row of `phantom-bench instructions` |

#[path = "../echo.rs"]
mod echo;

use echo::Echo;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:8940".into());
    let stateless = match std::env::var("MODE").as_deref() {
        Ok("stateless") => true,
        Ok("stateful") | Err(_) => false,
        Ok(other) => {
            return Err(std::io::Error::other(format!(
                "MODE must be `stateful` or `stateless`, not `{other}`"
            )));
        }
    };
    if std::env::var("METRICS").as_deref() == Ok("1") {
        #[cfg(feature = "metrics")]
        phantom::http::install_prometheus()?;
        #[cfg(not(feature = "metrics"))]
        return Err(std::io::Error::other(
            "METRICS=1 needs phantom-bench built with `--features metrics`",
        ));
    }
    eprintln!(
        "phantom-echo listening on http://{addr}/mcp mode={}",
        if stateless { "stateless" } else { "stateful" }
    );
    if let Ok(url) = std::env::var("REDIS") {
        // `phantom::serve` with every shared seam in Redis.
        let backend = phantom_redis::backend(&url)
            .await
            .map_err(|e| std::io::Error::other(format!("REDIS={url}: {e}")))?;
        let listener = tokio::net::TcpListener::bind(&addr).await?;
        let config = phantom::Config::default().with_backend(backend);
        let http = phantom::http::HttpConfig::default().with_stateless(stateless);
        let shutdown = async {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        let dispatcher = phantom::dispatch::Dispatcher::with_config(Echo, config);
        return phantom::http::serve_dispatcher(listener, dispatcher, http, shutdown).await;
    }
    if std::env::var("MOUNT").as_deref() == Ok("1") {
        // Mounted in an application's own axum app, the way the docs show, with `TCP_NODELAY`
        // as `phantom::serve` sets it.
        use axum::serve::ListenerExt as _;
        let listener = tokio::net::TcpListener::bind(&addr).await?;
        let config =
            phantom::http::HttpConfig::for_addr(listener.local_addr()?).with_stateless(stateless);
        let app = axum::Router::new().nest_service("/mcp", phantom::http::service(Echo, config));
        let listener = listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                eprintln!("phantom-echo: set_nodelay failed: {e}");
            }
        });
        return axum::serve(listener, app).await;
    }
    if let Ok(chain) = std::env::var("MIDDLEWARE") {
        // `MIDDLEWARE=rate,audit`: the chain's cost, with a rate limit no request reaches and an
        // access log (written to stderr when `AUDIT_LOG=1`).
        if std::env::var("AUDIT_LOG").as_deref() == Ok("1") {
            tracing_subscriber::fmt()
                .with_writer(std::io::stderr)
                .init();
        }
        let mut config = phantom::Config::default();
        for name in chain.split(',') {
            config = match name {
                "rate" => {
                    config.with_middleware(phantom::middleware::RateLimit::per_second(1e9, 1 << 30))
                }
                "audit" => config.with_middleware(phantom::middleware::Audit::new()),
                other => {
                    return Err(std::io::Error::other(format!(
                        "MIDDLEWARE names `rate` and `audit`, not `{other}`"
                    )));
                }
            };
        }
        let listener = tokio::net::TcpListener::bind(&addr).await?;
        let http = phantom::http::HttpConfig::default().with_stateless(stateless);
        let shutdown = async {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        let dispatcher = phantom::dispatch::Dispatcher::with_config(Echo, config);
        return phantom::http::serve_dispatcher(listener, dispatcher, http, shutdown).await;
    }
    if !stateless {
        return phantom::serve(Echo, addr).await;
    }
    // `phantom::serve` with one setting changed: for a loopback address its config is the default.
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let config = phantom::http::HttpConfig::default().with_stateless(true);
    let shutdown = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    phantom::http::serve_listener(listener, Echo, config, shutdown).await
}
