//! `prompts/get`: look the prompt up, check its arguments, run the handler.

use serde_json::value::RawValue;

use crate::dispatch::{Body, Dispatcher, Failure, guarded, invalid, members_of, parse_params};
use crate::extract::{Args, CallParts, Context};
use crate::server::Server;
use crate::tools::NameParams;

impl<S: Server> Dispatcher<S> {
    pub(crate) async fn get_prompt(
        &self,
        params: Option<&RawValue>,
        cx: Context<'_>,
    ) -> Result<Body, Failure> {
        let session = cx.session;
        let p: NameParams<'_> = parse_params(params)?;
        let entry = self.inner.router.prompt(&p.name, session)?;
        let args = Args::parse(p.arguments).map_err(|e| invalid(format!("Invalid params: {e}")))?;
        if let Some(unknown) = args
            .names()
            .find(|n| !entry.specs.iter().any(|s| s.name == *n))
        {
            return Err(invalid(format!(
                "Invalid params: unknown argument `{unknown}` for prompt `{}`",
                p.name
            )));
        }
        let parts = CallParts { cx, args };
        let fut = (entry.def.get)(&self.inner.server, parts);
        let reply = guarded("prompt handler", entry.def.name, fut).await??;
        members_of(&reply)
    }
}
