//! Composition: the tools, prompts and resources of other `#[mcp_router]` impls served by one
//! dispatcher, each with its own state, under their names or under a prefix. Each becomes an
//! added entry of its room's table carrying what the declared entry carries — scopes,
//! `Mcp-Param-*` headers, completions, its view — so it is served as it would be on its own.

use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::{EntryKind, Registry, RegistryError};
use crate::completion::{CompleteFn, Completer};
use crate::extract::{Context, Handler};
use crate::kernel::{Body, BoxFuture, Failure};
use crate::prompts::{AddedPrompt, run_prompt};
use crate::protocol::descriptor::raw;
use crate::resources::uri::Template;
use crate::resources::{AddedResource, Reader, TemplateInfo, run_read};
use crate::server::Server;
use crate::skills::SkillRelay;
use crate::tools::{AddedTool, run_tool};

/// The entries of another router, renamed `<prefix>_<name>` when there is a prefix.
pub(crate) struct Parts {
    tools: Vec<Arc<AddedTool>>,
    prompts: Vec<Arc<AddedPrompt>>,
    resources: Vec<Arc<AddedResource>>,
    /// Another server's skills, relayed (a gateway's upstream).
    skills: Option<Arc<dyn SkillRelay>>,
}

impl Parts {
    /// Entries made elsewhere (a gateway's remote ones).
    #[cfg(feature = "client")]
    pub(crate) fn new(
        tools: Vec<Arc<AddedTool>>,
        prompts: Vec<Arc<AddedPrompt>>,
        resources: Vec<Arc<AddedResource>>,
    ) -> Self {
        Self {
            tools,
            prompts,
            resources,
            skills: None,
        }
    }

    /// With another server's skills relayed.
    #[cfg(feature = "client")]
    pub(crate) fn with_skills(mut self, relay: Option<Arc<dyn SkillRelay>>) -> Self {
        self.skills = relay;
        self
    }

    /// Whether it has entries of `kind`.
    #[cfg(feature = "client")]
    pub(crate) fn has(&self, kind: EntryKind) -> bool {
        match kind {
            EntryKind::Tool => !self.tools.is_empty(),
            EntryKind::Prompt => !self.prompts.is_empty(),
            EntryKind::Resource => !self.resources.is_empty(),
        }
    }

    /// Takes `old`'s entries out of `registry`'s tables and puts these in, in one change (all
    /// or none; nothing is announced).
    pub(crate) fn replace<S>(
        &self,
        old: &Self,
        registry: &Registry<S>,
    ) -> Result<(), RegistryError> {
        registry.tables.change(|staged| {
            let tools: Vec<&str> = old.tools.iter().map(|o| o.name.as_str()).collect();
            let prompts: Vec<&str> = old.prompts.iter().map(|o| o.name.as_str()).collect();
            let resources: Vec<&str> = old.resources.iter().map(|o| o.info.name.as_str()).collect();
            staged
                .tools
                .entries
                .retain(|t| !tools.contains(&t.name.as_str()));
            staged
                .prompts
                .entries
                .retain(|p| !prompts.contains(&p.name.as_str()));
            staged
                .resources
                .entries
                .retain(|r| !resources.contains(&r.info.name.as_str()));
            if let Some(old) = &old.skills {
                staged.skills.relays.retain(|r| !Arc::ptr_eq(r, old));
            }
            if let Some(relay) = &self.skills {
                staged.skills.relays.push(Arc::clone(relay));
            }
            registry
                .tables
                .stage(staged, &self.tools, &self.prompts, &self.resources)
        })
    }

    /// `other`'s entries, under `prefix` when there is one.
    pub(crate) fn of<T: Server>(prefix: Option<&str>, other: T) -> Result<Self, RegistryError> {
        parts(prefix, other)
    }

    /// Adds them to `registry`'s tables, all or none (nothing is announced).
    pub(crate) fn compose<S>(&self, registry: &Registry<S>) -> Result<(), RegistryError> {
        let none = Self {
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            skills: None,
        };
        self.replace(&none, registry)
    }
}

/// A list item with its `name` replaced.
fn renamed(json: &RawValue, name: &str) -> Box<RawValue> {
    let mut item: Value = serde_json::from_str(json.get()).unwrap_or_default();
    item["name"] = name.into();
    raw(&item)
}

/// `T`'s completion functions, each calling into `server`.
fn completers<T: Server>(
    server: &Arc<T>,
    completions: &[(&'static str, CompleteFn<T>)],
) -> Vec<(String, Completer)> {
    completions
        .iter()
        .map(|&(arg, f)| {
            let server = Arc::clone(server);
            let completer: Completer = Arc::new(move |value, cx| {
                let server = Arc::clone(&server);
                Box::pin(async move { f(&server, value, cx).await })
            });
            (arg.to_owned(), completer)
        })
        .collect()
}

fn parts<T: Server>(prefix: Option<&str>, other: T) -> Result<Parts, RegistryError> {
    let name_of = |name: &str| match prefix {
        Some(p) => format!("{p}_{name}"),
        None => name.to_owned(),
    };
    let server = Arc::new(other);
    let router = T::__router();
    let tools = router.tools.entries.iter().enumerate().map(|(i, entry)| {
        let name = name_of(entry.def.name);
        Arc::new(AddedTool {
            json: renamed(&entry.json, &name),
            name,
            scopes: entry.def.scopes.iter().map(|s| (*s).to_owned()).collect(),
            headers: entry
                .specs
                .iter()
                .filter_map(|s| s.header.map(|h| (s.name.into(), h.into())))
                .collect(),
            has_ui: entry.def.ui.is_some(),
            handler: handler(&server, i, tool_at::<T>),
            tasks: None,
        })
    });
    let prompts = router.prompts.entries.iter().enumerate().map(|(i, entry)| {
        let name = name_of(entry.def.name);
        Arc::new(AddedPrompt {
            json: renamed(&entry.json, &name),
            name,
            arguments: entry.specs.iter().map(|s| s.name.to_owned()).collect(),
            completions: completers(&server, &entry.def.completions),
            scopes: entry.def.scopes.iter().map(|s| (*s).to_owned()).collect(),
            handler: handler(&server, i, prompt_at::<T>),
        })
    });
    let mut resources = Vec::with_capacity(router.resources.entries.len());
    for (i, entry) in router.resources.entries.iter().enumerate() {
        let reader = Arc::clone(&server);
        let read: Reader = Arc::new(move |uri, params, cx| {
            let server = Arc::clone(&reader);
            Box::pin(async move {
                let entry = &T::__router().resources.entries[i];
                run_read(&*server, entry, uri, params, cx).await
            })
        });
        let template =
            Template::parse(&entry.info.template).map_err(|e| RegistryError::InvalidTemplate {
                template: entry.info.template.clone(),
                message: e.message(),
            })?;
        let name = name_of(&entry.info.name);
        resources.push(Arc::new(AddedResource {
            json: renamed(&entry.json, &name),
            info: Arc::new(TemplateInfo {
                name,
                ..TemplateInfo::clone(&entry.info)
            }),
            template,
            completions: completers(&server, &entry.def.completions),
            has_ui: entry.def.ui.is_some(),
            read,
            watch: None,
        }));
    }
    Ok(Parts {
        tools: tools.collect(),
        prompts: prompts.collect(),
        resources,
        skills: None,
    })
}

/// Runs the `i`-th entry of `T`'s router.
type RunAt<T> = for<'a> fn(
    &'a T,
    usize,
    Option<&'a RawValue>,
    Context<'a>,
) -> BoxFuture<'a, Result<Body, Failure>>;

fn tool_at<'a, T: Server>(
    server: &'a T,
    i: usize,
    arguments: Option<&'a RawValue>,
    cx: Context<'a>,
) -> BoxFuture<'a, Result<Body, Failure>> {
    let router = T::__router();
    let timeout = router.info.tool_timeout_ms;
    Box::pin(run_tool(
        server,
        &router.tools.entries[i],
        timeout,
        arguments,
        cx,
    ))
}

fn prompt_at<'a, T: Server>(
    server: &'a T,
    i: usize,
    arguments: Option<&'a RawValue>,
    cx: Context<'a>,
) -> BoxFuture<'a, Result<Body, Failure>> {
    Box::pin(run_prompt(
        server,
        &T::__router().prompts.entries[i],
        arguments,
        cx,
    ))
}

/// The `i`-th tool or prompt of `server`'s router as a handler.
fn handler<T: Server>(server: &Arc<T>, i: usize, run: RunAt<T>) -> Handler {
    let server = Arc::clone(server);
    Arc::new(move |arguments, cx| {
        let server = Arc::clone(&server);
        Box::pin(async move { run(&server, i, arguments, cx).await })
    })
}

impl<S: 'static> Registry<S> {
    /// Announces the lists of `kinds` changed, naming `name`.
    #[cfg(feature = "client")]
    pub(crate) async fn announce_kinds(
        &self,
        kinds: &[EntryKind],
        name: &str,
    ) -> Result<(), RegistryError> {
        for kind in kinds {
            self.announce(*kind, name).await?;
        }
        Ok(())
    }

    /// [`Dispatcher::mount`](crate::dispatch::Dispatcher::mount) while the server runs
    /// (`prefix: None` merges): the three lists' `list_changed` are announced.
    pub async fn mount<T: Server>(
        &self,
        prefix: Option<&str>,
        other: T,
    ) -> Result<(), RegistryError> {
        let parts = parts(prefix, other)?;
        parts.compose(self)?;
        for (kind, empty) in [
            (EntryKind::Tool, parts.tools.is_empty()),
            (EntryKind::Prompt, parts.prompts.is_empty()),
            (EntryKind::Resource, parts.resources.is_empty()),
        ] {
            if !empty {
                self.announce(kind, prefix.unwrap_or_default()).await?;
            }
        }
        Ok(())
    }
}
