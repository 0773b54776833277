//! [`RegistryStore`]: which tools, prompts and resources are disabled, shared by the nodes that
//! serve one app.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use super::StoreError;
use crate::kernel::{BoxFuture, Locked as _};

/// What is data in runtime registration: the entries disabled through
/// [`Registry::disable`](crate::registry::Registry::disable), so that every node behind a load
/// balancer hides the same ones. The entries themselves are code: the app registers them on
/// every node.
///
/// An entry is named `<kind>:<name>`, `kind` one of `tool`, `prompt`, `resource` (the name may
/// itself hold `:`). What a store holds is bounded by the entries the app defines.
pub trait RegistryStore: Send + Sync + 'static {
    /// Marks `entry` disabled (`true`) or enabled again (`false`); either is idempotent.
    fn set_disabled<'a>(
        &'a self,
        entry: &'a str,
        disabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Every entry disabled now, in any order.
    fn disabled(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>>;
}

/// The in-memory [`RegistryStore`]: one process (or the nodes of one test) sharing an `Arc`.
#[derive(Debug, Default)]
pub struct MemoryRegistryStore {
    disabled: Mutex<BTreeSet<String>>,
}

impl MemoryRegistryStore {
    /// An empty store: nothing disabled.
    pub fn new() -> Self {
        Self::default()
    }
}

impl RegistryStore for MemoryRegistryStore {
    fn set_disabled<'a>(
        &'a self,
        entry: &'a str,
        disabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut set = self.disabled.locked();
        if disabled {
            set.insert(entry.to_owned());
        } else {
            set.remove(entry);
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn disabled(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        let all = self.disabled.locked().iter().cloned().collect();
        Box::pin(std::future::ready(Ok(all)))
    }
}

impl<T: RegistryStore + ?Sized> RegistryStore for Arc<T> {
    fn set_disabled<'a>(
        &'a self,
        entry: &'a str,
        disabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).set_disabled(entry, disabled)
    }

    fn disabled(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        (**self).disabled()
    }
}
