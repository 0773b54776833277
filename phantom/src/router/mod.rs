//! The static tables `#[mcp_router]` generates, and what phantom builds from them once per router:
//! one table per room, each built by its room.

use crate::error::Error;
use crate::kernel::{Callback, Cursor, Overrides, Page};
use crate::protocol::Implementation;
use crate::protocol::descriptor::icons;
use crate::resources::Resource;
use crate::session::{ListKind, Session, paginate};
use crate::{prompts, resources, skills, tools};

/// The `#[mcp_router(…)]` attribute values.
#[derive(Debug, Clone)]
pub struct RouterInfo {
    /// `name`.
    pub name: &'static str,
    /// `version`.
    pub version: &'static str,
    /// `title`.
    pub title: Option<&'static str>,
    /// `instructions`.
    pub instructions: Option<&'static str>,
    /// `icons` (sources).
    pub icons: &'static [&'static str],
    /// `website_url`.
    pub website_url: Option<&'static str>,
    /// `tool_timeout`: every tool's time limit unless it sets its own, in milliseconds.
    pub tool_timeout_ms: Option<u64>,
}

impl RouterInfo {
    /// The `serverInfo` object.
    pub fn implementation(&self) -> Implementation {
        Implementation {
            name: self.name.into(),
            version: self.version.into(),
            title: self.title.map(Into::into),
            description: None,
            icons: icons(self.icons),
            website_url: self.website_url.map(Into::into),
        }
    }
}

/// Everything `#[mcp_router]` generates, handed to [`Router::build`] once.
#[allow(missing_debug_implementations, missing_docs)]
pub struct RouterDef<S> {
    pub info: RouterInfo,
    pub tools: Vec<tools::ToolDef<S>>,
    pub prompts: Vec<prompts::PromptDef<S>>,
    pub resources: Vec<resources::ResourceDef<S>>,
    pub skills: Vec<skills::SkillDef<S>>,
    /// Names of the callbacks the impl overrides.
    pub overrides: &'static [Callback],
}

/// The router built once from the generated [`RouterDef`]: each room's table of declared entries
/// (schemas, validators, serialized list items, name indexes, URI matchers).
#[allow(missing_debug_implementations)]
pub struct Router<S> {
    /// The `#[mcp_router]` attribute values.
    pub info: RouterInfo,
    pub(crate) tools: tools::Declared<S>,
    pub(crate) prompts: prompts::Declared<S>,
    pub(crate) resources: resources::Declared<S>,
    pub(crate) skills: skills::Declared<S>,
    pub(crate) overrides: Overrides,
}

impl<S> Router<S> {
    /// Builds each room's table. Runs once per router type.
    ///
    /// # Panics
    ///
    /// Never for tables `#[mcp_router]` generated: it already rejected what would fail here.
    pub fn build(def: RouterDef<S>) -> Self {
        Self {
            info: def.info,
            tools: tools::Declared::build(def.tools),
            prompts: prompts::Declared::build(def.prompts),
            resources: resources::Declared::build(def.resources),
            skills: skills::Declared::build(def.skills),
            overrides: Overrides::of(def.overrides),
        }
    }

    /// The position of the tool named `name`: the routing step of `tools/call`.
    #[doc(hidden)]
    pub fn tool_position(&self, name: &str) -> Option<usize> {
        self.tools.position(name)
    }

    /// The resource template a URI matches: the routing step of `resources/read`.
    #[doc(hidden)]
    pub fn match_uri(&self, uri: &str) -> Option<usize> {
        self.resources.matcher.find(uri).map(|m| m.index)
    }

    /// Whether the impl overrides the named callback.
    pub(crate) fn overrides(&self, callback: Callback) -> bool {
        self.overrides.contains(callback)
    }

    /// The default `list_resources`: concrete resources, paginated, allow-list and scopes
    /// applied.
    pub fn concrete_resources(
        &self,
        cursor: Option<&Cursor>,
        session: &Session,
    ) -> Result<Page<Resource>, Error> {
        let declared = &self.resources;
        let page = paginate(
            ListKind::Resources,
            declared
                .concrete
                .iter()
                .map(|&i| &declared.entries[i])
                .filter(|r| crate::auth::grants(session, r.def.scopes))
                .map(|r| (r.def.name, r)),
            &session.allowed_resource_templates,
            cursor.map(|c| c.0.as_str()),
            crate::session::DEFAULT_PAGE_SIZE,
        )?;
        let items = page
            .items
            .into_iter()
            .map(|r| Resource {
                uri: r.concrete_uri.clone().unwrap_or_default(),
                name: r.def.name.into(),
                title: r.def.title.map(Into::into),
                description: r.def.description.map(Into::into),
                mime_type: r.def.mime_type.map(Into::into),
                size: r.def.size,
                icons: icons(r.def.icons),
                meta: r.def.ui.map(|ui| ui.meta()),
                other: serde_json::Map::new(),
            })
            .collect();
        Ok(Page {
            items,
            next_cursor: page.next_cursor,
        })
    }

    /// The default `list_skills`: every skill route without URI parameters, paginated, the
    /// allow-list and scopes applied.
    pub fn concrete_skills(
        &self,
        cursor: Option<&Cursor>,
        session: &Session,
    ) -> Result<Page<String>, Error> {
        self.skills.concrete(cursor, session)
    }
}
