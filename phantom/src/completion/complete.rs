//! `completion/complete`: find the prompt argument or URI parameter, run its completion function.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, json};

use super::{CompleteContext, Completer, Completion};
use crate::error::Error;
use crate::extract::Context;
use crate::kernel::{Body, BoxFuture, Failure, guarded, parse_params, unknown};
use crate::protocol::{ErrorObject, Method, Params, codes};
use crate::session::Session;

/// A completion function as generated code hands it over (through `phantom::__private`).
pub type CompleteFn<S> =
    for<'a> fn(&'a S, &'a str, &'a CompleteContext<'a>) -> BoxFuture<'a, Result<Completion, Error>>;

#[derive(Deserialize)]
#[serde(tag = "type")]
enum CompleteRef {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

#[derive(Deserialize)]
struct CompleteArgument {
    name: String,
    value: String,
}

#[derive(Deserialize, Default)]
struct CompleteContextParams {
    #[serde(default)]
    arguments: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct CompleteParams {
    #[serde(rename = "ref")]
    reference: CompleteRef,
    argument: CompleteArgument,
    #[serde(default)]
    context: Option<CompleteContextParams>,
}

/// What `completion/complete` may use: the server, and the entries of the two rooms whose
/// arguments complete (prompts and resource templates), as those rooms find them for a session.
pub(crate) trait Env {
    type Server: Send + Sync + 'static;
    /// A prompt, as the prompts room finds it.
    type Prompt: Completable<Self::Server>;
    /// A resource template, as the resources room finds it.
    type Template: Completable<Self::Server>;
    fn server(&self) -> &Self::Server;
    /// Whether a prompt or a resource template has a completion function.
    fn completes(&self) -> bool;
    /// The prompt `name` the session may get (`-32602` naming it when there is none).
    fn prompt(&self, name: &str, session: &Session) -> Result<Self::Prompt, Failure>;
    /// The resource template `uri` names, if the session may read it.
    fn template(&self, uri: &str, session: &Session) -> Option<Self::Template>;
}

/// An entry whose arguments complete: a prompt or a resource template, declared or added. Its
/// room implements it; this room only runs the completion functions.
pub(crate) trait Completable<S> {
    /// Whether it has an argument (a prompt's) or URI parameter (a template's) `name`.
    fn has_argument(&self, name: &str) -> bool;
    /// Its completion functions, by argument.
    fn completions(&self) -> Completions<'_, S>;
    /// Refuses a session whose token does not grant the entry's `scopes` (the same 403 as a
    /// scoped tool's).
    fn check_scopes(&self, session: &Session) -> Result<(), Failure>;
}

/// The completion functions of the entry a `ref` names: declared (run with the server) or added
/// (each carries its own).
pub(crate) enum Completions<'a, S> {
    Declared(&'a [(&'static str, CompleteFn<S>)]),
    Added(&'a [(String, Completer)]),
}

/// `completion/complete`: find the prompt argument or URI parameter (declared or added entry),
/// run its completion function.
pub(crate) async fn complete<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    let session = cx.session;
    if !env.completes() {
        return Err(Failure::from(
            ErrorObject::new(
                codes::METHOD_NOT_FOUND,
                "Method not found: this server offers no completions",
            )
            .with_data(json!({ "method": Method::CompletionComplete.as_str() })),
        ));
    }
    let p: CompleteParams = parse_params(params)?;
    let arg = p.argument.name.as_str();
    let prompt;
    let template;
    let (known, completions) = match &p.reference {
        CompleteRef::Prompt { name } => {
            prompt = env.prompt(name, session)?;
            prompt.check_scopes(session)?;
            (prompt.has_argument(arg), prompt.completions())
        }
        CompleteRef::Resource { uri } => {
            template = env
                .template(uri, session)
                .ok_or_else(|| unknown("resource template", "uri", uri))?;
            template.check_scopes(session)?;
            (template.has_argument(arg), template.completions())
        }
    };
    if !known {
        return Err(Failure::from(
            ErrorObject::new(
                codes::INVALID_PARAMS,
                format!("Invalid params: unknown argument `{arg}`"),
            )
            .with_data(json!({ "argument": arg })),
        ));
    }
    let arguments = p.context.unwrap_or_default().arguments;
    let ccx = CompleteContext {
        argument: arg,
        arguments: &arguments,
        session,
        request: cx.request,
        ctx: <crate::extract::Ctx as crate::extract::FromContext<'_>>::from_context(&cx)
            .map_err(|_| Failure::internal())?,
    };
    let value = &p.argument.value;
    let completion = match completions {
        Completions::Declared(list) => match list.iter().find(|(n, _)| *n == arg) {
            None => Completion::default(),
            Some((_, f)) => {
                guarded("completion function", arg, f(env.server(), value, &ccx)).await??
            }
        },
        Completions::Added(list) => match list.iter().find(|(n, _)| n == arg) {
            None => Completion::default(),
            Some((_, f)) => guarded("completion function", arg, f(value, &ccx)).await??,
        },
    };
    let mut map = Map::new();
    map.insert(
        "completion".into(),
        serde_json::to_value(completion).unwrap_or_default(),
    );
    Ok(Body::Map(map))
}
