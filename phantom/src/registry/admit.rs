//! What a change admits: names that are valid and free, URI templates that collide with none
//! served, and the staged entries a change adds.

use std::sync::Arc;

use super::{EntryKind, RegistryError, Staged, Tables, valid_name};
use crate::prompts::AddedPrompt;
use crate::resources::AddedResource;
use crate::resources::uri::Template;
use crate::tools::AddedTool;

impl<S: 'static> Tables<S> {
    /// Whether the impl itself declares `name`.
    pub(super) fn declares(&self, kind: EntryKind, name: &str) -> bool {
        match kind {
            EntryKind::Tool => self.tools.declared.get(name).is_some(),
            EntryKind::Prompt => self.prompts.declared.get(name).is_some(),
            EntryKind::Resource => self
                .resources
                .declared
                .entries
                .iter()
                .any(|r| r.info.name == name),
        }
    }

    /// Checks that an entry may join `staged`: a valid, free name.
    pub(super) fn admit(
        &self,
        staged: &Staged,
        kind: EntryKind,
        name: &str,
    ) -> Result<(), RegistryError> {
        if !valid_name(kind, name) {
            return Err(RegistryError::InvalidName {
                kind,
                name: name.to_owned(),
            });
        }
        if self.declares(kind, name) || staged.has(kind, name) {
            return Err(RegistryError::Duplicate {
                kind,
                name: name.to_owned(),
            });
        }
        Ok(())
    }

    /// Checks that no template served collides with an added resource's.
    pub(super) fn admit_template(
        &self,
        staged: &Staged,
        added: &AddedResource,
    ) -> Result<(), RegistryError> {
        let declared = self.resources.declared.entries.iter().map(|r| &r.info);
        let others = staged.resources.entries.iter().map(|r| &r.info);
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

    /// Adds entries to the tables, all or none.
    pub(crate) fn add_all(
        &self,
        tools: &[Arc<AddedTool>],
        prompts: &[Arc<AddedPrompt>],
        resources: &[Arc<AddedResource>],
    ) -> Result<(), RegistryError> {
        self.change(|staged| self.stage(staged, tools, prompts, resources))
    }

    /// Adds entries to what is staged, each admitted first.
    pub(crate) fn stage(
        &self,
        staged: &mut Staged,
        tools: &[Arc<AddedTool>],
        prompts: &[Arc<AddedPrompt>],
        resources: &[Arc<AddedResource>],
    ) -> Result<(), RegistryError> {
        for tool in tools {
            self.admit(staged, EntryKind::Tool, &tool.name)?;
            staged.tools.entries.push(Arc::clone(tool));
        }
        for prompt in prompts {
            self.admit(staged, EntryKind::Prompt, &prompt.name)?;
            staged.prompts.entries.push(Arc::clone(prompt));
        }
        for resource in resources {
            self.admit(staged, EntryKind::Resource, &resource.info.name)?;
            self.admit_template(staged, resource)?;
            staged.resources.entries.push(Arc::clone(resource));
        }
        Ok(())
    }
}

impl Staged {
    /// Whether `name` is taken by an added entry of `kind`.
    pub(super) fn has(&self, kind: EntryKind, name: &str) -> bool {
        match kind {
            EntryKind::Tool => self.tools.get(name).is_some(),
            EntryKind::Prompt => self.prompts.get(name).is_some(),
            EntryKind::Resource => self.resources.entries.iter().any(|r| r.info.name == name),
        }
    }

    /// The disabled names of `kind`.
    pub(super) fn disabled(&mut self, kind: EntryKind) -> &mut std::collections::HashSet<String> {
        match kind {
            EntryKind::Tool => &mut self.tools.disabled,
            EntryKind::Prompt => &mut self.prompts.disabled,
            EntryKind::Resource => &mut self.resources.disabled,
        }
    }
}
