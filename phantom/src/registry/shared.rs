//! What runtime registration shares with other nodes: the entries disabled, through the
//! [`RegistryStore`] of [`Config::registry_store`](crate::Config).

use super::{EntryKind, Registry, RegistryError};
use crate::store::StoreError;

impl<S: 'static> Registry<S> {
    /// Records in the registry store (if there is one) that `name` is disabled or enabled.
    pub(super) async fn share(
        &self,
        kind: EntryKind,
        name: &str,
        disabled: bool,
    ) -> Result<(), RegistryError> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let entry = format!("{}:{name}", kind.noun());
        store
            .set_disabled(&entry, disabled)
            .await
            .map_err(RegistryError::Store)
    }

    /// Makes this node's disabled entries those of the registry store (nothing without one).
    pub(crate) async fn sync(&self) -> Result<(), StoreError> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let mut wanted: [std::collections::HashSet<String>; 3] = Default::default();
        for entry in store.disabled().await? {
            let Some((kind, name)) = entry.split_once(':') else {
                continue;
            };
            let at = match kind {
                "tool" => 0,
                "prompt" => 1,
                "resource" => 2,
                _ => continue,
            };
            wanted[at].insert(name.to_owned());
        }
        let tables = &self.tables;
        let current = [
            tables.tools.added.load().disabled.clone(),
            tables.prompts.added.load().disabled.clone(),
            tables.resources.added.load().disabled.clone(),
        ];
        if current == wanted {
            return Ok(());
        }
        let [tools, prompts, resources] = wanted;
        let applied = tables.change(|staged| {
            staged.tools.disabled = tools;
            staged.prompts.disabled = prompts;
            staged.resources.disabled = resources;
            Ok(())
        });
        debug_assert!(applied.is_ok(), "replacing the disabled sets cannot fail");
        Ok(())
    }

    /// Whether runtime registration added an entry `name` of `kind` on this node.
    pub(super) fn adds(&self, kind: EntryKind, name: &str) -> bool {
        let t = &self.tables;
        match kind {
            EntryKind::Tool => t.tools.added.load().get(name).is_some(),
            EntryKind::Prompt => t.prompts.added.load().get(name).is_some(),
            EntryKind::Resource => t
                .resources
                .added
                .load()
                .entries
                .iter()
                .any(|r| r.info.name == name),
        }
    }

    /// Whether `name` of `kind` is disabled on this node.
    pub(super) fn is_disabled(&self, kind: EntryKind, name: &str) -> bool {
        let t = &self.tables;
        match kind {
            EntryKind::Tool => t.tools.added.load().disabled.contains(name),
            EntryKind::Prompt => t.prompts.added.load().disabled.contains(name),
            EntryKind::Resource => t.resources.added.load().disabled.contains(name),
        }
    }
}
