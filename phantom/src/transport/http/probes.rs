//! The liveness and readiness probes (`/healthz`, `/readyz` by default): plain HTTP for load
//! balancers and orchestrators, not MCP requests — no authentication, no session, no `connect`.
//!
//! Readiness is this node's own state: `503` once it began to shut down
//! ([`Dispatcher::drain`]), `200` otherwise. A shared backend that is down does not take the
//! node out of the balancer (every node would go out at once, while 2026-07-28 requests that need
//! nothing shared are still served, DESIGN §10): the body says how the backend answered instead.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::response::Response;
use http::StatusCode;
use http::header::{self, HeaderValue};

use super::HttpConfig;
use super::response::json_response;
use crate::dispatch::Dispatcher;
use crate::kernel::Locked as _;
use crate::server::Server;
use crate::store::SessionStore;

/// How long the backend may take to answer the readiness probe's check before it counts as down.
const CHECK_TIMEOUT: Duration = Duration::from_millis(250);

/// How long a check of the backend is reused: probes every few hundred milliseconds from each
/// balancer cost the backend one command a second.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// The session id the check looks up (none has it: ids are random and longer).
const CHECK_ID: &str = "phantom-readiness-check";

/// Which probe a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Probe {
    Health,
    Ready,
    /// The Prometheus text (feature `prometheus`).
    #[cfg(feature = "prometheus")]
    Metrics,
}

/// The probes of one served dispatcher. Cheap to clone.
#[derive(Clone)]
pub(super) struct Probes {
    inner: Arc<State>,
}

struct State {
    draining: Arc<AtomicBool>,
    /// The shared store checked for the body (none: every seam in this process).
    store: Option<Arc<dyn SessionStore>>,
    health_path: String,
    ready_path: String,
    /// Where the metrics are answered on this listener (none: on the admin listener alone).
    #[cfg(feature = "prometheus")]
    metrics_path: Option<String>,
    /// The last check of the store, and when it was made.
    checked: Mutex<Option<(Instant, bool)>>,
}

impl Probes {
    /// The probes of phantom's MCP listener: the metrics too, unless an admin listener
    /// serves them.
    pub(super) fn of<S: Server>(dispatcher: &Dispatcher<S>, http: &HttpConfig) -> Self {
        Self::with_metrics(dispatcher, http, http.admin_addr.is_none())
    }

    /// The probes, and the metrics when `metrics` (and the feature) say so.
    pub(super) fn with_metrics<S: Server>(
        dispatcher: &Dispatcher<S>,
        http: &HttpConfig,
        metrics: bool,
    ) -> Self {
        crate::telemetry::metrics::draining(dispatcher.draining());
        #[cfg(not(feature = "prometheus"))]
        let _ = metrics;
        Self {
            inner: Arc::new(State {
                draining: dispatcher.drain_flag(),
                store: dispatcher.config().session_store.clone(),
                health_path: http.health_path.clone(),
                ready_path: http.ready_path.clone(),
                #[cfg(feature = "prometheus")]
                metrics_path: metrics.then(|| http.metrics_path.clone()),
                checked: Mutex::new(None),
            }),
        }
    }

    /// The probe a `GET` of `path` asks for, if any.
    pub(super) fn probe(&self, path: &str) -> Option<Probe> {
        if path == self.inner.health_path {
            Some(Probe::Health)
        } else if path == self.inner.ready_path {
            Some(Probe::Ready)
        } else {
            #[cfg(feature = "prometheus")]
            if self.inner.metrics_path.as_deref() == Some(path) {
                return Some(Probe::Metrics);
            }
            None
        }
    }

    /// The answer to `probe`.
    pub(super) async fn answer(&self, probe: Probe) -> Response {
        match probe {
            Probe::Health => answer(StatusCode::OK, r#"{"status":"alive"}"#.to_owned()),
            Probe::Ready => self.ready().await,
            #[cfg(feature = "prometheus")]
            Probe::Metrics => {
                // The backend's gauge as fresh as the readiness check (at most a second old).
                if let Some(store) = &self.inner.store {
                    self.backend_up(store.as_ref()).await;
                }
                super::prometheus::answer()
            }
        }
    }

    async fn ready(&self) -> Response {
        let draining = self.inner.draining.load(Ordering::Acquire);
        let backend = match &self.inner.store {
            None => "memory",
            Some(store) => {
                if self.backend_up(store.as_ref()).await {
                    "up"
                } else {
                    "down"
                }
            }
        };
        let (status, state) = if draining {
            (StatusCode::SERVICE_UNAVAILABLE, "draining")
        } else {
            (StatusCode::OK, "ready")
        };
        answer(
            status,
            format!(r#"{{"status":"{state}","draining":{draining},"backend":"{backend}"}}"#),
        )
    }

    /// Whether the shared store answered its last check (made again when older than
    /// [`CHECK_EVERY`], within [`CHECK_TIMEOUT`]).
    async fn backend_up(&self, store: &dyn SessionStore) -> bool {
        let last = *self.inner.checked.locked();
        if let Some((at, up)) = last
            && at.elapsed() < CHECK_EVERY
        {
            return up;
        }
        let up = matches!(
            tokio::time::timeout(CHECK_TIMEOUT, store.get(CHECK_ID, CHECK_EVERY)).await,
            Ok(Ok(_))
        );
        *self.inner.checked.locked() = Some((Instant::now(), up));
        crate::telemetry::metrics::backend_up(up);
        up
    }
}

/// A probe's answer: JSON, never cached.
fn answer(status: StatusCode, body: String) -> Response {
    let mut resp = json_response(status, body);
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// The liveness and readiness probes of `dispatcher` as an axum [`Router`](axum::Router), at
/// [`HttpConfig::health_path`] and [`HttpConfig::ready_path`], for an app that mounts phantom
/// in its own server ([`service_dispatcher`](super::service_dispatcher)); phantom's own listener
/// answers them already. Merge it next to the MCP service, outside your authentication, and
/// call [`Dispatcher::drain`] when your server's shutdown begins, so that readiness turns `503`
/// before it stops accepting.
///
/// ```
/// use phantom::dispatch::Dispatcher;
/// use phantom::http::HttpConfig;
/// # use phantom::prelude::*;
/// # #[derive(Clone)] struct App;
/// # #[mcp_router(name = "app", version = "1.0.0")] impl App {}
///
/// let dispatcher = Dispatcher::new(App);
/// let http = HttpConfig::default();
/// let app: axum::Router = axum::Router::new()
///     .nest_service("/mcp", phantom::http::service_dispatcher(dispatcher.clone(), http.clone()))
///     .merge(phantom::http::probes(&dispatcher, &http));
/// ```
pub fn probes<S: Server>(dispatcher: &Dispatcher<S>, http: &HttpConfig) -> axum::Router {
    let probes = Probes::with_metrics(dispatcher, http, false);
    let handler = |probe: Probe| {
        let probes = probes.clone();
        move || {
            let probes = probes.clone();
            async move { probes.answer(probe).await }
        }
    };
    axum::Router::new()
        .route(
            &probes.inner.health_path,
            axum::routing::get(handler(Probe::Health)),
        )
        .route(
            &probes.inner.ready_path,
            axum::routing::get(handler(Probe::Ready)),
        )
}

/// The admin listener's routes ([`HttpConfig::admin_addr`]): the probes, and the metrics with
/// the `prometheus` feature; `404` elsewhere.
pub(super) fn admin<S: Server>(dispatcher: &Dispatcher<S>, http: &HttpConfig) -> axum::Router {
    let probes = Probes::with_metrics(dispatcher, http, true);
    axum::Router::new().fallback(move |req: axum::extract::Request| {
        let probes = probes.clone();
        async move {
            let probe = (req.method() == http::Method::GET)
                .then(|| probes.probe(req.uri().path()))
                .flatten();
            match probe {
                Some(probe) => probes.answer(probe).await,
                None => super::response::empty(StatusCode::NOT_FOUND),
            }
        }
    })
}
