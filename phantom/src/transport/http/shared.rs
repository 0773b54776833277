//! Legacy sessions shared through [`Config::session_store`](crate::Config::session_store):
//! the node's table is a cache of the store's records, and the store has the last word.

use std::sync::Arc;

use axum::response::Response;
use http::StatusCode;
use http::header::{self, HeaderValue};
use serde_json::Value;

use super::HttpState;
use super::message::Inspected;
use super::response::error_for;
use crate::protocol::{ProtocolVersion, codes};
use crate::server::Server;
use crate::session::Session;
use crate::store::{SessionRecord, SessionStore, StoreError, StoreErrorKind};
use crate::transport::sessions::Refused;

/// The record of a session as it opens.
fn record_of(session: &Session) -> Option<SessionRecord> {
    let mut record = SessionRecord::new(session.id.as_deref()?, session.protocol_version.as_str());
    record.principal = session.principal.as_deref().map(str::to_owned);
    record.client_info = session.client_info.as_deref().cloned();
    record.client_capabilities = Value::clone(&session.client_capabilities);
    record.log_level = session.log_level;
    Some(record)
}

/// The session a record describes, as `initialize` left it on the node that opened it.
fn session_of(record: SessionRecord) -> Option<Session> {
    let version = ProtocolVersion::parse(&record.protocol_version)?;
    let mut session = Session::new(Some(Arc::from(record.id)), version);
    session.principal = record.principal.map(Arc::from);
    session.client_info = record.client_info.map(Arc::new);
    if !record.client_capabilities.is_null() {
        session.client_capabilities = Arc::new(record.client_capabilities);
    }
    session.log_level = record.log_level;
    Some(session)
}

/// The answer to a store that failed: `503` with `Retry-After: 1` when it is unavailable, `500`
/// otherwise, and a JSON-RPC error that names the session store.
pub(super) fn store_failed(
    error: &StoreError,
    seam: &'static str,
    head: Option<&Inspected<'_>>,
) -> Response {
    crate::telemetry::metrics::store_error(seam);
    let unavailable = error.kind() == StoreErrorKind::Unavailable;
    let (status, what) = if unavailable {
        (StatusCode::SERVICE_UNAVAILABLE, "Service unavailable")
    } else {
        (StatusCode::INTERNAL_SERVER_ERROR, "Internal error")
    };
    let mut resp = error_for(
        status,
        codes::INTERNAL_ERROR,
        &format!("{what}: the session store failed ({error}); retry later"),
        head,
    );
    if unavailable {
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    resp
}

/// Logs a store failure at `warn` once per outage (the first failure after a success), at `debug`
/// after that.
fn log_failure<S: Server>(st: &HttpState<S>, error: &StoreError) {
    use std::sync::atomic::Ordering;
    if !st.store_down.swap(true, Ordering::Relaxed) {
        tracing::warn!(%error, "the session store failed; legacy sessions answer 503 until it is back");
    } else {
        tracing::debug!(%error, "the session store failed again");
    }
}

fn log_success<S: Server>(st: &HttpState<S>) {
    use std::sync::atomic::Ordering;
    if st.store_down.swap(false, Ordering::Relaxed) {
        tracing::info!("the session store answers again");
    }
}

/// What the store says of a session this node is asked about.
pub(super) enum Found {
    /// It lives: the session, as this node now holds it.
    Live(Arc<Session>),
    /// It never existed, was deleted or expired.
    Gone,
    /// The store failed.
    Failed(Response),
    /// This node's table is full.
    Full,
}

/// Looks a session up in the store: one `touch` when this node holds it at the current revision,
/// a `get` when it does not (or another node changed it since).
pub(super) async fn find<S: Server>(
    st: &HttpState<S>,
    store: &dyn SessionStore,
    id: &str,
    local: Option<Arc<Session>>,
    head: Option<&Inspected<'_>>,
) -> Found {
    let ttl = st.cfg.session_idle_ttl;
    if let Some(session) = local {
        match store.touch(id, ttl).await {
            Ok(Some(revision)) if Some(revision) == st.sessions.revision(id) => {
                log_success(st);
                return Found::Live(session);
            }
            // Another node changed the record: read it again.
            Ok(Some(_)) => {}
            Ok(None) => {
                log_success(st);
                st.sessions.remove(id);
                return Found::Gone;
            }
            Err(e) => {
                log_failure(st, &e);
                return Found::Failed(store_failed(&e, "sessions", head));
            }
        }
    }
    match store.get(id, ttl).await {
        Ok(Some(record)) => {
            log_success(st);
            let revision = record.revision;
            let Some(session) = session_of(record) else {
                tracing::warn!(
                    session = id,
                    "a stored session names a protocol version this node does not speak"
                );
                return Found::Gone;
            };
            match st.sessions.adopt(session, revision) {
                Ok(session) => Found::Live(session),
                Err(Refused::Full | Refused::PeerFull) => Found::Full,
            }
        }
        Ok(None) => {
            log_success(st);
            st.sessions.remove(id);
            Found::Gone
        }
        Err(e) => {
            log_failure(st, &e);
            Found::Failed(store_failed(&e, "sessions", head))
        }
    }
}

/// Creates the record of a session `initialize` opened on this node.
pub(super) async fn create<S: Server>(
    st: &HttpState<S>,
    store: &dyn SessionStore,
    session: &Session,
) -> Result<(), StoreError> {
    let Some(record) = record_of(session) else {
        return Ok(());
    };
    let created = store.create(&record, st.cfg.session_idle_ttl).await;
    match &created {
        Ok(()) => {
            log_success(st);
            if let Some(id) = &session.id {
                st.sessions.set_revision(id, 1);
            }
        }
        Err(e) => log_failure(st, e),
    }
    created
}

/// Writes what a request changed in a session (its log level) to the store, compare-and-set:
/// re-read and retried when another node wrote first.
pub(super) async fn persist<S: Server>(
    st: &HttpState<S>,
    store: &dyn SessionStore,
    session: &Session,
) -> Result<(), StoreError> {
    let Some(id) = session.id.as_deref() else {
        return Ok(());
    };
    let ttl = st.cfg.session_idle_ttl;
    let mut attempts = 0;
    let result = loop {
        attempts += 1;
        let mut record = match store.get(id, ttl).await {
            Ok(Some(record)) => record,
            Ok(None) => break Err(StoreError::not_found(format!("session {id} is gone"))),
            Err(e) => break Err(e),
        };
        if record.log_level == session.log_level {
            st.sessions.set_revision(id, record.revision);
            break Ok(());
        }
        record.log_level = session.log_level;
        record.updated_ms = crate::protocol::time::now_ms();
        match store.update(&record, ttl).await {
            Ok(revision) => {
                st.sessions.set_revision(id, revision);
                break Ok(());
            }
            Err(e) if e.kind() == StoreErrorKind::Conflict && attempts < 5 => {}
            Err(e) => break Err(e),
        }
    };
    match &result {
        Ok(()) => log_success(st),
        Err(e) if e.kind() == StoreErrorKind::NotFound => {}
        Err(e) => log_failure(st, e),
    }
    result
}

/// Deletes a session's record (DELETE): the store first, so that no node answers it afterwards.
pub(super) async fn delete<S: Server>(
    st: &HttpState<S>,
    store: &dyn SessionStore,
    id: &str,
) -> Result<(), StoreError> {
    let deleted = store.delete(id).await.map(|_| ());
    match &deleted {
        Ok(()) => log_success(st),
        Err(e) => log_failure(st, e),
    }
    deleted
}
