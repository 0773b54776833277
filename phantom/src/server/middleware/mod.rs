//! [`Middleware`]: a chain around every feature request — lists, `tools/call`, `prompts/get`,
//! `resources/read`, `completion/complete` — in both eras, over HTTP and stdio, for declared,
//! added, merged and remote (gateway) entries alike.
//!
//! A middleware sees the typed [`Call`] and a [`Next`] that runs the rest of the chain (and at
//! its end the method); it may call `next` zero times (refuse, or answer from a cache), once
//! (observe, time, rewrite the arguments) or several times (retry), and returns the [`Answer`],
//! which it may inspect or replace. The chain is [`Config::middleware`](crate::Config::middleware)
//! in the order added, outermost first; a tool's own middleware
//! ([`Config::tool_middleware`](crate::Config::tool_middleware)) runs inside it, for that tool
//! only. With none configured there is no chain: the request goes straight to its room.
//!
//! The built-ins: [`RateLimit`], [`ResponseCache`], [`Timeout`], [`Audit`] and [`SizeLimit`].

mod answer;
mod audit;
mod cache;
mod limit;
mod rate;
mod timeout;

use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

pub use answer::Answer;
pub use audit::Audit;
pub use cache::ResponseCache;
pub use limit::SizeLimit;
pub use rate::{RateKey, RateLimit};
pub use timeout::Timeout;

use crate::error::Error;
use crate::kernel::BoxFuture;
use crate::protocol::{ErrorObject, Method, Params};
use crate::session::{Request, Session};
use crate::store::notifier::Notifier;
use crate::store::{CacheStore, RateStore};

/// What a served router hands each middleware of its chain once, when it is built
/// ([`Middleware::attach`]): the config's notifier and the stores a middleware may share with
/// the other nodes.
#[derive(Debug)]
#[non_exhaustive]
pub struct Attach<'a> {
    /// The served notifier ([`Config::notifier`](crate::Config::notifier)).
    pub notifier: &'a Notifier,
    /// [`Config::rate_store`](crate::Config::rate_store).
    pub rate_store: &'a Arc<dyn RateStore>,
    /// [`Config::cache_store`](crate::Config::cache_store).
    pub cache_store: &'a Arc<dyn CacheStore>,
}

impl<'a> Attach<'a> {
    pub(crate) fn of(config: &'a crate::Config) -> Self {
        Self {
            notifier: &config.notifier,
            rate_store: &config.rate_store,
            cache_store: &config.cache_store,
        }
    }
}

/// One feature request as middleware sees it: after `connect`, before the method runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Call<'a> {
    /// The method (`tools/call`, `resources/read`, `tools/list`, …).
    pub method: Method,
    /// What the request names: the tool or prompt (`params.name`) or the URI (`params.uri`),
    /// unescaped: `"w\u0069pe"` is `Some("wipe")`, as the room that serves the call reads it.
    pub name: Option<&'a str>,
    /// The caller's session, as `connect` left it.
    pub session: &'a Session,
    /// The transport request.
    pub request: &'a Request,
    params: Option<CallParams<'a>>,
}

/// A call's params: as sent (text the envelope's pass validated), or as a middleware rewrote them.
#[derive(Debug, Clone)]
enum CallParams<'a> {
    Sent(Params<'a>),
    Rewritten(Box<RawValue>),
}

impl<'a> Call<'a> {
    pub(crate) fn new(
        method: Method,
        name: Option<&'a str>,
        session: &'a Session,
        request: &'a Request,
        params: Option<Params<'a>>,
    ) -> Self {
        Self {
            method,
            name,
            session,
            request,
            params: params.map(CallParams::Sent),
        }
    }

    /// The request's `params`, as sent (or as a middleware rewrote them).
    pub fn params(&self) -> Option<&RawValue> {
        match self.params.as_ref()? {
            CallParams::Sent(sent) => Some(sent.raw()),
            CallParams::Rewritten(raw) => Some(raw),
        }
    }

    /// The params' text, for the method the chain ends in.
    pub(crate) fn params_text(&self) -> Option<Params<'_>> {
        match self.params.as_ref()? {
            CallParams::Sent(sent) => Some(*sent),
            CallParams::Rewritten(raw) => Some(Params::from_raw(raw)),
        }
    }

    /// `params.arguments` of a `tools/call` or `prompts/get`, decoded (`None` when there are
    /// none).
    pub fn arguments(&self) -> Option<Value> {
        #[derive(serde::Deserialize)]
        struct Arguments {
            arguments: Option<Value>,
        }
        let params = self.params_text()?;
        serde_json::from_str::<Arguments>(params.get())
            .ok()
            .and_then(|a| a.arguments)
    }

    /// The call with `params.arguments` replaced (what the method then reads).
    #[must_use]
    pub fn with_arguments(mut self, arguments: Value) -> Self {
        let mut params: serde_json::Map<String, Value> = self
            .params_text()
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default();
        params.insert("arguments".into(), arguments);
        if let Ok(raw) = serde_json::value::to_raw_value(&params) {
            self.params = Some(CallParams::Rewritten(raw));
        }
        self
    }

    /// Whether a middleware rewrote the params.
    pub(crate) fn rewritten(&self) -> bool {
        matches!(self.params, Some(CallParams::Rewritten(_)))
    }
}

/// How a request ended, as [`Middleware::after`] hears it. A tool that returns `isError: true`
/// ended [`Outcome::Ok`]: its error is a result, not a protocol error.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Outcome<'a> {
    /// A result was sent.
    Ok,
    /// A JSON-RPC error was sent.
    Error(&'a ErrorObject),
}

/// The method at the end of the chain: what [`Next`] runs once no middleware is left.
pub(crate) type End<'a> = dyn Fn(Call<'a>) -> BoxFuture<'a, Answer> + Send + Sync + 'a;

/// The rest of the chain: [`run`](Self::run) it (any number of times) to get the answer of the
/// middlewares inside this one and of the method.
#[derive(Clone, Copy)]
pub struct Next<'a> {
    rest: &'a [Arc<dyn Middleware>],
    end: &'a End<'a>,
}

impl std::fmt::Debug for Next<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next")
            .field("middlewares_left", &self.rest.len())
            .finish_non_exhaustive()
    }
}

impl<'a> Next<'a> {
    pub(crate) fn new(rest: &'a [Arc<dyn Middleware>], end: &'a End<'a>) -> Self {
        Self { rest, end }
    }

    /// Runs the rest of the chain with `call`.
    pub fn run(self, call: Call<'a>) -> BoxFuture<'a, Answer> {
        match self.rest.split_first() {
            Some((first, rest)) => first.on_request(
                call,
                Next {
                    rest,
                    end: self.end,
                },
            ),
            None => (self.end)(call),
        }
    }
}

/// A middleware of the chain; set with [`Config::middleware`](crate::Config::middleware). Every
/// method has a default, so an implementation overrides only what it needs:
///
/// - [`on_request`](Self::on_request), the one generic hook, around every feature request; by
///   default it runs [`before`](Self::before), the typed hook of the method, then
///   [`after`](Self::after);
/// - the typed hooks, each by default `next.run(call)`: [`on_call_tool`](Self::on_call_tool),
///   [`on_read_resource`](Self::on_read_resource), [`on_get_prompt`](Self::on_get_prompt),
///   [`on_list`](Self::on_list), [`on_complete`](Self::on_complete);
/// - `before` (refuse with an error) and `after` (hear the outcome), as before the chain.
///
/// ```
/// use phantom::BoxFuture;
/// use phantom::middleware::{Answer, Call, Middleware, Next};
///
/// /// Every `search` call gets `limit: 10` unless it sets one.
/// struct DefaultLimit;
///
/// impl Middleware for DefaultLimit {
///     fn on_call_tool<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
///         if call.name != Some("search") {
///             return next.run(call);
///         }
///         let mut arguments = call.arguments().unwrap_or_else(|| serde_json::json!({}));
///         if arguments.get("limit").is_none() {
///             arguments["limit"] = 10.into();
///         }
///         next.run(call.with_arguments(arguments))
///     }
/// }
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// Called once for each router served with this middleware, when it is built, with the
    /// served config's notifier and shared stores (the built-ins take their stores here).
    /// Default: nothing.
    fn attach(&self, node: &Attach<'_>) {
        let _ = node;
    }

    /// Around every feature request. Default: `before`; if it let the request through, the
    /// typed hook of the method (or `next` for one without); then `after` with the outcome.
    fn on_request<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let answer = match self.before(&call).await {
                Err(refused) => Answer::error(refused),
                Ok(()) => {
                    let inner = call.clone();
                    match call.method {
                        Method::ToolsCall => self.on_call_tool(inner, next).await,
                        Method::ResourcesRead => self.on_read_resource(inner, next).await,
                        Method::PromptsGet => self.on_get_prompt(inner, next).await,
                        Method::CompletionComplete => self.on_complete(inner, next).await,
                        Method::ToolsList
                        | Method::PromptsList
                        | Method::ResourcesList
                        | Method::ResourcesTemplatesList => self.on_list(inner, next).await,
                        _ => next.run(inner).await,
                    }
                }
            };
            self.after(&call, answer.outcome()).await;
            answer
        })
    }

    /// Around a `tools/call`. Default: `next.run(call)`.
    fn on_call_tool<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        next.run(call)
    }

    /// Around a `resources/read`. Default: `next.run(call)`.
    fn on_read_resource<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        next.run(call)
    }

    /// Around a `prompts/get`. Default: `next.run(call)`.
    fn on_get_prompt<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        next.run(call)
    }

    /// Around `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`.
    /// Default: `next.run(call)`.
    fn on_list<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        next.run(call)
    }

    /// Around a `completion/complete`. Default: `next.run(call)`.
    fn on_complete<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        next.run(call)
    }

    /// Runs before the method (in the default `on_request`): an `Err` is sent instead of the
    /// result, and the method does not run. Default: let it through.
    fn before<'a>(&'a self, call: &'a Call<'a>) -> BoxFuture<'a, Result<(), Error>> {
        let _ = call;
        Box::pin(std::future::ready(Ok(())))
    }

    /// Runs after the method (or after `before` refused it), with the outcome (in the default
    /// `on_request`). Default: nothing.
    fn after<'a>(&'a self, call: &'a Call<'a>, outcome: Outcome<'a>) -> BoxFuture<'a, ()> {
        let _ = (call, outcome);
        Box::pin(std::future::ready(()))
    }
}
