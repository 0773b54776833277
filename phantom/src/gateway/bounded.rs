//! [`Bounded`]: what the gateway remembers per front session or per task, within a bound.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// A map that keeps its `cap` most recently inserted keys.
pub(super) struct Bounded<V> {
    map: HashMap<Arc<str>, V>,
    order: VecDeque<Arc<str>>,
    cap: usize,
}

impl<V> Bounded<V> {
    pub(super) fn new(cap: usize) -> Self {
        Self {
            map: HashMap::new(),
            order: VecDeque::new(),
            cap,
        }
    }

    pub(super) fn get(&self, key: &str) -> Option<&V> {
        self.map.get(key)
    }

    /// Inserts; the value of the oldest key when it had to go.
    pub(super) fn insert(&mut self, key: &str, value: V) -> Option<V> {
        let key: Arc<str> = key.into();
        let gone = if self.map.len() >= self.cap && !self.map.contains_key(&key) {
            self.order
                .pop_front()
                .and_then(|oldest| self.map.remove(&oldest))
        } else {
            None
        };
        if self.map.insert(Arc::clone(&key), value).is_none() {
            self.order.push_back(key);
        }
        gone
    }
}
