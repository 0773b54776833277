//! A feature request (lists, `tools/call`, `prompts/get`, `resources/read`,
//! `completion/complete`) in either era: the configured middleware around it, the input exchange
//! its handler may use, and the room that serves it.

use std::sync::Arc;

use super::{Arguments, Dispatcher, Out, method_not_found, raw_str, session_key};
use crate::extract::Context;
use crate::input::{Binding, Engine, Exchange, Interrupt, Unavailable, interruptible, open, seal};
use crate::kernel::{Body, Failure, invalid};
use crate::protocol::{ErrorObject, Method, Params, codes};
use crate::server::Server;
use crate::server::middleware::{Answer, Call, Middleware, Next};
use crate::session::{ListKind, Request, Session};
use crate::{completion, prompts, resources, skills, tasks, tools};

/// The end of a middleware chain, its lifetimes tied to one `'a`.
fn ending<'a, F>(f: F) -> F
where
    F: Fn(Call<'a>) -> crate::kernel::BoxFuture<'a, Answer> + Send + Sync + 'a,
{
    f
}

impl<S: Server> Dispatcher<S> {
    /// Routes a method both eras share to the room that serves it, inside the configured
    /// [`Middleware`](crate::middleware::Middleware) chain when there is one.
    pub(crate) async fn feature(
        &self,
        method: Method,
        params: Option<Params<'_>>,
        session: &Session,
        request: &Request,
        out: Out<'_>,
    ) -> Result<Body, Failure> {
        let exchange = self.exchange(method, params, session, out)?;
        let cx = Context {
            session,
            request,
            outbound: out.outbound,
            target: out.target,
            progress_token: out.progress,
            exchange: &exchange,
            notifier: &self.inner.config.notifier,
        };
        // `routed` is built at each await: a future kept in a variable and awaited later is
        // stored twice in this one's state.
        let config = &self.inner.config;
        if config.middleware.is_empty() && config.tool_middleware.is_empty() {
            return self
                .routed(method, params, cx, out.arguments, &exchange)
                .await;
        }
        let target = out.target;
        let own = (method == Method::ToolsCall)
            .then(|| target.name().and_then(|n| config.tool_middleware.get(n)))
            .flatten();
        let chain: std::borrow::Cow<'_, [Arc<dyn Middleware>]> = match own {
            None => std::borrow::Cow::Borrowed(&config.middleware),
            Some(own) => {
                std::borrow::Cow::Owned(config.middleware.iter().chain(own).cloned().collect())
            }
        };
        if chain.is_empty() {
            return self
                .routed(method, params, cx, out.arguments, &exchange)
                .await;
        }
        let exchange = &exchange;
        let end = ending(move |call: Call<'_>| {
            Box::pin(async move {
                // Arguments a middleware rewrote are read again from the params.
                let arguments = if call.rewritten() {
                    None
                } else {
                    out.arguments
                };
                Answer(
                    self.routed(method, call.params_text(), cx, arguments, exchange)
                        .await,
                )
            }) as crate::kernel::BoxFuture<'_, Answer>
        });
        let call = Call::new(method, target.named(), session, request, params);
        Next::new(&chain, &end).run(call).await.0
    }

    /// Where a request's input comes from: its era's engine for the three methods whose handlers
    /// may ask, nowhere for the rest.
    fn exchange(
        &self,
        method: Method,
        params: Option<Params<'_>>,
        session: &Session,
        out: Out<'_>,
    ) -> Result<Exchange, Failure> {
        let mut binding = None;
        let engine = match method {
            Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead => {
                if session.is_modern() {
                    Engine::Modern(self.answers(method, params, session, out, &mut binding)?)
                } else if session.is_stateless() {
                    Engine::Unavailable(Unavailable::Stateless)
                } else {
                    Engine::Legacy {
                        outbound: out.outbound.clone(),
                        session: session_key(session),
                        replies: Arc::clone(&self.inner.node.replies),
                    }
                }
            }
            other => Engine::Unavailable(Unavailable::Method(other.as_str())),
        };
        let exchange = Exchange::new(engine, session);
        if method == Method::ToolsCall && tasks::escalates(self, session, out.target) {
            exchange.escalates();
        }
        if let Some(binding) = binding {
            exchange.keep_binding(binding);
        }
        Ok(exchange)
    }

    /// A 2026-07-28 retry's answers: its opened `requestState`, then its `inputResponses`. The
    /// binding computed to open the state is kept for sealing the next one.
    fn answers(
        &self,
        method: Method,
        params: Option<Params<'_>>,
        session: &Session,
        out: Out<'_>,
        kept: &mut Option<Binding>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, Failure> {
        let mut answers = serde_json::Map::new();
        if let Some(state) = out.state {
            let field = || serde_json::json!({ "field": "requestState" });
            let text = raw_str(state).ok_or_else(|| {
                invalid("Invalid params: `requestState` must be a string").with_data(field())
            })?;
            let binding = kept.insert(Binding::of(method, session, params));
            answers = open(&self.inner.config.state_key, binding, &text)
                .map_err(|e| invalid(format!("Invalid params: {e}")).with_data(field()))?;
        }
        if let Some(responses) = out.responses {
            let map: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(responses.get()).map_err(|_| {
                    invalid("Invalid params: `inputResponses` must be an object")
                        .with_data(serde_json::json!({ "field": "inputResponses" }))
                })?;
            answers.extend(map);
        }
        Ok(answers)
    }

    /// Routes inside the exchange: a handler stopped for input answers `input_required`
    /// (2026-07-28) or the error that stopped it.
    async fn routed(
        &self,
        method: Method,
        params: Option<Params<'_>>,
        cx: Context<'_>,
        arguments: Arguments<'_>,
        exchange: &Exchange,
    ) -> Result<Body, Failure> {
        let session = cx.session;
        match interruptible(exchange, self.route(method, params, cx, arguments)).await {
            Ok(result) => result,
            Err(Interrupt::Failed(f)) => Err(f),
            Err(Interrupt::Escalate(answers)) => {
                tasks::escalate(self, params, cx, arguments, answers).await
            }
            Err(Interrupt::InputRequired(requests)) => {
                let input_requests = requests
                    .iter()
                    .map(|r| (r.key().to_owned(), r.to_wire()))
                    .collect();
                let binding = exchange.binding(|| Binding::of(method, session, params));
                let config = &self.inner.config;
                let state = seal(
                    &config.state_key,
                    binding,
                    exchange.used(),
                    config.state_ttl,
                    config.state_limit,
                )
                .map_err(|e| {
                    Failure::from(ErrorObject::new(
                        codes::INTERNAL_ERROR,
                        format!("Internal error: {e}"),
                    ))
                })?;
                let mut map = serde_json::Map::new();
                map.insert(
                    "inputRequests".into(),
                    serde_json::Value::Object(input_requests),
                );
                map.insert("requestState".into(), state.into());
                Ok(Body::InputRequired(map))
            }
        }
    }

    async fn route(
        &self,
        method: Method,
        params: Option<Params<'_>>,
        cx: Context<'_>,
        arguments: Arguments<'_>,
    ) -> Result<Body, Failure> {
        let session = cx.session;
        match method {
            Method::ToolsList => self.list(ListKind::Tools, params, session).await,
            Method::PromptsList => self.list(ListKind::Prompts, params, session).await,
            Method::ResourcesTemplatesList => {
                self.list(ListKind::ResourceTemplates, params, session)
                    .await
            }
            Method::ResourcesList => {
                let page = self.list(ListKind::Resources, params, session).await?;
                skills::with_skill_files(self, page, cx).await
            }
            Method::ToolsCall => tools::call(self, params, cx, arguments).await,
            Method::PromptsGet => prompts::get(self, params, cx, arguments).await,
            Method::ResourcesRead => {
                // Templates (declared, then added) first, then the files of skills.
                let uri = resources::uri_of(cx.target, params)?;
                if let Some(body) = resources::read(self, uri, cx).await? {
                    return Ok(body);
                }
                match skills::read_skill_file(self, uri, cx).await? {
                    Some(body) => Ok(body),
                    None => Err(Failure::from(crate::Error::resource_not_found(uri))),
                }
            }
            Method::CompletionComplete => completion::complete(self, params, cx).await,
            Method::SkillsList => skills::list_skills(self, params, cx).await,
            Method::SkillsGet => skills::get_skill(self, params, cx).await,
            Method::ResourcesDirectoryRead => skills::read_skill_directory(self, params, cx).await,
            // Boxed: each is about twice as large as `tools/call`, and inline it would set the
            // size of every request's future (moved whole into its box by the transport).
            Method::TasksGet => Box::pin(tasks::get(self, params, cx)).await,
            Method::TasksUpdate => Box::pin(tasks::update(self, params, cx)).await,
            Method::TasksCancel => Box::pin(tasks::cancel(self, params, cx)).await,
            _ => Err(method_not_found(method.as_str())),
        }
    }
}
