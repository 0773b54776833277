//! The resources table of one served instance: declared resources and templates (built once per
//! type) and those added at run time or merged in, matched by one lookup so that an added or
//! merged template is read, resolved, allow-listed, disabled and completed as a declared one is.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::uri::{Matcher, Template};
use super::{ResolvedResource, ResourceDef, ResourceEntry, TemplateInfo};
use crate::auth::{check_scopes, grants};
use crate::completion::{Completable, Completer, Completions};
use crate::extract::Context;
use crate::kernel::{Body, BoxFuture, Failure};
use crate::protocol::descriptor::{put, put_icons, raw};
use crate::session::{Session, allowed};

/// Reads an added resource: the URI, its parameters (in template order) and the context in.
pub(crate) type Reader = Arc<
    dyn for<'a> Fn(&'a str, Vec<Cow<'a, str>>, Context<'a>) -> BoxFuture<'a, Result<Body, Failure>>
        + Send
        + Sync,
>;

/// The resources one `#[mcp_router]` impl declares, built once per type.
pub(crate) struct Declared<S> {
    pub(crate) entries: Vec<ResourceEntry<S>>,
    pub(crate) matcher: Matcher,
    /// Entries by RFC 6570 template (what `ref/resource` names).
    template_index: HashMap<String, usize>,
    /// Positions of the concrete resources and of the templates.
    pub(crate) concrete: Vec<usize>,
    templated: Vec<usize>,
}

impl<S> Declared<S> {
    /// Parses each template into the matcher and serializes each list item.
    pub(crate) fn build(defs: Vec<ResourceDef<S>>) -> Self {
        let mut entries = Vec::with_capacity(defs.len());
        let mut matcher = Matcher::default();
        let mut template_index = HashMap::new();
        let (mut concrete, mut templated) = (Vec::new(), Vec::new());
        for (i, res) in defs.into_iter().enumerate() {
            let template = Template::parse(res.template).expect("template validated by the macro");
            matcher.insert(&template, i);
            let uri_template = template.to_rfc6570();
            let info = Arc::new(TemplateInfo {
                template: res.template.to_owned(),
                uri_template: uri_template.clone(),
                name: res.name.to_owned(),
                params: template.params().map(str::to_owned).collect(),
                scopes: res.scopes.iter().map(|s| (*s).to_owned()).collect(),
            });
            let mut obj = Map::new();
            let concrete_uri = template.is_concrete().then(|| uri_template.clone());
            if let Some(uri) = &concrete_uri {
                obj.insert("uri".into(), uri.clone().into());
                concrete.push(i);
            } else {
                obj.insert("uriTemplate".into(), uri_template.clone().into());
                templated.push(i);
            }
            template_index.insert(uri_template, i);
            obj.insert("name".into(), res.name.into());
            put(&mut obj, "title", res.title);
            put(&mut obj, "description", res.description);
            put(&mut obj, "mimeType", res.mime_type);
            if concrete_uri.is_some() {
                put(&mut obj, "size", res.size);
            }
            put_icons(&mut obj, res.icons);
            if let Some(ui) = &res.ui {
                obj.insert("_meta".into(), Value::Object(ui.meta()));
            }
            entries.push(ResourceEntry {
                json: raw(&obj),
                def: res,
                info,
                concrete_uri,
            });
        }
        Self {
            entries,
            matcher,
            template_index,
            concrete,
            templated,
        }
    }

    /// The declared template `uri` names: its RFC 6570 form or the template as written.
    pub(crate) fn template(&self, uri: &str) -> Option<&ResourceEntry<S>> {
        self.template_index
            .get(uri)
            .map(|&i| &self.entries[i])
            .or_else(|| self.entries.iter().find(|r| r.def.template == uri))
    }

    pub(crate) fn completes(&self) -> bool {
        self.entries.iter().any(|r| !r.def.completions.is_empty())
    }
}

/// A resource or template added at run time, or merged in from another router.
pub(crate) struct AddedResource {
    pub(crate) info: Arc<TemplateInfo>,
    pub(crate) template: Template,
    /// Its `resources/list` item (a concrete URI) or `resources/templates/list` item.
    pub(crate) json: Box<RawValue>,
    /// Completion functions, by URI parameter.
    pub(crate) completions: Vec<(String, Completer)>,
    pub(crate) has_ui: bool,
    pub(crate) read: Reader,
    /// Told of each URI of it a client subscribes to (a gateway subscribes upstream).
    pub(crate) watch: Option<Watch>,
}

/// Hears that a client subscribed to a URI.
pub(crate) type Watch = Arc<dyn Fn(&str) + Send + Sync>;

impl AddedResource {
    pub(crate) fn is_concrete(&self) -> bool {
        self.template.is_concrete()
    }
}

/// What runtime registration changed, swapped in whole.
#[derive(Default, Clone)]
pub(crate) struct Added {
    pub(crate) entries: Vec<Arc<AddedResource>>,
    /// Matches URIs against the entries' templates (rebuilt with every change).
    matcher: Arc<Matcher>,
    /// Names (declared or added) that are disabled: unlisted and unreachable.
    pub(crate) disabled: HashSet<String>,
    /// First pages of `resources/templates/list` and `resources/list` (no cursor, no
    /// allow-list), once something changed.
    pub(crate) first_pages: [Option<String>; 2],
}

impl Added {
    pub(crate) fn changes(&self) -> bool {
        !self.entries.is_empty() || !self.disabled.is_empty()
    }

    /// Rebuilds the matcher after the entries changed.
    pub(crate) fn rematch(&mut self) {
        let mut matcher = Matcher::default();
        for (i, r) in self.entries.iter().enumerate() {
            matcher.insert(&r.template, i);
        }
        self.matcher = Arc::new(matcher);
    }

    /// The added resource matching `uri`, with its decoded parameters (disabled ones skipped).
    fn find<'u>(&self, uri: &'u str) -> Option<(&Arc<AddedResource>, Vec<Cow<'u, str>>)> {
        let found = self.matcher.find(uri)?;
        let resource = &self.entries[found.index];
        Some((resource, found.params)).filter(|_| !self.disabled.contains(&resource.info.name))
    }
}

/// The resources of one served instance.
pub(crate) type Table<S> = crate::session::Table<Declared<S>, Added>;

/// What a URI matched in the table, with its parameters.
pub(crate) enum Matched<'u, S: 'static> {
    Declared(&'static ResourceEntry<S>, Vec<Cow<'u, str>>),
    Added(Arc<AddedResource>, Vec<Cow<'u, str>>),
}

impl<S: 'static> Matched<'_, S> {
    /// The template matched.
    pub(crate) fn info(&self) -> &Arc<TemplateInfo> {
        match self {
            Self::Declared(entry, _) => &entry.info,
            Self::Added(resource, _) => &resource.info,
        }
    }
}

/// A template found in the table by its URI template (`ref/resource`).
pub(crate) enum Named<S: 'static> {
    Declared(&'static ResourceEntry<S>),
    Added(Arc<AddedResource>),
}

impl<S: 'static> Table<S> {
    /// What `uri` matches that the session may read: a declared template first, then an added
    /// one. `None`: no template matches, or the one that does is hidden or disabled.
    pub(crate) fn matched<'u>(&self, uri: &'u str, session: &Session) -> Option<Matched<'u, S>> {
        let allow = &session.allowed_resource_templates;
        if let Some(found) = self.declared.matcher.find(uri) {
            let entry = &self.declared.entries[found.index];
            let added = self.added.load();
            if !allowed(allow, &entry.info.name) || added.disabled.contains(&entry.info.name) {
                return None;
            }
            return Some(Matched::Declared(entry, found.params));
        }
        let added = self.added.load();
        let (resource, params) = added.find(uri)?;
        allowed(allow, &resource.info.name).then(|| Matched::Added(Arc::clone(resource), params))
    }

    /// Whether a declared template matches `uri` (hidden and disabled ones too).
    pub(crate) fn declares(&self, uri: &str) -> bool {
        self.declared.matcher.find(uri).is_some()
    }

    /// A URI resolved against the templates served (declared, then added), skipping disabled
    /// ones: `(uri, path params, template)`.
    pub(crate) fn resolve(&self, uri: &str) -> Option<ResolvedResource> {
        let added = self.added.load();
        if let Some(found) = self.declared.matcher.find(uri) {
            let info = &self.declared.entries[found.index].info;
            if added.disabled.contains(&info.name) {
                return None;
            }
            return Some(resolved(uri, info, found.params));
        }
        let (resource, params) = added.find(uri)?;
        Some(resolved(uri, &resource.info, params))
    }

    /// Tells the added resource `uri` is one of that a client subscribed to it.
    pub(crate) fn watch(&self, uri: &str) {
        if self.declared.matcher.find(uri).is_some() {
            return;
        }
        let added = self.added.load();
        if let Some((resource, _)) = added.find(uri)
            && let Some(watch) = &resource.watch
        {
            watch(uri);
        }
    }

    /// The template `uri` names (`ref/resource`), if the session may see it.
    pub(crate) fn named(&self, uri: &str, session: &Session) -> Option<Named<S>> {
        let allow = &session.allowed_resource_templates;
        let added = self.added.load();
        if let Some(entry) = self.declared.template(uri) {
            let name = entry.def.name;
            return (allowed(allow, name) && !added.disabled.contains(name))
                .then_some(Named::Declared(entry));
        }
        added
            .entries
            .iter()
            .find(|r| r.info.uri_template == uri || r.info.template == uri)
            .filter(|r| allowed(allow, &r.info.name) && !added.disabled.contains(&r.info.name))
            .map(|r| Named::Added(Arc::clone(r)))
    }

    /// Whether a resource or template (declared or added) has scopes: its lists then differ by
    /// token.
    pub(crate) fn scoped(&self) -> bool {
        let scoped = |info: &TemplateInfo| !info.scopes.is_empty();
        self.declared.entries.iter().any(|r| scoped(&r.info))
            || self.added.load().entries.iter().any(|r| scoped(&r.info))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.declared.entries.is_empty() && self.added.load().entries.is_empty()
    }

    /// Whether any template (declared or added) has a completion function.
    pub(crate) fn completes(&self) -> bool {
        self.declared.completes()
            || self
                .added
                .load()
                .entries
                .iter()
                .any(|r| !r.completions.is_empty())
    }

    /// Whether any resource has an MCP Apps view.
    pub(crate) fn any_ui(&self) -> bool {
        self.declared.entries.iter().any(|r| r.def.ui.is_some())
            || self.added.load().entries.iter().any(|r| r.has_ui)
    }

    /// The items of `resources/list` (`concrete`) or `resources/templates/list`, in order
    /// (declared, then added), without the disabled ones and those whose scopes the session's
    /// token does not grant.
    pub(crate) fn items<'a>(
        &'a self,
        added: &'a Added,
        concrete: bool,
        session: &Session,
    ) -> Vec<(&'a str, &'a RawValue)> {
        let d = self.declared;
        let positions = if concrete { &d.concrete } else { &d.templated };
        let declared = positions
            .iter()
            .map(|&i| &d.entries[i])
            .filter(|e| grants(session, &e.info.scopes))
            .map(|e| (e.def.name, &*e.json));
        let extra = added
            .entries
            .iter()
            .filter(|r| r.is_concrete() == concrete && grants(session, &r.info.scopes))
            .map(|r| (r.info.name.as_str(), &*r.json));
        declared
            .chain(extra)
            .filter(|(name, _)| !added.disabled.contains(*name))
            .collect()
    }
}

/// A URI resolved against one template, with the parameters it matched (in template order).
pub(crate) fn resolved(
    uri: &str,
    info: &Arc<TemplateInfo>,
    values: Vec<Cow<'_, str>>,
) -> ResolvedResource {
    let params = info
        .params
        .iter()
        .zip(values)
        .map(|(name, value)| (name.clone(), Value::String(value.into_owned())))
        .collect();
    ResolvedResource {
        uri: uri.to_owned(),
        params,
        template: Arc::clone(info),
    }
}

impl<S> Named<S> {
    fn info(&self) -> &Arc<TemplateInfo> {
        match self {
            Self::Declared(entry) => &entry.info,
            Self::Added(added) => &added.info,
        }
    }
}

impl<S> Completable<S> for Named<S> {
    fn has_argument(&self, name: &str) -> bool {
        self.info().params.iter().any(|p| p == name)
    }

    fn check_scopes(&self, session: &Session) -> Result<(), Failure> {
        let info = self.info();
        check_scopes(session, &info.scopes, || {
            format!("resource `{}`", info.name)
        })
    }

    fn completions(&self) -> Completions<'_, S> {
        match self {
            Self::Declared(entry) => Completions::Declared(&entry.def.completions),
            Self::Added(added) => Completions::Added(&added.completions),
        }
    }
}
