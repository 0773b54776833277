//! Running `connect`: on a legacy session's copy (a changed principal is `404`), on a modern
//! request's session, and for messages that are not requests.

use super::Dispatcher;
use crate::kernel::Callback;
use crate::kernel::{Failure, Status};
use crate::protocol::{ErrorObject, ProtocolVersion, codes};
use crate::server::{Connect, Server};
use crate::session::{Request, Session, SessionSlot, Transport};

impl<S: Server> Dispatcher<S> {
    /// `connect` for a notification or a client response: on the legacy session when there is
    /// one, or on a fresh session (modern notifications, or messages before `initialize`).
    pub(super) async fn connect_message(
        &self,
        modern: bool,
        request: &Request,
        slot: &mut SessionSlot,
    ) -> Result<(), Failure> {
        if request.transport != Transport::Http && !modern {
            return Ok(());
        }
        if !self.connects() {
            return Ok(());
        }
        match slot.get_mut().filter(|_| !modern) {
            Some(session) => self.connect_session(session, request).await,
            None => {
                let version = if modern {
                    ProtocolVersion::LATEST
                } else {
                    ProtocolVersion::LATEST_LEGACY
                };
                self.connect(&mut Session::new(None, version), request)
                    .await
            }
        }
    }

    /// `connect` on an open legacy session. The session belongs to the principal that opened it:
    /// a request whose `connect` names another principal is refused as if the session did not
    /// exist (404), and what `connect` decided for a refused request is not kept.
    pub(crate) async fn connect_session(
        &self,
        session: &mut Session,
        request: &Request,
    ) -> Result<(), Failure> {
        if !self.connects() {
            return Ok(());
        }
        let mut candidate = session.clone();
        self.connect(&mut candidate, request).await?;
        if candidate.principal != session.principal {
            tracing::debug!("a request used a session opened by another principal");
            return Err(Failure::from(ErrorObject::new(
                codes::CONNECT_REJECTED,
                "Session not found",
            ))
            .with_status(Status::SessionNotFound));
        }
        *session = candidate;
        Ok(())
    }

    /// Whether requests are connected: the server overrides `connect` or verifies bearer tokens
    /// (without either, connecting changes nothing).
    pub(crate) fn connects(&self) -> bool {
        self.inner.router.overrides(Callback::Connect) || self.inner.config.bearer_auth.is_some()
    }

    /// Verifies the bearer token (with a [`BearerAuth`](crate::auth::BearerAuth)), then runs
    /// `connect` (when overridden) and maps a rejection to its error and status.
    pub(crate) async fn connect(
        &self,
        session: &mut Session,
        request: &Request,
    ) -> Result<(), Failure> {
        if let Some(auth) = &self.inner.config.bearer_auth {
            auth.authenticate(session, request).await?;
        }
        if !self.inner.router.overrides(Callback::Connect) {
            return Ok(());
        }
        let connected = self.inner.server.connect(session, request).await;
        crate::telemetry::connect(
            session,
            match &connected {
                Connect::Ok => "ok",
                Connect::Unauthorized(_) => "unauthorized",
                Connect::Forbidden(_) | Connect::InsufficientScope(_) => "forbidden",
                Connect::NotFound(_) => "not_found",
                Connect::Error(_) => "error",
            },
        );
        let (status, message) = match connected {
            Connect::Ok => return Ok(()),
            Connect::Unauthorized(challenge) => (
                Status::Unauthorized(Box::new(challenge)),
                "Unauthorized".to_owned(),
            ),
            Connect::Forbidden(m) => (Status::Forbidden, m),
            Connect::InsufficientScope(scopes) => {
                let scopes: Vec<&str> = scopes.iter().map(String::as_str).collect();
                return Err(crate::auth::insufficient_scope(&scopes, "this request"));
            }
            Connect::NotFound(m) => (Status::SessionNotFound, m),
            Connect::Error(m) => (Status::BadRequest, m),
        };
        Err(Failure::from(ErrorObject::new(codes::CONNECT_REJECTED, message)).with_status(status))
    }
}
