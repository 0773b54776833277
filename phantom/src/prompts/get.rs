//! `prompts/get`: look the prompt up, check its arguments, run the handler.

use serde_json::value::RawValue;

use crate::dispatch::Dispatcher;
use crate::extract::{Args, CallParts, Context};
use crate::kernel::{Body, Failure, guarded, invalid, members_of, parse_params};
use crate::prompts::PromptEntry;
use crate::registry::EntryKind;
use crate::server::Server;
use crate::tools::NameParams;

impl<S: Server> Dispatcher<S> {
    pub(crate) async fn get_prompt(
        &self,
        params: Option<&RawValue>,
        cx: Context<'_>,
    ) -> Result<Body, Failure> {
        let p: NameParams<'_> = parse_params(params)?;
        if let Some(body) = self.run_added(EntryKind::Prompt, &p, cx).await? {
            return Ok(body);
        }
        let entry = self.inner.router.prompt(&p.name, cx.session)?;
        run_prompt(&self.inner.server, entry, p.arguments, cx).await
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
