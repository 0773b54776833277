//! `resources/read`: match the URI against the templates, run the handler.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::dispatch::{Body, Dispatcher, Failure, guarded, parse_params};
use crate::error::Error;
use crate::extract::Context;
use crate::router::ReadParts;
use crate::server::{Server, allowed};

#[derive(Deserialize)]
struct ReadParams {
    uri: String,
}

impl<S: Server> Dispatcher<S> {
    pub(crate) async fn read_resource(
        &self,
        params: Option<&RawValue>,
        cx: Context<'_>,
    ) -> Result<Body, Failure> {
        let session = cx.session;
        let p: ReadParams = parse_params(params)?;
        let router = self.inner.router;
        let not_found = || Failure::from(Error::resource_not_found(p.uri.as_str()));
        let found = router.matcher.find(&p.uri).ok_or_else(not_found)?;
        let entry = &router.resources[found.index];
        if !allowed(&session.allowed_resource_templates, entry.def.name) {
            return Err(not_found());
        }
        let parts = ReadParts {
            uri: &p.uri,
            params: found.params,
            cx,
            mime_type: entry.def.mime_type,
        };
        let fut = (entry.def.read)(&self.inner.server, parts);
        let contents = guarded("resource handler", entry.def.name, fut)
            .await??
            .ok_or_else(not_found)?;
        let text = serde_json::to_string(&contents).map_err(|_| Failure::internal())?;
        Ok(Body::Members(format!("\"contents\":{text}")))
    }
}
