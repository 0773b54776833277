//! `prompts/get`: look the prompt up, check its arguments, run the handler.

use serde_json::value::RawValue;

use super::{Found, PromptEntry, Table};
use crate::completion::Completable as _;
use crate::extract::{Args, CallParts, Context};
use crate::kernel::{Body, Failure, guarded, invalid, members_of, named_arguments};
use crate::protocol::Params;

/// What `prompts/get` may use: the server and its prompts table.
pub(crate) trait Env {
    type Server: Send + Sync + 'static;
    fn server(&self) -> &Self::Server;
    fn prompts(&self) -> &Table<Self::Server>;
}

/// `prompts/get`: the prompt found in the table (declared or added), its arguments checked, its
/// handler run.
pub(crate) async fn get<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
    arguments: Option<Option<&RawValue>>,
) -> Result<Body, Failure> {
    let p = named_arguments(cx.target, params, arguments)?;
    let found = env.prompts().find(p.name, cx.session)?;
    found.check_scopes(cx.session)?;
    match found {
        Found::Declared(entry) => run_prompt(env.server(), entry, p.arguments, cx).await,
        Found::Added(prompt) => {
            guarded(
                "prompt handler",
                &prompt.name,
                (prompt.handler)(p.arguments, cx),
            )
            .await?
        }
    }
}

/// Runs a declared prompt of `server` (the one served, or a router merged into it).
pub(crate) async fn run_prompt<T>(
    server: &T,
    entry: &PromptEntry<T>,
    arguments: Option<&RawValue>,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    let mut args = Args::parse(arguments).map_err(|e| invalid(format!("Invalid params: {e}")))?;
    args.strings = true;
    if let Some(unknown) = args
        .names()
        .find(|n| !entry.specs.iter().any(|s| s.name == *n))
    {
        return Err(invalid(format!(
            "Invalid params: unknown argument `{unknown}` for prompt `{}`",
            entry.def.name
        )));
    }
    let parts = CallParts { cx, args };
    let fut = (entry.def.get)(server, parts);
    let reply = guarded("prompt handler", entry.def.name, fut).await??;
    members_of(&reply)
}
