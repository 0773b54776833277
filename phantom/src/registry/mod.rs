//! Runtime registration and composition: tools, prompts and resources added, removed, disabled
//! and enabled while a server runs, and other `#[mcp_router]` impls merged or mounted into it,
//! for one served instance (a [`Dispatcher`](crate::dispatch::Dispatcher)) on top of what its own
//! impl declares.
//!
//! Added entries are entries of the rooms' own tables, beside the declared ones, so each gets
//! what a declared one gets (allow-lists, scopes, completions, `Mcp-Param-*` checks). What was
//! added sits in an `arc-swap` per table that readers load without locking: a change stages a
//! copy of every table's part (URI matchers and the first page of each list built once) and swaps
//! them in, so a request sees a table before or after a change, never half of one. Every change
//! made through a [`Registry`] announces the list's `list_changed` through the server's
//! [`Notifier`]. Names and URI templates are checked as the macros check
//! declared ones: a bad name, a taken name or a colliding template is an [`Err`], not a panic.

mod admit;
mod dynamic;
mod mount;
mod shared;
mod skill;
mod tables;

use std::sync::Arc;

pub use dynamic::{DynamicPrompt, DynamicResource, DynamicTool};
pub(crate) use mount::Parts;
pub use skill::DynamicSkill;
pub(crate) use tables::{Staged, Tables};

use crate::Notifier;
use crate::prompts::AddedPrompt;
use crate::resources::AddedResource;
use crate::resources::uri::Template;
use crate::store::{Change, RegistryStore, StoreError};
use crate::tools::AddedTool;

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
    /// The registry store ([`Config::registry_store`](crate::Config)) could not be reached, so
    /// the change was not made on any node.
    #[error("the change was not made: the registry store could not be reached ({0})")]
    Store(StoreError),
}

/// Adds, removes, disables and enables tools, prompts and resources of one served instance while
/// it runs. Cheap to clone; get one with
/// [`Dispatcher::registry`](crate::dispatch::Dispatcher::registry).
///
/// Declared entries (those of the `#[mcp_router]` impl) can be disabled and enabled, not removed.
/// A disabled entry is unlisted and answers as an unknown one. Each change sends the list's
/// `list_changed` notification to the sessions and listens that follow it.
///
/// With a [registry store](crate::Config::registry_store), what is disabled is shared: a node
/// disables or enables in the store first (an unreachable store is
/// [`RegistryError::Store`], and nothing changes), and every node reloads the store's state when
/// it hears of a list change. Adding and removing stay per node: entries are code, so the app
/// registers them on every node.
pub struct Registry<S: 'static> {
    tables: Arc<Tables<S>>,
    notifier: Notifier,
    store: Option<Arc<dyn RegistryStore>>,
}

impl<S: 'static> Clone for Registry<S> {
    fn clone(&self) -> Self {
        Self {
            tables: Arc::clone(&self.tables),
            notifier: self.notifier.clone(),
            store: self.store.clone(),
        }
    }
}

impl<S: 'static> std::fmt::Debug for Registry<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").finish_non_exhaustive()
    }
}

impl<S: 'static> Registry<S> {
    /// The registry of an instance's tables; changes are announced through `notifier`, and
    /// what is disabled is shared through `store`.
    pub(crate) fn new(
        tables: Arc<Tables<S>>,
        notifier: Notifier,
        store: Option<Arc<dyn RegistryStore>>,
    ) -> Self {
        Self {
            tables,
            notifier,
            store,
        }
    }

    /// What announces this instance's changes.
    #[cfg(feature = "client")]
    pub(crate) fn notifier(&self) -> &Notifier {
        &self.notifier
    }

    async fn announce(&self, kind: EntryKind, name: &str) -> Result<(), RegistryError> {
        let change = kind.change(vec![name.to_owned()]);
        self.notifier.publish(change).await?;
        Ok(())
    }

    async fn add(
        &self,
        kind: EntryKind,
        name: &str,
        tools: &[Arc<AddedTool>],
        prompts: &[Arc<AddedPrompt>],
        resources: &[Arc<AddedResource>],
    ) -> Result<(), RegistryError> {
        self.tables.add_all(tools, prompts, resources)?;
        self.announce(kind, name).await
    }

    /// Adds a tool. Its name must be valid and free (neither declared nor added).
    pub async fn add_tool(&self, tool: DynamicTool) -> Result<(), RegistryError> {
        let added = Arc::new(tool.into_added());
        self.add(
            EntryKind::Tool,
            &added.name,
            &[Arc::clone(&added)],
            &[],
            &[],
        )
        .await
    }

    /// Adds a prompt. Its name must be valid and free.
    pub async fn add_prompt(&self, prompt: DynamicPrompt) -> Result<(), RegistryError> {
        let added = Arc::new(prompt.into_added());
        self.add(
            EntryKind::Prompt,
            &added.name,
            &[],
            &[Arc::clone(&added)],
            &[],
        )
        .await
    }

    /// Adds a resource or resource template. Its name must be valid and free, and its template
    /// must not match the same URIs as one served already.
    pub async fn add_resource(&self, resource: DynamicResource) -> Result<(), RegistryError> {
        let added = Arc::new(resource.into_added()?);
        let name = added.info.name.clone();
        self.add(EntryKind::Resource, &name, &[], &[], &[added])
            .await
    }

    /// Adds a skill (see [`DynamicSkill`]): its URI must not collide with a served skill. Its
    /// files are resources, so the change is announced as a resource list change (the Skills
    /// extension defines no skills `list_changed`).
    pub async fn add_skill(&self, skill: DynamicSkill) -> Result<(), RegistryError> {
        let added = skill.into_added()?;
        let tables = &self.tables;
        tables.change(|staged| {
            let declared = tables
                .skills
                .declared
                .entries
                .iter()
                .map(|s| s.def.template.to_owned());
            let others = staged.skills.entries.iter().map(|s| s.uri.clone());
            let declared: Vec<String> = declared.collect();
            for other in declared.into_iter().chain(others) {
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
            staged.skills.entries.push(added.clone());
            Ok(())
        })?;
        self.announce(EntryKind::Resource, &added.name).await
    }

    /// Removes a skill added at run time, by its URI as given to [`DynamicSkill::new`].
    pub async fn remove_skill(&self, uri: &str) -> Result<(), RegistryError> {
        let mut name = String::new();
        self.tables.change(|staged| {
            let Some(at) = staged.skills.entries.iter().position(|s| s.uri == uri) else {
                return Err(RegistryError::Unknown {
                    kind: EntryKind::Resource,
                    name: uri.to_owned(),
                    hint: " (no skill added at run time has that URI)",
                });
            };
            name = staged.skills.entries.remove(at).name;
            Ok(())
        })?;
        self.announce(EntryKind::Resource, &name).await
    }

    /// Removes an entry added at run time (declared ones can be disabled, not removed).
    pub async fn remove(&self, kind: EntryKind, name: &str) -> Result<(), RegistryError> {
        if self.adds(kind, name) && self.is_disabled(kind, name) {
            self.share(kind, name, false).await?;
        }
        self.tables.change(|staged| {
            let found = match kind {
                EntryKind::Tool => take(&mut staged.tools.entries, |a| a.name == name),
                EntryKind::Prompt => take(&mut staged.prompts.entries, |a| a.name == name),
                EntryKind::Resource => take(&mut staged.resources.entries, |r| r.info.name == name),
            };
            if !found {
                let declared = self.tables.declares(kind, name);
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
            staged.disabled(kind).remove(name);
            Ok(())
        })?;
        self.announce(kind, name).await
    }

    /// Disables an entry (declared or added): unlisted and unreachable until enabled.
    pub async fn disable(&self, kind: EntryKind, name: &str) -> Result<(), RegistryError> {
        let declared = self.tables.declares(kind, name);
        if !declared && !self.adds(kind, name) {
            return Err(RegistryError::Unknown {
                kind,
                name: name.to_owned(),
                hint: "",
            });
        }
        self.share(kind, name, true).await?;
        self.tables.change(|staged| {
            if !declared && !staged.has(kind, name) {
                return Err(RegistryError::Unknown {
                    kind,
                    name: name.to_owned(),
                    hint: "",
                });
            }
            staged.disabled(kind).insert(name.to_owned());
            Ok(())
        })?;
        self.announce(kind, name).await
    }

    /// Enables a disabled entry again.
    pub async fn enable(&self, kind: EntryKind, name: &str) -> Result<(), RegistryError> {
        if self.is_disabled(kind, name) {
            self.share(kind, name, false).await?;
        }
        self.tables.change(|staged| {
            if staged.disabled(kind).remove(name) {
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
