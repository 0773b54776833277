//! Contract suites for the store seams: what every backend promises, checked the same way for the
//! in-memory stores, `phantom-redis`, and a third party's Postgres or NATS backend. One suite per
//! seam: [`session_store`], [`event_store`], [`reply_bus`], [`notification_bus`],
//! [`subscription_store`], [`task_store`], [`registry_store`], [`rate_store`], [`cache_store`],
//! [`keyring_store`], the authorization server's [`client_store`], [`grant_store`],
//! [`refresh_store`] and [`consent_store`], and with the `oauth` feature `token_store` and
//! `token_store_fault`.
//!
//! Each suite takes two handles onto one and the same backend (for the in-memory stores, clones
//! of one `Arc`; for a networked one, two connections), so that what one node writes is checked
//! through the other. A broken promise panics with a message that names it.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use std::sync::Arc;
//! use phantom::store::MemorySessionStore;
//!
//! let store = Arc::new(MemorySessionStore::new());
//! phantom::testing::contract::session_store(Arc::clone(&store), store).await;
//! # }
//! ```

mod authz;
mod bus;
mod events;
mod keyring;
mod middleware;
mod registry;
mod replies;
mod sessions;
mod tasks;
#[cfg(feature = "oauth")]
mod tokens;

pub use authz::{client_store, consent_store, grant_store, refresh_store};
pub use bus::{notification_bus, subscription_store};
pub use events::event_store;
pub use keyring::keyring_store;
pub use middleware::{cache_store, rate_store};
pub use registry::registry_store;
pub use replies::reply_bus;
pub use sessions::session_store;
pub use tasks::task_store;
#[cfg(feature = "oauth")]
pub use tokens::{token_store, token_store_fault};

/// A session id no other run of the suite uses.
fn fresh_id() -> String {
    format!("contract-{}", crate::kernel::random_id::<16>())
}
