//! `tools/list`, `prompts/list`, `resources/templates/list` and `resources/list`, served from the
//! rooms' tables: the first page of an unchanged list from the dispatcher's cache, of a changed
//! one from the tables' cache, any other page built for the request.

use serde::Deserialize;

use super::Dispatcher;
use crate::kernel::{Body, Callback, Cursor, Failure, parse_params};
use crate::protocol::Params;
use crate::server::Server;
use crate::session::{ListKind, Session};

#[derive(Deserialize)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

impl<S: Server> Dispatcher<S> {
    /// One page of a list, for `session`.
    pub(crate) async fn list(
        &self,
        kind: ListKind,
        params: Option<Params<'_>>,
        session: &Session,
    ) -> Result<Body, Failure> {
        let p: ListParams = parse_params(params)?;
        let inner = &self.inner;
        if kind == ListKind::Resources && inner.router.overrides(Callback::ListResources) {
            let page = inner
                .server
                .list_resources(p.cursor.map(Cursor), session)
                .await?;
            let mut map = serde_json::Map::new();
            map.insert(
                kind.key().into(),
                serde_json::to_value(page.items).unwrap_or_default(),
            );
            if let Some(c) = page.next_cursor {
                map.insert("nextCursor".into(), c.into());
            }
            return Ok(Body::Map(map));
        }
        let first =
            p.cursor.is_none() && kind.allow_list(session).is_none() && !inner.tables.scoped(kind);
        match inner.tables.changed_first_page(kind) {
            Some(Some(page)) if first => return Ok(Body::Members(page)),
            Some(_) => {}
            None if first => {
                if let Some(page) = inner.first_page(kind) {
                    return Ok(Body::Members(page.to_owned()));
                }
            }
            None => {}
        }
        let page = inner.tables.list_page(kind, session, p.cursor.as_deref())?;
        Ok(Body::Members(page))
    }
}
