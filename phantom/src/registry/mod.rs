//! Runtime registration and composition: tools, prompts and resources added, removed, disabled
//! and enabled while a server runs, and other `#[mcp_router]` impls merged or mounted into it,
//! for one served instance (a [`Dispatcher`]) on top of what its own impl declares.
//!
//! The changes live in an overlay that readers load without locking (`arc-swap`): a change
//! builds a new overlay (its URI matcher and the first page of each list built once) and swaps
//! it in, so a request sees the tables before or after a change, never half of one. Every change
//! made through a [`Registry`] announces the list's `list_changed` through the server's
//! [`Notifier`](crate::Notifier). Names and URI templates are checked as the macros check
//! declared ones: a bad name, a taken name or a colliding template is an [`Err`], not a panic.

mod dynamic;
mod mount;
mod overlay;

use std::sync::Arc;

pub use dynamic::{DynamicPrompt, DynamicResource, DynamicSkill, DynamicTool};
use overlay::{Added, AddedResource};
pub(crate) use overlay::{Overlay, Overlays};

use crate::dispatch::Dispatcher;
use crate::resources::uri::Template;
use crate::server::Server;
use crate::store::Change;
use crate::store::StoreError;

/// What a registration names: a tool, a prompt or a resource (template).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryKind {
    /// A tool (`tools/list`, `tools/call`).
    Tool = 0,
    /// A prompt (`prompts/list`, `prompts/get`).
    Prompt = 1,
    /// A resource or resource template (`resources/list`, `resources/templates/list`,
    /// `resources/read`), by its name.
    Resource = 2,
}

impl EntryKind {
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::Resource => "resource",
        }
    }

    pub(crate) fn what(self) -> &'static str {
        match self {
            Self::Tool => "tool handler",
            Self::Prompt => "prompt handler",
            Self::Resource => "resource handler",
        }
    }

    fn change(self, names: Vec<String>) -> Change {
        match self {
            Self::Tool => Change::ToolsChanged { names },
            Self::Prompt => Change::PromptsChanged { names },
            Self::Resource => Change::ResourcesChanged { names },
        }
    }
}

impl std::fmt::Display for EntryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.noun())
    }
}

/// Why a registration or a composition was refused. Nothing changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The name breaks MCP's name rules.
    #[error("invalid {kind} name `{name}`: {}", name_rule(*kind))]
    InvalidName {
        /// What was named.
        kind: EntryKind,
        /// The name.
        name: String,
    },
    /// A tool, prompt or resource of that name exists already (declared or added).
    #[error("a {kind} named `{name}` exists already; remove it first, or choose another name")]
    Duplicate {
        /// What was named.
        kind: EntryKind,
        /// The name.
        name: String,
    },
    /// Nothing of that name exists (or, for [`Registry::enable`], it is not disabled).
    #[error("no {kind} named `{name}`{hint}")]
    Unknown {
        /// What was named.
        kind: EntryKind,
        /// The name.
        name: String,
        /// Why, when it is not simply absent.
        hint: &'static str,
    },
    /// The URI template does not parse.
    #[error("invalid URI template `{template}`: {message}")]
    InvalidTemplate {
        /// The template as given.
        template: String,
        /// What is wrong and what to write instead.
        message: String,
    },
    /// The URI template matches the same URIs as one served already.
    #[error(
        "URI template `{template}` collides with `{other}` (resource `{name}`): both match the same URIs; change a literal segment"
    )]
    Collision {
        /// The template added.
        template: String,
        /// The template served already.
        other: String,
        /// The resource serving `other`.
        name: String,
    },
    /// The change was made, but announcing it failed.
    #[error("the change was made but could not be announced: {0}")]
    Announce(#[from] StoreError),
}

/// Adds, removes, disables and enables tools, prompts and resources of one served instance while
/// it runs. Cheap to clone; get one with [`Dispatcher::registry`].
///
/// Declared entries (those of the `#[mcp_router]` impl) can be disabled and enabled, not removed.
/// A disabled entry is unlisted and answers as an unknown one. Each change sends the list's
/// `list_changed` notification to the sessions and listens that follow it.
pub struct Registry<S: 'static> {
    dispatcher: Dispatcher<S>,
}

impl<S: 'static> Clone for Registry<S> {
    fn clone(&self) -> Self {
        Self {
            dispatcher: self.dispatcher.clone(),
        }
    }
}

impl<S: 'static> std::fmt::Debug for Registry<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").finish_non_exhaustive()
    }
}

impl<S: Server> Dispatcher<S> {
    /// Runtime registration for this served instance.
    pub fn registry(&self) -> Registry<S> {
        Registry {
            dispatcher: self.clone(),
        }
    }

    /// Applies `change` to a copy of the overlay and swaps it in (nothing changes on `Err`).
    pub(crate) fn change_overlay(
        &self,
        mut change: impl FnMut(&mut Overlay) -> Result<(), RegistryError>,
    ) -> Result<(), RegistryError> {
        let inner = &self.inner;
        let mut result = Ok(());
        inner.overlay.rcu(|current| {
            let mut next = Overlay::clone(current);
            result = change(&mut next);
            if result.is_err() {
                return Arc::clone(current);
            }
            next.rebuild(inner.router, &inner.config);
            Arc::new(next)
        });
        result
    }

    /// Whether the impl itself declares `name`.
    fn declares(&self, kind: EntryKind, name: &str) -> bool {
        let router = self.inner.router;
        match kind {
            EntryKind::Tool => router.tool_index.contains_key(name),
            EntryKind::Prompt => router.prompt_index.contains_key(name),
            EntryKind::Resource => router.resources.iter().any(|r| r.info.name == name),
        }
    }

    /// Checks that an entry may join `overlay`: a valid, free name (and for a resource, a
    /// template no served one collides with).
    fn admit(&self, overlay: &Overlay, kind: EntryKind, name: &str) -> Result<(), RegistryError> {
        if !valid_name(kind, name) {
            return Err(RegistryError::InvalidName {
                kind,
                name: name.to_owned(),
            });
        }
        if self.declares(kind, name) || overlay.has(kind, name) {
            return Err(RegistryError::Duplicate {
                kind,
                name: name.to_owned(),
            });
        }
        Ok(())
    }

    fn admit_template(
        &self,
        overlay: &Overlay,
        added: &AddedResource,
    ) -> Result<(), RegistryError> {
        let declared = self.inner.router.resources.iter().map(|r| &r.info);
        let others = overlay.resources.iter().map(|r| &r.info);
        for info in declared.chain(others) {
            let Ok(other) = Template::parse(&info.template) else {
                continue;
            };
            if added.template.collides_with(&other) {
                return Err(RegistryError::Collision {
                    template: added.info.template.clone(),
                    other: info.template.clone(),
                    name: info.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// Adds entries to `overlay`, all or none.
    fn add_all(
        &self,
        overlay: &mut Overlay,
        tools: &[Added],
        prompts: &[Added],
        resources: &[AddedResource],
    ) -> Result<(), RegistryError> {
        for tool in tools {
            self.admit(overlay, EntryKind::Tool, &tool.name)?;
            overlay.tools.push(tool.clone());
        }
        for prompt in prompts {
            self.admit(overlay, EntryKind::Prompt, &prompt.name)?;
            overlay.prompts.push(prompt.clone());
        }
        for resource in resources {
            self.admit(overlay, EntryKind::Resource, &resource.info.name)?;
            self.admit_template(overlay, resource)?;
            overlay.resources.push(resource.clone());
        }
        Ok(())
    }
}

impl<S: Server> Registry<S> {
    async fn announce(&self, kind: EntryKind, name: &str) -> Result<(), RegistryError> {
        let change = kind.change(vec![name.to_owned()]);
        self.dispatcher.notifier().publish(change).await?;
        Ok(())
    }

    async fn add(
        &self,
        kind: EntryKind,
        name: &str,
        tools: &[Added],
        prompts: &[Added],
        resources: &[AddedResource],
    ) -> Result<(), RegistryError> {
        let d = &self.dispatcher;
        d.change_overlay(|overlay| d.add_all(overlay, tools, prompts, resources))?;
        self.announce(kind, name).await
    }

    /// Adds a tool. Its name must be valid and free (neither declared nor added).
    pub async fn add_tool(&self, tool: DynamicTool) -> Result<(), RegistryError> {
        let added = tool.into_added();
        self.add(EntryKind::Tool, &added.name.clone(), &[added], &[], &[])
            .await
    }

    /// Adds a prompt. Its name must be valid and free.
    pub async fn add_prompt(&self, prompt: DynamicPrompt) -> Result<(), RegistryError> {
        let added = prompt.into_added();
        self.add(EntryKind::Prompt, &added.name.clone(), &[], &[added], &[])
            .await
    }

    /// Adds a resource or resource template. Its name must be valid and free, and its template
    /// must not match the same URIs as one served already.
    pub async fn add_resource(&self, resource: DynamicResource) -> Result<(), RegistryError> {
        let added = resource.into_added()?;
        let name = added.info.name.clone();
        self.add(EntryKind::Resource, &name, &[], &[], &[added])
            .await
    }

    /// Adds a skill (see [`DynamicSkill`]): its URI must not collide with a served skill. Its
    /// files are resources, so the change is announced as a resource list change (the Skills
    /// extension defines no skills `list_changed`).
    pub async fn add_skill(&self, skill: DynamicSkill) -> Result<(), RegistryError> {
        let added = skill.into_added()?;
        let d = &self.dispatcher;
        d.change_overlay(|overlay| {
            let declared = d
                .inner
                .router
                .skills
                .iter()
                .map(|s| s.def.template.to_owned());
            let others = overlay.skills.iter().map(|s| s.uri.clone());
            for other in declared.chain(others) {
                let collides = Template::parse(&other)
                    .is_ok_and(|t| t == added.template || t.collides_with(&added.template));
                if collides {
                    return Err(RegistryError::Collision {
                        template: added.uri.clone(),
                        other,
                        name: added.name.clone(),
                    });
                }
            }
            overlay.skills.push(added.clone());
            Ok(())
        })?;
        self.announce(EntryKind::Resource, &added.name).await
    }

    /// Removes a skill added at run time, by its URI as given to [`DynamicSkill::new`].
    pub async fn remove_skill(&self, uri: &str) -> Result<(), RegistryError> {
        let mut name = String::new();
        self.dispatcher.change_overlay(|overlay| {
            let Some(at) = overlay.skills.iter().position(|s| s.uri == uri) else {
                return Err(RegistryError::Unknown {
                    kind: EntryKind::Resource,
                    name: uri.to_owned(),
                    hint: " (no skill added at run time has that URI)",
                });
            };
            name = overlay.skills.remove(at).name;
            Ok(())
        })?;
        self.announce(EntryKind::Resource, &name).await
    }

    /// Removes an entry added at run time (declared ones can be disabled, not removed).
    pub async fn remove(&self, kind: EntryKind, name: &str) -> Result<(), RegistryError> {
        self.dispatcher.change_overlay(|overlay| {
            let found = match kind {
                EntryKind::Tool => take(&mut overlay.tools, |a| a.name == name),
                EntryKind::Prompt => take(&mut overlay.prompts, |a| a.name == name),
                EntryKind::Resource => take(&mut overlay.resources, |r| r.info.name == name),
            };
            if !found {
                let declared = self.dispatcher.declares(kind, name);
                return Err(RegistryError::Unknown {
                    kind,
                    name: name.to_owned(),
                    hint: if declared {
                        " added at run time: a declared one can be disabled, not removed"
                    } else {
                        ""
                    },
                });
            }
            overlay.disabled[kind as usize].remove(name);
            Ok(())
        })?;
        self.announce(kind, name).await
    }

    /// Disables an entry (declared or added): unlisted and unreachable until enabled.
    pub async fn disable(&self, kind: EntryKind, name: &str) -> Result<(), RegistryError> {
        let declared = self.dispatcher.declares(kind, name);
        self.dispatcher.change_overlay(|overlay| {
            if !declared && !overlay.has(kind, name) {
                return Err(RegistryError::Unknown {
                    kind,
                    name: name.to_owned(),
                    hint: "",
                });
            }
            overlay.disabled[kind as usize].insert(name.to_owned());
            Ok(())
        })?;
        self.announce(kind, name).await
    }

    /// Enables a disabled entry again.
    pub async fn enable(&self, kind: EntryKind, name: &str) -> Result<(), RegistryError> {
        self.dispatcher.change_overlay(|overlay| {
            if overlay.disabled[kind as usize].remove(name) {
                Ok(())
            } else {
                Err(RegistryError::Unknown {
                    kind,
                    name: name.to_owned(),
                    hint: " disabled",
                })
            }
        })?;
        self.announce(kind, name).await
    }

    /// Removes a tool added at run time: [`remove`](Self::remove) with [`EntryKind::Tool`].
    pub async fn remove_tool(&self, name: &str) -> Result<(), RegistryError> {
        self.remove(EntryKind::Tool, name).await
    }

    /// Disables a tool: [`disable`](Self::disable) with [`EntryKind::Tool`].
    pub async fn disable_tool(&self, name: &str) -> Result<(), RegistryError> {
        self.disable(EntryKind::Tool, name).await
    }

    /// Enables a tool: [`enable`](Self::enable) with [`EntryKind::Tool`].
    pub async fn enable_tool(&self, name: &str) -> Result<(), RegistryError> {
        self.enable(EntryKind::Tool, name).await
    }
}

fn name_rule(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Tool => "tool names are 1 to 128 characters of `A-Z a-z 0-9 _ . -`",
        EntryKind::Prompt | EntryKind::Resource => {
            "names are 1 to 128 characters, none a control character"
        }
    }
}

/// Removes the entries matching `pred`; whether there was one.
fn take<T>(entries: &mut Vec<T>, pred: impl Fn(&T) -> bool) -> bool {
    let before = entries.len();
    entries.retain(|e| !pred(e));
    entries.len() != before
}

/// MCP's tool-name rule, 1 to 128 characters of `A-Z a-z 0-9 _ . -` (the macros check declared
/// names at compile time; added ones here); prompt and resource names need only be 1 to 128
/// characters without control characters.
fn valid_name(kind: EntryKind, name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.chars().all(|c| match kind {
            EntryKind::Tool => c.is_ascii_alphanumeric() || "_.-".contains(c),
            EntryKind::Prompt | EntryKind::Resource => !c.is_control(),
        })
}
