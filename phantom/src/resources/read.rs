//! `resources/read`: match the URI against the templates, run the handler.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::dispatch::Dispatcher;
use crate::error::Error;
use crate::extract::Context;
use crate::kernel::{Body, Failure, guarded, parse_params};
use crate::resources::{ReadParts, ResourceEntry};
use crate::server::Server;
use crate::session::allowed;

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
        let Some(found) = router.matcher.find(&p.uri) else {
            if let Some(body) = self.read_skill_file(&p.uri, cx).await? {
                return Ok(body);
            }
            return match self.read_added(&p.uri, cx).await? {
                Some(body) => Ok(body),
                None => Err(not_found()),
            };
        };
        let entry = &router.resources[found.index];
        if !allowed(&session.allowed_resource_templates, &entry.info.name)
            || self
                .inner
                .overlay
                .load()
                .is_disabled(crate::registry::EntryKind::Resource, &entry.info.name)
        {
            return Err(not_found());
        }
        run_read(&self.inner.server, entry, &p.uri, found.params, cx).await
    }
}

/// Reads a declared resource of `server` (the one served, or a router merged into it).
pub(crate) async fn run_read<'a, T>(
    server: &'a T,
    entry: &'a ResourceEntry<T>,
    uri: &'a str,
    params: Vec<Cow<'a, str>>,
    cx: Context<'a>,
) -> Result<Body, Failure> {
    let parts = ReadParts {
        uri,
        params,
        cx,
        mime_type: entry.def.mime_type,
    };
    let fut = (entry.def.read)(server, parts);
    let mut contents = guarded("resource handler", entry.def.name, fut)
        .await??
        .ok_or_else(|| Failure::from(Error::resource_not_found(uri)))?;
    if let Some(ui) = &entry.def.ui {
        let meta = ui.meta();
        for c in &mut contents {
            c.meta
                .get_or_insert_with(serde_json::Map::new)
                .extend(meta.clone());
        }
    }
    contents_body(&contents)
}

/// The `"contents":[…]` members of a read's result.
pub(crate) fn contents_body(
    contents: &[crate::content::ResourceContents],
) -> Result<Body, Failure> {
    let text = serde_json::to_string(contents).map_err(|_| Failure::internal())?;
    Ok(Body::Members(format!("\"contents\":{text}")))
}
