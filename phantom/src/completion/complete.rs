//! `completion/complete`: find the prompt argument or URI parameter, run its completion function.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, json};

use super::{CompleteContext, Completer, Completion};
use crate::error::Error;
use crate::extract::Context;
use crate::kernel::{Body, BoxFuture, Failure, guarded, parse_params, unknown};
use crate::protocol::{ErrorObject, Method, Params, codes};

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

/// What `completion/complete` may use: the server, and the tables of the two rooms whose entries
/// complete (prompts and resource templates).
pub(crate) trait Env {
    type Server: Send + Sync + 'static;
    fn server(&self) -> &Self::Server;
    fn prompts(&self) -> &crate::prompts::Table<Self::Server>;
    fn resources(&self) -> &crate::resources::Table<Self::Server>;
}

/// The completion functions of the entry a `ref` names: declared (run with the server) or added
/// (each carries its own).
enum Completions<'a, S> {
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
    if !env.prompts().completes() && !env.resources().completes() {
        return Err(Failure::from(
            ErrorObject::new(
                codes::METHOD_NOT_FOUND,
                "Method not found: this server offers no completions",
            )
            .with_data(json!({ "method": Method::CompletionComplete.as_str() })),
        ));
    }
    let p: CompleteParams = parse_params(params)?;
    let prompt;
    let template;
    let (completions, declared): (Completions<'_, E::Server>, Vec<&str>) = match &p.reference {
        CompleteRef::Prompt { name } => {
            prompt = env.prompts().find(name, session)?;
            match &prompt {
                crate::prompts::Found::Declared(entry) => (
                    Completions::Declared(&entry.def.completions),
                    entry.specs.iter().map(|s| s.name).collect(),
                ),
                crate::prompts::Found::Added(added) => (
                    Completions::Added(&added.completions),
                    added.arguments.iter().map(String::as_str).collect(),
                ),
            }
        }
        CompleteRef::Resource { uri } => {
            template = env
                .resources()
                .named(uri, session)
                .ok_or_else(|| unknown("resource template", "uri", uri))?;
            match &template {
                crate::resources::Named::Declared(entry) => (
                    Completions::Declared(&entry.def.completions),
                    entry.info.params.iter().map(String::as_str).collect(),
                ),
                crate::resources::Named::Added(added) => (
                    Completions::Added(&added.completions),
                    added.info.params.iter().map(String::as_str).collect(),
                ),
            }
        }
    };
    let arg = p.argument.name.as_str();
    if !declared.contains(&arg) {
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
            None => crate::completion::Completion::default(),
            Some((_, f)) => {
                guarded("completion function", arg, f(env.server(), value, &ccx)).await??
            }
        },
        Completions::Added(list) => match list.iter().find(|(n, _)| n == arg) {
            None => crate::completion::Completion::default(),
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
