//! The tools table of one served instance: the declared tools (built once per type) and those
//! added at run time or merged in from another router, found by one lookup so that every check a
//! declared tool gets — the allow-list, scopes, `Mcp-Param-*` headers — an added one gets too.

use serde_json::value::RawValue;
use std::borrow::Cow;

use super::{Declared, ToolEntry};
use crate::extract::Handler;
use crate::kernel::{Failure, unknown};
use crate::protocol::Params;
use crate::session::Session;

/// A tool added at run time, or merged in from another router.
pub(crate) struct AddedTool {
    pub(crate) name: String,
    /// Its `tools/list` item.
    pub(crate) json: Box<RawValue>,
    /// OAuth scopes a caller's token must grant.
    pub(crate) scopes: Vec<String>,
    /// `(argument, header)` pairs of its `Mcp-Param-*` headers (checked over HTTP).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) headers: Vec<(Cow<'static, str>, Cow<'static, str>)>,
    /// Whether its item carries an MCP Apps view (`_meta.ui`).
    pub(crate) has_ui: bool,
    pub(crate) handler: Handler,
    /// Where the tasks it starts live when another server runs them (a gateway's upstream).
    pub(crate) tasks: Option<std::sync::Arc<dyn TaskRelay>>,
}

/// Tasks that another server runs — a gateway's upstream — answered there: `tasks/get`,
/// `tasks/update` and `tasks/cancel` of a task it started for this caller are passed to it.
pub(crate) trait TaskRelay: Send + Sync {
    /// Whether it started `task_id` for a caller of this `session`'s task owner.
    fn owns(&self, task_id: &str, session: &Session) -> bool;

    /// Passes `method` with `params` on, and answers with what it answered.
    fn forward<'a>(
        &'a self,
        method: &'a str,
        params: Option<Params<'a>>,
        cx: crate::extract::Context<'a>,
    ) -> crate::kernel::BoxFuture<'a, Result<crate::kernel::Body, Failure>>;
}

/// What runtime registration changed in `tools/list`.
pub(crate) type Added = crate::session::Added<AddedTool>;

impl crate::session::Entry for AddedTool {
    fn name(&self) -> &str {
        &self.name
    }
}

/// The tools of one served instance.
pub(crate) type Table<S> = crate::session::Table<Declared<S>, Added>;

/// A tool found in the table.
pub(crate) type Found<S> = crate::session::Found<&'static ToolEntry<S>, AddedTool>;

impl<S: 'static> Table<S> {
    /// The tool named `name`, if the session may see it: a hidden or disabled tool reads as
    /// unknown (`-32602`).
    pub(crate) fn find(&self, name: &str, session: &Session) -> Result<Found<S>, Failure> {
        let added = self.added.load();
        crate::session::find(&session.allowed_tools, &added, name, || {
            self.declared.get(name)
        })
        .ok_or_else(|| unknown("tool", "name", name))
    }

    /// Whether a tool of this name is declared or added (for any session): the metrics name a
    /// tool only then.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(crate) fn has(&self, name: &str) -> bool {
        self.declared.get(name).is_some() || self.added.load().get(name).is_some()
    }

    /// The `(argument, header)` pairs of a tool's `Mcp-Param-*` headers; empty for unknown tools.
    #[cfg(feature = "http")]
    pub(crate) fn headers(&self, name: &str) -> Vec<(Cow<'static, str>, Cow<'static, str>)> {
        let added = self.added.load();
        if !self.declared.any_headers && added.entries.iter().all(|t| t.headers.is_empty()) {
            // No tool has any: nothing to look up.
            return Vec::new();
        }
        if let Some(tool) = added.get(name) {
            return tool.headers.clone();
        }
        self.declared
            .headers(name)
            .map(|(a, h)| (Cow::Borrowed(a), Cow::Borrowed(h)))
            .collect()
    }

    /// The relay of another server's task `task_id`, started for `session`'s owner.
    pub(crate) fn task_relay(
        &self,
        task_id: &str,
        session: &Session,
    ) -> Option<std::sync::Arc<dyn TaskRelay>> {
        let added = self.added.load();
        added
            .entries
            .iter()
            .filter_map(|t| t.tasks.as_ref())
            .find(|r| r.owns(task_id, session))
            .cloned()
    }

    /// Whether an added tool's tasks run on another server.
    pub(crate) fn relays_tasks(&self) -> bool {
        self.added.load().entries.iter().any(|t| t.tasks.is_some())
    }

    /// Whether any tool is served.
    pub(crate) fn is_empty(&self) -> bool {
        self.declared.entries.is_empty() && self.added.load().entries.is_empty()
    }

    /// Whether any tool has an MCP Apps view.
    pub(crate) fn any_ui(&self) -> bool {
        self.declared.entries.iter().any(|t| t.def.ui.is_some())
            || self.added.load().entries.iter().any(|t| t.has_ui)
    }

    /// The items of `tools/list`, in order (declared, then added), without the disabled ones.
    pub(crate) fn items<'a>(
        &'a self,
        added: &'a Added,
        portable: bool,
    ) -> Vec<(&'a str, &'a RawValue)> {
        let declared = self
            .declared
            .entries
            .iter()
            .map(|t| match &t.schemars_json {
                Some(json) if !portable => (t.def.name, &**json),
                _ => (t.def.name, &*t.json),
            });
        let extra = added.entries.iter().map(|a| (a.name.as_str(), &*a.json));
        declared
            .chain(extra)
            .filter(|(name, _)| !added.disabled.contains(*name))
            .collect()
    }
}

impl<S> Declared<S> {
    /// The declared tool named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&ToolEntry<S>> {
        self.index.get(name).map(|&i| &self.entries[i])
    }

    /// The position of the declared tool named `name`.
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The `(argument, header)` pairs of a declared tool's `#[arg(header = "…")]` arguments.
    #[cfg(feature = "http")]
    pub(crate) fn headers(
        &self,
        name: &str,
    ) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        self.get(name)
            .map(|t| &t.specs)
            .into_iter()
            .flatten()
            .filter_map(|s| s.header.map(|h| (s.name, h)))
    }
}
