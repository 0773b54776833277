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
mod subscribe;

pub(crate) use hub::{Hub, Kind, Registration};
pub(crate) use listen::Honoured;
#[cfg(feature = "http")]
pub(crate) use listen::{Listening, Next};
