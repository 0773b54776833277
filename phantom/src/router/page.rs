//! Lists: the four paginated lists, their opaque cursors, and serving `*/list` requests.

use base64::Engine as _;
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;

use super::Router;
use crate::dispatch::Dispatcher;
use crate::error::Error;
use crate::kernel::{Body, Failure, members, parse_params};
use crate::server::{Config, Cursor, Page, Server};
use crate::session::{AllowList, Session, allowed};

/// The four lists a router serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    ResourceTemplates,
    Resources,
    /// `skills/list` (paged over skill routes; never cached, never changed at run time).
    Skills,
}

impl ListKind {
    /// Lists whose first page a dispatcher serializes once.
    pub(crate) const CACHED: [Self; 3] = [Self::Tools, Self::Prompts, Self::ResourceTemplates];

    /// The result member holding the items.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Prompts => "prompts",
            Self::ResourceTemplates => "resourceTemplates",
            Self::Resources => "resources",
            Self::Skills => "skills",
        }
    }

    /// The tag a cursor of this list starts with, so one list's cursor is rejected by another.
    fn tag(self) -> &'static str {
        match self {
            Self::Tools => "t",
            Self::Prompts => "p",
            Self::ResourceTemplates => "x",
            Self::Resources => "r",
            Self::Skills => "s",
        }
    }

    pub(crate) fn allow_list(self, session: &Session) -> &Option<AllowList> {
        match self {
            Self::Tools => &session.allowed_tools,
            Self::Prompts => &session.allowed_prompts,
            Self::ResourceTemplates | Self::Resources => &session.allowed_resource_templates,
            Self::Skills => &session.allowed_skills,
        }
    }
}

impl<S> Router<S> {
    /// The items of a list, in declaration order, with the names allow-lists filter on.
    pub(crate) fn list_items(
        &self,
        kind: ListKind,
        portable_schemas: bool,
    ) -> Vec<(&'static str, &RawValue)> {
        match kind {
            ListKind::Tools => self
                .tools
                .iter()
                .map(|t| match &t.schemars_json {
                    Some(json) if !portable_schemas => (t.def.name, &**json),
                    _ => (t.def.name, &*t.json),
                })
                .collect(),
            ListKind::Prompts => self
                .prompts
                .iter()
                .map(|p| (p.def.name, &*p.json))
                .collect(),
            ListKind::Skills => Vec::new(),
            ListKind::ResourceTemplates | ListKind::Resources => {
                let positions = if kind == ListKind::Resources {
                    &self.concrete
                } else {
                    &self.templated
                };
                positions
                    .iter()
                    .map(|&i| (self.resources[i].def.name, &*self.resources[i].json))
                    .collect()
            }
        }
    }

    /// One page of a list as result members (`"tools":[…],"nextCursor":…`).
    pub(crate) fn list_page(
        &self,
        kind: ListKind,
        session: &Session,
        cursor: Option<&str>,
        config: &Config,
    ) -> Result<String, Error> {
        let page = paginate(
            kind,
            self.list_items(kind, config.portable_schemas).into_iter(),
            kind.allow_list(session),
            cursor,
            config.page_size,
        )?;
        Ok(members(
            kind.key(),
            &page.items,
            page.next_cursor.as_deref(),
        ))
    }
}

#[derive(Deserialize)]
struct ListParams {
    #[serde(default)]
    cursor: Option<String>,
}

impl<S: Server> Dispatcher<S> {
    /// `tools/list`, `prompts/list`, `resources/templates/list` and `resources/list`.
    pub(crate) async fn list(
        &self,
        kind: ListKind,
        params: Option<&RawValue>,
        session: &Session,
    ) -> Result<Body, Failure> {
        let p: ListParams = parse_params(params)?;
        let inner = &self.inner;
        if kind == ListKind::Resources
            && inner
                .router
                .overrides(crate::server::Callback::ListResources)
        {
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
        if let Some(page) = self.changed_page(kind, session, p.cursor.as_deref()) {
            return Ok(Body::Members(page?));
        }
        if p.cursor.is_none()
            && kind.allow_list(session).is_none()
            && let Some(page) = inner.first_page(kind)
        {
            return Ok(Body::Members(page.to_owned()));
        }
        let page = inner
            .router
            .list_page(kind, session, p.cursor.as_deref(), &inner.config)?;
        Ok(Body::Members(page))
    }
}

/// Pages `items` (in declaration order) for a session: skips names the allow-list excludes, starts
/// at the cursor's offset, and returns the cursor of the next page.
pub(crate) fn paginate<'a, T>(
    kind: ListKind,
    items: impl Iterator<Item = (&'a str, T)>,
    allow: &Option<AllowList>,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<Page<T>, Error> {
    let start = match cursor {
        None => 0,
        Some(c) => decode_cursor(kind.tag(), c).ok_or_else(|| {
            Error::invalid_params("invalid cursor").with_data(json!({ "cursor": c }))
        })?,
    };
    let mut out = Vec::new();
    let mut next = None;
    for (offset, (name, item)) in items.enumerate().skip(start) {
        if !allowed(allow, name) {
            continue;
        }
        if out.len() == page_size {
            next = Some(encode_cursor(kind.tag(), offset));
            break;
        }
        out.push(item);
    }
    Ok(Page {
        items: out,
        next_cursor: next,
    })
}

fn encode_cursor(kind: &str, offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{kind}{offset}"))
}

pub(crate) fn decode_cursor(kind: &str, cursor: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    text.strip_prefix(kind)?.parse().ok().filter(|&n| n > 0)
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::{decode_cursor, encode_cursor};

    proptest! {
        #[test]
        fn a_cursor_decodes_to_its_offset_for_its_own_list_only(offset in 1usize.., kind in "[a-z]") {
            let cursor = encode_cursor(&kind, offset);
            prop_assert_eq!(decode_cursor(&kind, &cursor), Some(offset));
            let other = if kind == "t" { "p" } else { "t" };
            prop_assert_eq!(decode_cursor(other, &cursor), None);
        }

        #[test]
        fn any_text_decodes_to_an_offset_or_nothing(text in "\\PC{0,64}") {
            if let Some(n) = decode_cursor("t", &text) {
                prop_assert!(n > 0);
            }
        }
    }
}
