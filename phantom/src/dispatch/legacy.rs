//! The legacy era (2024-11-05 … 2025-11-25): `initialize` opens a session, later requests use it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Dispatcher, Out, method_not_found};
use crate::kernel::{Body, Failure, Reply, Status, bad_request, invalid, parse_params};
use crate::node::IdText;
use crate::protocol::{
    Era, ErrorObject, Implementation, Method, Params, ProtocolVersion, RequestId, codes, meta,
};
use crate::server::Server;
use crate::session::SessionSlot;
use crate::session::{Request, Session, Transport};
use crate::{logging, subscriptions};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeParams {
    protocol_version: String,
    #[serde(default)]
    capabilities: Option<Value>,
    #[serde(default)]
    client_info: Option<Implementation>,
}

pin_project_lite::pin_project! {
    /// A request's body, ended early (`None`) when `cancelled` is. Built where it is awaited, so
    /// the body's future (a request's largest) is moved once; `tokio::select!` moved it into
    /// its tuple and again into the caller's state.
    struct Cancellable<F, C> {
        #[pin]
        body: F,
        #[pin]
        cancelled: Option<C>,
    }
}

impl<F: Future, C: Future<Output = ()>> Future for Cancellable<F, C> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Some(cancelled) = this.cancelled.as_pin_mut()
            && cancelled.poll(cx).is_ready()
        {
            return Poll::Ready(None);
        }
        this.body.poll(cx).map(Some)
    }
}

impl<S: Server> Dispatcher<S> {
    pub(crate) async fn legacy(
        &self,
        id: &RequestId,
        name: &str,
        params: Option<Params<'_>>,
        request: &Request,
        slot: &mut SessionSlot,
        out: Out<'_>,
    ) -> Option<Reply> {
        // A request on a session is in flight until it is answered: `notifications/cancelled`
        // stops it (and it gets no reply), and a second request with its id is refused.
        let key = slot
            .get()
            .filter(|s| !s.is_stateless())
            .map(super::session_key);
        let running = match key {
            Some(key) => match self.inner.node.inflight.start(key, IdText::of(id)) {
                Some(running) => Some(running),
                None => {
                    let error = ErrorObject::new(
                        codes::INVALID_REQUEST,
                        format!(
                            "Invalid request: a request with id {id} is already in flight on this session; use a new id for each request"
                        ),
                    )
                    .with_data(json!({ "field": "id" }));
                    return Some(self.error_reply(Some(id), error, Status::Ok, Era::Legacy));
                }
            },
            None => None,
        };
        // The body's future is built inside the `Cancellable` that awaits it: one kept in a
        // variable first would be stored twice.
        let cancelled = running.as_ref().map(|r| r.cancelled.notified());
        let body = Cancellable {
            body: self.legacy_body(name, params, request, slot, out),
            cancelled,
        }
        .await;
        let Some(body) = body else {
            tracing::debug!(%id, "request cancelled by the client");
            return None;
        };
        drop(running);
        Some(match body {
            Ok(body) => self.ok_reply(id, body, None).await,
            Err(f) => self.error_reply(Some(id), f.error, f.status, Era::Legacy),
        })
    }

    async fn legacy_body(
        &self,
        name: &str,
        params: Option<Params<'_>>,
        request: &Request,
        slot: &mut SessionSlot,
        out: Out<'_>,
    ) -> Result<Body, Failure> {
        let method = Method::parse(name).filter(|m| !m.is_notification());
        match method {
            Some(Method::ServerDiscover) => {
                return Err(invalid(format!(
                    "Invalid params: missing `_meta.{}`; `server/discover` is a 2026-07-28 method",
                    meta::VERSION
                ))
                .with_status(Status::BadRequest));
            }
            Some(Method::Initialize) => return self.initialize(params, request, slot).await,
            Some(Method::Ping) => return Ok(Body::Map(Map::new())),
            _ => {}
        }
        let stateless = slot.stateless;
        if stateless && slot.get().is_none() {
            slot.fill(Session::stateless(ProtocolVersion::LATEST_LEGACY));
        }
        let no_session = || {
            bad_request(ErrorObject::new(
                codes::INVALID_REQUEST,
                "Invalid request: no session; send `initialize` first (or use the 2026-07-28 `_meta` envelope)",
            ))
        };
        if slot.get().is_none() {
            return Err(no_session());
        }
        // The session is taken for writing only where it is written, so that the slot reports a
        // change (and the transport stores the row) only then.
        if request.transport == Transport::Http && self.connects() {
            let session = slot.get_mut().ok_or_else(no_session)?;
            self.connect_session(session, request).await?;
        }
        let Some(method) = method else {
            return Err(method_not_found(name));
        };
        match method {
            Method::LoggingSetLevel => return logging::set_level(params, slot),
            Method::ResourcesSubscribe => {
                return subscriptions::subscribe(self, out.target, params, slot).await;
            }
            Method::ResourcesUnsubscribe => {
                return subscriptions::unsubscribe(self, out.target, params, slot).await;
            }
            _ => {}
        }
        let session = slot.get().ok_or_else(no_session)?;
        self.feature(method, params, session, request, out).await
    }

    async fn initialize(
        &self,
        params: Option<Params<'_>>,
        request: &Request,
        slot: &mut SessionSlot,
    ) -> Result<Body, Failure> {
        if slot.get().is_some() {
            return Err(bad_request(ErrorObject::new(
                codes::INVALID_REQUEST,
                "Invalid request: this session is already initialized",
            )));
        }
        let p: InitializeParams = parse_params(params)?;
        let version = ProtocolVersion::negotiate_legacy(&p.protocol_version);
        let mut session = if slot.stateless {
            Session::stateless(version)
        } else {
            Session::new(slot.id.clone(), version)
        };
        session.client_info = p.client_info.map(Arc::new);
        if let Some(caps) = p.capabilities {
            if !caps.is_object() {
                return Err(invalid("Invalid params: `capabilities` must be an object"));
            }
            session.client_capabilities = Arc::new(caps);
        }
        self.connect(&mut session, request).await?;
        let mut map = Map::new();
        map.insert("protocolVersion".into(), version.as_str().into());
        let mut caps = self.capabilities(Era::Legacy);
        if let (true, Some(caps)) = (slot.stateless, caps.as_object_mut()) {
            caps.remove("logging");
        }
        map.insert("capabilities".into(), caps);
        let info = self.inner.server.server_info(&session).await;
        map.insert(
            "serverInfo".into(),
            serde_json::to_value(info).unwrap_or_default(),
        );
        if let Some(text) = self.inner.server.instructions(&session).await {
            map.insert("instructions".into(), text.into());
        }
        slot.fill(session);
        Ok(Body::Map(map))
    }
}

impl<S: Server> Dispatcher<S> {
    /// `notifications/cancelled`: stops the request it names on this session, if it is still in
    /// flight (a finished or unknown request is ignored, as the spec says). 2026-07-28 requests
    /// are cancelled by closing their response instead.
    pub(super) fn cancel(&self, params: Option<Params<'_>>, session: Option<&Session>) {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Cancelled {
            request_id: crate::protocol::RequestId,
        }
        let Some(session) = session else { return };
        match params.map(|p| serde_json::from_str::<Cancelled>(p.get())) {
            Some(Ok(c)) => {
                let id = c.request_id.to_string();
                if self
                    .inner
                    .node
                    .inflight
                    .cancel(super::session_key(session), &id)
                {
                    return;
                }
                let notifier = &self.inner.config.notifier;
                if notifier.in_process() {
                    tracing::debug!(%id, "cancellation of a request not in flight; ignored");
                    return;
                }
                // Another node may be handling it: tell them all.
                let change = crate::store::Change::RequestCancelled {
                    session: super::session_key(session).to_string(),
                    request_id: id,
                };
                let bus = std::sync::Arc::clone(notifier.bus());
                tokio::spawn(async move {
                    if let Err(e) = bus.publish(&change).await {
                        tracing::warn!(error = %e, "a cancellation could not be passed to the other nodes");
                    }
                });
            }
            _ => tracing::debug!("notifications/cancelled without a `requestId`; ignored"),
        }
    }
}
