//! Feature `prometheus`: the Prometheus/OpenMetrics text of phantom's metrics, from
//! `metrics-exporter-prometheus`'s recorder (its own listener and push gateway are not built),
//! served on phantom's listener or on the admin address ([`HttpConfig::admin_addr`]).

use std::sync::OnceLock;
use std::time::Duration;

use axum::response::Response;
use http::StatusCode;
use http::header::{self, HeaderValue};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

#[cfg(doc)]
use super::HttpConfig;
use super::response::empty;
use crate::telemetry::metrics::DURATION_BUCKETS;

/// How often the recorder's histograms are folded into their buckets between scrapes, so that
/// their samples do not pile up.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The recorder phantom installed, or why it could not.
static INSTALLED: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();

/// Installs a Prometheus recorder as the process's `metrics` recorder, with histogram buckets
/// (not summaries) from 0.5 ms to 300 s for `mcp.server.operation.duration`: from then on
/// phantom's listener answers `GET /metrics` ([`HttpConfig::metrics_path`], or on the
/// [`HttpConfig::admin_addr`]) with the Prometheus text format. Call it once, before serving
/// (a recorder installed after the first request does not see that dispatcher's requests); a
/// second call does nothing. An `Err` says another recorder was installed first: the process
/// has one `metrics` recorder, and phantom then records into that one.
///
/// ```no_run
/// # use phantom::prelude::*;
/// # #[derive(Clone)] struct App;
/// # #[mcp_router(name = "app", version = "1.0.0")] impl App {}
/// # async fn run() -> std::io::Result<()> {
/// phantom::http::install_prometheus()?;
/// // http://127.0.0.1:4000/mcp, and the metrics at http://127.0.0.1:4000/metrics
/// phantom::serve(App, "127.0.0.1:4000").await
/// # }
/// ```
pub fn install_prometheus() -> std::io::Result<()> {
    let installed = INSTALLED.get_or_init(|| {
        let handle = PrometheusBuilder::new()
            .set_buckets(DURATION_BUCKETS)
            .map_err(|e| e.to_string())?
            .install_recorder()
            .map_err(|e| e.to_string())?;
        let upkeep = handle.clone();
        std::thread::Builder::new()
            .name("phantom-metrics".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(UPKEEP_EVERY);
                    upkeep.run_upkeep();
                }
            })
            .map_err(|e| e.to_string())?;
        Ok(handle)
    });
    match installed {
        Ok(_) => Ok(()),
        Err(why) => Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("the Prometheus recorder could not be installed: {why}"),
        )),
    }
}

/// The Prometheus text of every metric recorded so far, if [`install_prometheus`] installed the
/// recorder: for an app that serves it on a route of its own.
pub fn render_metrics() -> Option<String> {
    match INSTALLED.get() {
        Some(Ok(handle)) => Some(handle.render()),
        _ => None,
    }
}

/// The answer to `GET /metrics`: the text format (version 0.0.4), never cached; `404` without
/// the recorder.
pub(super) fn answer() -> Response {
    let Some(text) = render_metrics() else {
        return empty(StatusCode::NOT_FOUND);
    };
    let mut resp = Response::new(axum::body::Body::from(text));
    let headers = resp.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}
