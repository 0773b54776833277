//! [`Locked`]: a mutex that ignores poisoning, for the crate's own tables.
//!
//! Every critical section of the runtime leaves its table consistent at each step (an insert, a
//! remove, a counter bump), and user code never runs while a lock is held, so a panic elsewhere
//! that poisoned a lock leaves nothing half-written: the guard is taken either way.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks, ignoring poisoning (see the module documentation for why that is sound here).
pub(crate) trait Locked<T: ?Sized> {
    /// The guard, poisoned or not.
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T: ?Sized> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
