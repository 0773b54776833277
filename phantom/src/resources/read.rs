//! `resources/read`: match the URI against the templates, run the handler.

use std::borrow::Cow;

use serde::Deserialize;

use super::{Matched, ReadParts, ResourceEntry, Table};
use crate::auth::check_scopes;
use crate::error::Error;
use crate::extract::Context;
use crate::kernel::{Body, Failure, guarded, target_member};
use crate::protocol::{Params, Target};

/// The params of `resources/read` as the room expects them, read only for the exact error of
/// params whose `uri` did not read as a string.
#[derive(Deserialize)]
#[allow(dead_code)]
struct ReadParams {
    uri: String,
}

/// What `resources/read` may use: the server and its resources table.
pub(crate) trait Env {
    type Server: Send + Sync + 'static;
    fn server(&self) -> &Self::Server;
    fn resources(&self) -> &Table<Self::Server>;
}

/// The URI a `resources/read` names: the request's target (decoded once with its params), or the
/// error its params give.
pub(crate) fn uri_of<'t>(
    target: &'t Target<'_>,
    params: Option<Params<'_>>,
) -> Result<&'t str, Failure> {
    target_member::<ReadParams>(target.uri(), params, "uri")
}

/// `resources/read` of `uri` against the table (declared templates, then added ones).
/// `Ok(None)`: no template matches it (another room may serve it: skill files).
pub(crate) async fn read<E: Env>(
    env: &E,
    uri: &str,
    cx: Context<'_>,
) -> Result<Option<Body>, Failure> {
    let table = env.resources();
    let matched = table.matched(uri, cx.session);
    if let Some(info) = matched.as_ref().map(Matched::info) {
        check_scopes(cx.session, &info.scopes, || {
            format!("resource `{}`", info.name)
        })?;
    }
    match matched {
        Some(Matched::Declared(entry, params)) => run_read(env.server(), entry, uri, params, cx)
            .await
            .map(Some),
        Some(Matched::Added(resource, params)) => {
            let read = guarded(
                "resource handler",
                &resource.info.name,
                (resource.read)(uri, params, cx),
            );
            read.await?.map(Some)
        }
        // A hidden or disabled declared template reads as not found.
        None if table.declares(uri) => Err(Failure::from(Error::resource_not_found(uri))),
        None => Ok(None),
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
