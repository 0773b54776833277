//! The tables of one served instance: each room's table, its declared entries and what runtime
//! registration added, and the lists built from them.

use std::sync::{Arc, Mutex};

use crate::error::Error;
use crate::kernel::{Locked as _, members};
use crate::router::Router;
use crate::server::Config;
use crate::session::{ListKind, Session, paginate};
use crate::{prompts, resources, skills, tools};

use super::RegistryError;

/// Every room's table for one served instance.
pub(crate) struct Tables<S: 'static> {
    pub(crate) tools: tools::Table<S>,
    pub(crate) prompts: prompts::Table<S>,
    pub(crate) resources: resources::Table<S>,
    pub(crate) skills: skills::Table<S>,
    /// Held by a change while it is staged and swapped in: changes apply one at a time.
    writer: Mutex<()>,
    page_size: usize,
    portable_schemas: bool,
}

/// A change being made: a copy of what each room added, swapped in whole when it is done.
pub(crate) struct Staged {
    pub(crate) tools: tools::Added,
    pub(crate) prompts: prompts::Added,
    pub(crate) resources: resources::Added,
    pub(crate) skills: skills::Added,
}

impl<S: 'static> Tables<S> {
    /// The tables of a new instance of `router`: its declared entries, nothing added.
    pub(crate) fn new(router: &'static Router<S>, config: &Config) -> Self {
        Self {
            tools: tools::Table::new(&router.tools),
            prompts: prompts::Table::new(&router.prompts),
            resources: resources::Table::new(&router.resources),
            skills: skills::Table::new(&router.skills),
            writer: Mutex::default(),
            page_size: config.page_size,
            portable_schemas: config.portable_schemas,
        }
    }

    /// Applies `change` to a copy of what was added and swaps it in, with each changed list's
    /// first page built once (nothing changes on `Err`).
    pub(crate) fn change(
        &self,
        change: impl FnOnce(&mut Staged) -> Result<(), RegistryError>,
    ) -> Result<(), RegistryError> {
        let _writer = self.writer.locked();
        let mut staged = Staged {
            tools: tools::Added::clone(&self.tools.added.load()),
            prompts: prompts::Added::clone(&self.prompts.added.load()),
            resources: resources::Added::clone(&self.resources.added.load()),
            skills: skills::Added::clone(&self.skills.added.load()),
        };
        change(&mut staged)?;
        staged.resources.rematch();
        staged.skills.rematch();
        let everyone = Session::default();
        let first = |kind, staged: &Staged| {
            let added = (&staged.tools, &staged.prompts, &staged.resources);
            self.page(kind, added, &everyone, None).ok()
        };
        staged.tools.first_page = first(ListKind::Tools, &staged);
        staged.prompts.first_page = first(ListKind::Prompts, &staged);
        staged.resources.first_pages = [
            first(ListKind::ResourceTemplates, &staged),
            first(ListKind::Resources, &staged),
        ];
        let Staged {
            tools,
            prompts,
            resources,
            skills,
        } = staged;
        self.tools.added.store(Arc::new(tools));
        self.prompts.added.store(Arc::new(prompts));
        self.resources.added.store(Arc::new(resources));
        self.skills.added.store(Arc::new(skills));
        Ok(())
    }

    /// One page of a list over what `tools`, `prompts` and `resources` added (declared entries
    /// that are not disabled, then the added ones), as result members.
    fn page(
        &self,
        kind: ListKind,
        (tools, prompts, resources): (&tools::Added, &prompts::Added, &resources::Added),
        session: &Session,
        cursor: Option<&str>,
    ) -> Result<String, Error> {
        let items = match kind {
            ListKind::Tools => self.tools.items(tools, self.portable_schemas),
            ListKind::Prompts => self.prompts.items(prompts, session),
            ListKind::ResourceTemplates => self.resources.items(resources, false, session),
            ListKind::Resources => self.resources.items(resources, true, session),
            ListKind::Skills => Vec::new(),
        };
        let page = paginate(
            kind,
            items.into_iter(),
            kind.allow_list(session),
            cursor,
            self.page_size,
        )?;
        Ok(members(
            kind.key(),
            &page.items,
            page.next_cursor.as_deref(),
        ))
    }

    /// One page of a list, as result members.
    pub(crate) fn list_page(
        &self,
        kind: ListKind,
        session: &Session,
        cursor: Option<&str>,
    ) -> Result<String, Error> {
        let (tools, prompts, resources) = (
            self.tools.added.load(),
            self.prompts.added.load(),
            self.resources.added.load(),
        );
        self.page(kind, (&tools, &prompts, &resources), session, cursor)
    }

    /// The cached first page of a list that runtime registration changed (`None`: unchanged,
    /// the declared tables' cached page serves it).
    pub(crate) fn changed_first_page(&self, kind: ListKind) -> Option<Option<String>> {
        match kind {
            ListKind::Tools => {
                let added = self.tools.added.load();
                added.changes().then(|| added.first_page.clone())
            }
            ListKind::Prompts => {
                let added = self.prompts.added.load();
                added.changes().then(|| added.first_page.clone())
            }
            ListKind::ResourceTemplates | ListKind::Resources => {
                let added = self.resources.added.load();
                let i = usize::from(kind == ListKind::Resources);
                added.changes().then(|| added.first_pages[i].clone())
            }
            ListKind::Skills => None,
        }
    }

    /// Whether a list has entries with scopes, so that its pages differ by token (and no cached
    /// page, built for a session without one, serves it).
    pub(crate) fn scoped(&self, kind: ListKind) -> bool {
        match kind {
            ListKind::Prompts => self.prompts.scoped(),
            ListKind::ResourceTemplates | ListKind::Resources => self.resources.scoped(),
            ListKind::Tools | ListKind::Skills => false,
        }
    }

    /// Whether any prompt or template (declared or added) has a completion function.
    pub(crate) fn completes(&self) -> bool {
        self.prompts.completes() || self.resources.completes()
    }
}
