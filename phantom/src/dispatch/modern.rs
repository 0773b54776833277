//! The 2026-07-28 era: every request stands alone, its session built from the `_meta` envelope.

use serde_json::{Map, Value, json};

use super::envelope::{MetaProbe, envelope_session};
use super::reply::Envelope;
use super::{Dispatcher, Out, method_not_found};
use crate::kernel::Callback;
use crate::kernel::Failure;
use crate::kernel::{Body, Reply, Status};
use crate::protocol::{Capability, Era, Method, Params, ProtocolVersion, RequestId, codes};
use crate::server::Server;
use crate::session::{Request, Session};
#[cfg(feature = "http")]
use crate::subscriptions::Listening;

impl<S: Server> Dispatcher<S> {
    pub(crate) async fn modern(
        &self,
        id: &RequestId,
        name: &str,
        params: Option<Params<'_>>,
        meta: MetaProbe<'_>,
        request: &Request,
        out: Out<'_>,
    ) -> Reply {
        match self.modern_body(id, name, params, meta, request, out).await {
            Ok((session, method, body)) => {
                let envelope = Envelope {
                    session: &session,
                    method,
                };
                self.ok_reply(id, body, Some(envelope)).await
            }
            Err(f) => self.error_reply(Some(id), f.error, f.status, Era::Modern),
        }
    }

    async fn modern_body(
        &self,
        id: &RequestId,
        name: &str,
        params: Option<Params<'_>>,
        meta: MetaProbe<'_>,
        request: &Request,
        out: Out<'_>,
    ) -> Result<(Session, Method, Body), Failure> {
        let mut session = envelope_session(&meta, &self.inner.client_info)?;
        let Some(method) = Method::parse(name).filter(|m| m.in_era(Era::Modern)) else {
            return Err(method_not_found(name).with_status(Status::MethodNotFound));
        };
        self.connect(&mut session, request).await?;
        let body = if method == Method::ServerDiscover {
            Ok(self.discover(&session).await)
        } else if method == Method::SubscriptionsListen {
            crate::subscriptions::listen(self, id, params, &session, out.outbound).await
        } else {
            // A method this server lacks (`completion/complete` without completions) is a 404 in
            // the modern era, like a method the era lacks.
            self.feature(method, params, &session, request, out)
                .await
                .map_err(|f| match f.error.code {
                    codes::METHOD_NOT_FOUND => f.with_status(Status::MethodNotFound),
                    _ => f,
                })
        };
        // A 2026-07-28 session lives for one request: `disconnect` runs as it ends.
        self.disconnect(&session).await;
        let body = body?;
        Ok((session, method, body))
    }

    /// A 2026-07-28 `subscriptions/listen` opened for a transport that streams it itself (HTTP):
    /// the envelope checked, `connect` run, the listen opened and acknowledged. The request's own
    /// state can then go; what streams is the [`Listening`] and the session (for the end).
    #[cfg(feature = "http")]
    pub(crate) async fn start_listen(
        &self,
        id: &RequestId,
        params: Option<Params<'_>>,
        meta: &MetaProbe<'_>,
        request: &Request,
    ) -> Result<(Listening, std::sync::Arc<Session>), Reply> {
        let fail = |f: Failure| self.error_reply(Some(id), f.error, f.status, Era::Modern);
        let mut session = envelope_session(meta, &self.inner.client_info).map_err(fail)?;
        self.connect(&mut session, request).await.map_err(fail)?;
        // One session for the listener and for the end of the listen.
        let session = std::sync::Arc::new(session);
        let opened = crate::subscriptions::open_listen(self, id, params, &session).await;
        match opened {
            Ok(listening) => Ok((listening, session)),
            Err(f) => {
                self.disconnect(&session).await;
                Err(fail(f))
            }
        }
    }

    /// The final result of a listen [`start_listen`](Self::start_listen) opened; `disconnect`
    /// runs first, as for any 2026-07-28 request.
    #[cfg(feature = "http")]
    pub(crate) async fn end_listen(
        &self,
        id: &RequestId,
        listening: Listening,
        session: &Session,
    ) -> Reply {
        let body = listening.result();
        drop(listening);
        self.disconnect(session).await;
        let envelope = Envelope {
            session,
            method: Method::SubscriptionsListen,
        };
        self.ok_reply(id, body, Some(envelope)).await
    }

    /// `disconnect`, when overridden.
    pub(crate) async fn disconnect(&self, session: &Session) {
        crate::telemetry::disconnect(session);
        if self.inner.router.overrides(Callback::Disconnect) {
            self.inner.server.disconnect(session).await;
        }
    }

    async fn discover(&self, session: &Session) -> Body {
        let mut map = Map::new();
        let versions: Vec<&str> = ProtocolVersion::supported_strings();
        map.insert("supportedVersions".into(), json!(versions));
        map.insert("capabilities".into(), self.capabilities(Era::Modern));
        if let Some(text) = self.inner.server.instructions(session).await {
            map.insert("instructions".into(), text.into());
        }
        Body::Map(map)
    }

    /// Whether the server offers a capability (in either era; logging aside).
    pub(crate) fn offers(&self, capability: Capability) -> bool {
        let tables = &self.inner.tables;
        match capability {
            Capability::Tools => !tables.tools.is_empty(),
            Capability::Prompts => !tables.prompts.is_empty(),
            Capability::Resources => {
                !tables.resources.is_empty()
                    || tables.skills.serves()
                    || self.inner.router.overrides(Callback::ListResources)
            }
            Capability::Completions => tables.completes(),
            Capability::Logging => true,
        }
    }

    /// The server capabilities of an era, computed from what the router serves. Every list
    /// announces its changes (`listChanged`: a [`Notifier`](crate::Notifier) may send them), and
    /// resources can be subscribed to (`resources/subscribe` in 2025-11-25,
    /// `resourceSubscriptions` of `subscriptions/listen` in 2026-07-28).
    pub fn capabilities(&self, era: Era) -> Value {
        let caps: Map<String, Value> = Capability::ALL
            .into_iter()
            // `logging/setLevel` is a legacy method; modern requests carry their level in `_meta`.
            .filter(|&c| self.offers(c) && (c != Capability::Logging || era == Era::Legacy))
            .map(|c| {
                let value = match c {
                    Capability::Tools | Capability::Prompts => json!({ "listChanged": true }),
                    Capability::Resources => json!({ "subscribe": true, "listChanged": true }),
                    Capability::Completions | Capability::Logging => json!({}),
                };
                (c.key().to_owned(), value)
            })
            .collect();
        let mut caps = caps;
        // Extensions are a 2026-07-28 field; a 2025-11-25 client that knows them finds them in
        // `initialize` at the same place.
        let mut extensions = Map::new();
        let tables = &self.inner.tables;
        if tables.skills.serves() {
            extensions.insert(
                "io.modelcontextprotocol/skills".into(),
                crate::skills::capability(),
            );
        }
        if crate::tasks::served(
            &tables.tools,
            self.inner.router.overrides(Callback::GetTask),
        ) {
            extensions.insert(crate::tasks::EXTENSION.into(), json!({}));
        }
        if tables.tools.any_ui() || tables.resources.any_ui() {
            extensions.insert(
                crate::apps::EXTENSION.into(),
                json!({ "mimeTypes": [crate::apps::MIME_TYPE] }),
            );
        }
        if !extensions.is_empty() {
            caps.insert("extensions".into(), Value::Object(extensions));
        }
        Value::Object(caps)
    }
}
