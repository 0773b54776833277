//! What runtime registration changed in one served instance's tables, as requests see it.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use arc_swap::ArcSwap;
use serde_json::value::RawValue;

use super::EntryKind;
use crate::dispatch::Dispatcher;
use crate::extract::Context;
use crate::kernel::BoxFuture;
use crate::kernel::{Body, Failure, guarded, unknown};
use crate::resources::ResolvedResource;
use crate::resources::TemplateInfo;
use crate::resources::uri::{Matcher, Template};
use crate::router::{ListKind, Router, paginate};
use crate::server::{Config, Server};
use crate::session::{Session, allowed};
use crate::tools::NameParams;

/// Runs an added tool or prompt: its arguments and the request's context in, the result out.
pub(crate) type Handler = Arc<
    dyn for<'a> Fn(Option<&'a RawValue>, Context<'a>) -> BoxFuture<'a, Result<Body, Failure>>
        + Send
        + Sync,
>;

/// Reads an added resource: the URI, its parameters (in template order) and the context in.
pub(crate) type Reader = Arc<
    dyn for<'a> Fn(&'a str, Vec<Cow<'a, str>>, Context<'a>) -> BoxFuture<'a, Result<Body, Failure>>
        + Send
        + Sync,
>;

/// A tool or prompt added at run time (or merged in from another router).
#[derive(Clone)]
pub(crate) struct Added {
    pub(crate) name: String,
    /// Its `tools/list` or `prompts/list` item.
    pub(crate) json: Box<RawValue>,
    pub(crate) handler: Handler,
}

/// A resource or resource template added at run time (or merged in from another router).
#[derive(Clone)]
pub(crate) struct AddedResource {
    pub(crate) info: Arc<TemplateInfo>,
    pub(crate) template: Template,
    /// Its `resources/list` item (a concrete URI) or `resources/templates/list` item.
    pub(crate) json: Box<RawValue>,
    pub(crate) read: Reader,
}

impl AddedResource {
    pub(crate) fn is_concrete(&self) -> bool {
        self.template.is_concrete()
    }
}

/// Builds an added skill from its URI's parameters (by name).
pub(crate) type SkillBuilder = Arc<
    dyn Fn(
            std::collections::HashMap<String, String>,
        ) -> BoxFuture<'static, Result<Option<crate::skills::Skill>, crate::error::Error>>
        + Send
        + Sync,
>;

/// A skill added at run time.
#[derive(Clone)]
pub(crate) struct AddedSkill {
    /// Its directory URI as given (`skill://team/<id>/name`).
    pub(crate) uri: String,
    pub(crate) template: Template,
    pub(crate) name: String,
    pub(crate) build: SkillBuilder,
}

/// The changes, swapped in whole: a request sees the tables before or after a change.
#[derive(Default, Clone)]
pub(crate) struct Overlay {
    pub(crate) tools: Vec<Added>,
    pub(crate) prompts: Vec<Added>,
    pub(crate) resources: Vec<AddedResource>,
    pub(crate) skills: Vec<AddedSkill>,
    /// Matches URIs against `resources`' templates (rebuilt with every change).
    matcher: Arc<Matcher>,
    /// Matches skill URIs: `2 i` is skill `i`'s directory, `2 i + 1` a path inside it.
    pub(crate) skill_matcher: Arc<Matcher>,
    /// Names (declared or added) that are disabled: unlisted and unreachable. By [`EntryKind`].
    pub(crate) disabled: [HashSet<String>; 3],
    /// The first page of each list without a cursor or an allow-list, by [`ListKind`] position.
    pages: [Option<String>; 4],
}

impl Overlay {
    /// Whether anything changed at all (requests then take the declared tables as they are).
    pub(crate) fn is_empty(&self) -> bool {
        self.tools.is_empty()
            && self.prompts.is_empty()
            && self.resources.is_empty()
            && self.skills.is_empty()
            && self.disabled.iter().all(HashSet::is_empty)
    }

    /// Whether a list differs from the declared one.
    pub(crate) fn changes(&self, kind: ListKind) -> bool {
        match kind {
            ListKind::Tools => !self.tools.is_empty() || !self.disabled[0].is_empty(),
            ListKind::Prompts => !self.prompts.is_empty() || !self.disabled[1].is_empty(),
            ListKind::ResourceTemplates | ListKind::Resources => {
                !self.resources.is_empty() || !self.disabled[2].is_empty()
            }
            ListKind::Skills => false,
        }
    }

    pub(crate) fn added(&self, kind: EntryKind) -> &[Added] {
        match kind {
            EntryKind::Tool => &self.tools,
            EntryKind::Prompt => &self.prompts,
            EntryKind::Resource => &[],
        }
    }

    pub(crate) fn is_disabled(&self, kind: EntryKind, name: &str) -> bool {
        self.disabled[kind as usize].contains(name)
    }

    /// Whether `name` is taken by an added entry of `kind`.
    pub(crate) fn has(&self, kind: EntryKind, name: &str) -> bool {
        match kind {
            EntryKind::Resource => self.resources.iter().any(|r| r.info.name == name),
            _ => self.added(kind).iter().any(|a| a.name == name),
        }
    }

    /// An added resource matching `uri`, with its decoded parameters.
    pub(crate) fn find<'u>(&self, uri: &'u str) -> Option<(&AddedResource, Vec<Cow<'u, str>>)> {
        let found = self.matcher.find(uri)?;
        let resource = &self.resources[found.index];
        Some((resource, found.params))
            .filter(|_| !self.is_disabled(EntryKind::Resource, &resource.info.name))
    }

    /// The list items this overlay adds to `kind`, with their names.
    fn items(&self, kind: ListKind) -> Vec<(&str, &RawValue)> {
        match kind {
            ListKind::Tools => self.tools.iter().map(|a| (&*a.name, &*a.json)).collect(),
            ListKind::Prompts => self.prompts.iter().map(|a| (&*a.name, &*a.json)).collect(),
            ListKind::Skills => Vec::new(),
            ListKind::ResourceTemplates | ListKind::Resources => self
                .resources
                .iter()
                .filter(|r| r.is_concrete() == (kind == ListKind::Resources))
                .map(|r| (&*r.info.name, &*r.json))
                .collect(),
        }
    }

    /// Rebuilds what is derived from the entries: the matcher and the cached first pages.
    pub(crate) fn rebuild<S>(&mut self, router: &Router<S>, config: &Config) {
        let mut matcher = Matcher::default();
        for (i, r) in self.resources.iter().enumerate() {
            matcher.insert(&r.template, i);
        }
        self.matcher = Arc::new(matcher);
        let mut skills = Matcher::default();
        for (i, s) in self.skills.iter().enumerate() {
            skills.insert(&s.template, 2 * i);
            if let Ok(inside) = Template::parse(&format!("{}/<__phantom_path..>", s.uri)) {
                skills.insert(&inside, 2 * i + 1);
            }
        }
        self.skill_matcher = Arc::new(skills);
        let session = Session::default();
        for (i, kind) in LISTS.into_iter().enumerate() {
            self.pages[i] = router.overlay_page(kind, self, &session, None, config).ok();
        }
    }

    pub(crate) fn first_page(&self, kind: ListKind) -> Option<&str> {
        let i = LISTS.iter().position(|k| *k == kind)?;
        self.pages[i].as_deref()
    }
}

const LISTS: [ListKind; 4] = [
    ListKind::Tools,
    ListKind::Prompts,
    ListKind::ResourceTemplates,
    ListKind::Resources,
];

impl EntryKind {
    fn list(self) -> ListKind {
        match self {
            Self::Tool => ListKind::Tools,
            Self::Prompt => ListKind::Prompts,
            Self::Resource => ListKind::ResourceTemplates,
        }
    }
}

/// The overlay of one served instance.
pub(crate) type Overlays = ArcSwap<Overlay>;

impl<S> Router<S> {
    /// One page of a list with the changes of `overlay`: declared entries that are not
    /// disabled, then the added ones that are not.
    pub(crate) fn overlay_page(
        &self,
        kind: ListKind,
        overlay: &Overlay,
        session: &Session,
        cursor: Option<&str>,
        config: &Config,
    ) -> Result<String, crate::error::Error> {
        let declared = self.list_items(kind, config.portable_schemas);
        let disabled = &overlay.disabled[match kind {
            ListKind::Tools => EntryKind::Tool,
            ListKind::Prompts => EntryKind::Prompt,
            _ => EntryKind::Resource,
        } as usize];
        let items = declared
            .into_iter()
            .chain(overlay.items(kind))
            .filter(|(name, _)| !disabled.contains(*name));
        let page = paginate(
            kind,
            items,
            kind.allow_list(session),
            cursor,
            config.page_size,
        )?;
        Ok(crate::kernel::members(
            kind.key(),
            &page.items,
            page.next_cursor.as_deref(),
        ))
    }
}

impl<S: Server> Dispatcher<S> {
    /// One page of a list when runtime registration changed it (`None`: it did not).
    pub(crate) fn changed_page(
        &self,
        kind: ListKind,
        session: &Session,
        cursor: Option<&str>,
    ) -> Option<Result<String, crate::error::Error>> {
        let overlay = self.inner.overlay.load();
        if !overlay.changes(kind) {
            return None;
        }
        if cursor.is_none()
            && kind.allow_list(session).is_none()
            && let Some(page) = overlay.first_page(kind)
        {
            return Some(Ok(page.to_owned()));
        }
        Some(
            self.inner
                .router
                .overlay_page(kind, &overlay, session, cursor, &self.inner.config),
        )
    }

    /// `tools/call` or `prompts/get` of an added entry (`None`: not one; the declared tables
    /// serve it). A disabled entry, declared or added, reads as unknown.
    pub(crate) async fn run_added(
        &self,
        kind: EntryKind,
        p: &NameParams<'_>,
        cx: Context<'_>,
    ) -> Result<Option<Body>, Failure> {
        let overlay = self.inner.overlay.load();
        if overlay.is_empty() {
            return Ok(None);
        }
        let name: &str = &p.name;
        let refused = || unknown(kind.noun(), "name", name);
        if overlay.is_disabled(kind, name) {
            return Err(refused());
        }
        let Some(added) = overlay.added(kind).iter().find(|a| a.name == name) else {
            return Ok(None);
        };
        if !allowed(kind.list().allow_list(cx.session), name) {
            return Err(refused());
        }
        let handler = Arc::clone(&added.handler);
        drop(overlay);
        guarded(kind.what(), name, handler(p.arguments, cx))
            .await?
            .map(Some)
    }

    /// `resources/read` of a URI no declared template matches (`None`: no added one does).
    pub(crate) async fn read_added(
        &self,
        uri: &str,
        cx: Context<'_>,
    ) -> Result<Option<Body>, Failure> {
        let overlay = self.inner.overlay.load();
        let Some((resource, params)) = overlay.find(uri) else {
            return Ok(None);
        };
        if !allowed(&cx.session.allowed_resource_templates, &resource.info.name) {
            return Ok(None);
        }
        let read = Arc::clone(&resource.read);
        let name = resource.info.name.clone();
        drop(overlay);
        guarded("resource handler", &name, read(uri, params, cx))
            .await?
            .map(Some)
    }
}

impl<S: Server> crate::dispatch::Inner<S> {
    /// A URI resolved against the templates served (declared, then added), skipping disabled
    /// ones: `(uri, path params, template)`.
    pub(crate) fn resolve(&self, uri: &str) -> Option<ResolvedResource> {
        let overlay = self.overlay.load();
        match self.router.resolve(uri) {
            Some(r) if overlay.is_disabled(EntryKind::Resource, &r.template.name) => None,
            Some(r) => Some(r),
            None => {
                let (resource, params) = overlay.find(uri)?;
                Some(crate::router::resolved(uri, &resource.info, params))
            }
        }
    }
}
