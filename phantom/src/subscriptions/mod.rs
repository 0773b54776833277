//! Subscriptions and change: the [`Notifier`] that announces a change, the streams that hear of
//! it (a legacy session's GET stream or stdio, a 2026-07-28 `subscriptions/listen`), legacy
//! `resources/subscribe` / `resources/unsubscribe`, and `authorize_resource_subscriptions`.
//!
//! A change goes from a [`Notifier`] onto the [`NotificationBus`]; each served router
//! subscribes to the bus once and fans every change out to the streams open on its node
//! (`hub.rs`), asking `authorize_resource_subscriptions` once per stream per batch of updated
//! resources.

mod hub;
mod listen;
mod note;
mod subscribe;

pub(crate) use hub::{
    Changes, Hub, Kind, Registration, authorize_resources, listen_for_changes, start_fan_out,
};
#[cfg(feature = "http")]
pub(crate) use listen::open_listen;
pub(crate) use listen::{FILTER_KEYS, Honoured, listen};
pub(crate) use subscribe::{subscribe, unsubscribe};

/// What the subscriptions room may use: the tasks room (listens follow tasks), the streams open
/// on this node, the subscription store, the URIs the resources table resolves, what the server
/// offers, and the app's `authorize_resource_subscriptions`. A weak handle lets the fan-out task
/// end once the served instance is gone.
pub(crate) trait Env: crate::tasks::Env {
    type Weak: Send + Sync + 'static;
    fn hub(&self) -> &Hub;
    fn subscription_store(&self) -> &std::sync::Arc<dyn crate::store::SubscriptionStore>;
    /// A URI resolved against the templates served.
    fn resolve(&self, uri: &str) -> Option<crate::resources::ResolvedResource>;
    /// Whether the server offers a capability.
    fn offers(&self, capability: crate::protocol::Capability) -> bool;
    /// How often a listen's stream gets a keep-alive.
    fn keep_alive(&self) -> std::time::Duration;
    /// The app's `authorize_resource_subscriptions`.
    fn authorize_resource_subscriptions<'a>(
        &'a self,
        offered: Vec<crate::resources::ResolvedResource>,
        session: &'a crate::session::Session,
    ) -> impl std::future::Future<Output = crate::resources::Authorized> + Send + 'a;
    /// Tells an added resource a client subscribed to `uri` of it.
    fn watch(&self, uri: &str);
    /// Stops a legacy request in flight on this node (a cancellation another node received):
    /// whether it was.
    fn cancel_in_flight(&self, session: &str, request_id: &str) -> bool;
    /// Brings this node's copy of shared registration state (the entries disabled on any node)
    /// up to date; run before a list change heard on the bus is delivered.
    fn resync(&self) -> impl std::future::Future<Output = ()> + Send;
    fn downgrade(&self) -> Self::Weak;
    fn upgrade(weak: &Self::Weak) -> Option<Self>;
}
#[cfg(feature = "http")]
pub(crate) use listen::{Listening, Next};

/// Refuses a subscription to a resource whose `scopes` the session's token does not grant (the
/// same 403 as a read of it).
fn check_resource_scopes(
    resolved: &crate::resources::ResolvedResource,
    session: &crate::session::Session,
) -> Result<(), crate::kernel::Failure> {
    let template = &resolved.template;
    crate::auth::check_scopes(session, &template.scopes, || {
        format!("resource `{}`", template.name)
    })
}
