//! The request kernel: what every room needs to answer a request, below all of them — a
//! [`Failure`] (an error reply in the making) and [`guarded`] (a panic becomes `-32603`), a result
//! [`Body`] and the [`Reply`] with its transport [`Status`], the [`Outbound`] path of messages sent
//! before a result, and the one boxed-future alias.

mod callback;
mod challenge;
#[cfg(any(feature = "client", feature = "tls", feature = "jwt"))]
mod connector;
#[cfg(any(feature = "oauth", feature = "authz"))]
pub(crate) mod es256;
mod failure;
#[cfg(feature = "jwt")]
mod fetch;
mod ids;
mod lock;
mod named;
mod outbound;
mod page;
mod reply;

use std::future::Future;
use std::pin::Pin;

pub use callback::Callback;
pub(crate) use callback::Overrides;
pub use challenge::WwwAuthenticate;
#[cfg(any(feature = "client", feature = "tls", feature = "jwt"))]
#[allow(
    unused_imports,
    reason = "each is used by some of `client`, `jwt` and `tls`"
)]
pub(crate) use connector::{Connector, Trust, check_scheme, client, connector, describe};
pub(crate) use failure::{
    Failure, Handling, bad_request, guarded, invalid, parse_params, target_member, unknown,
};
#[cfg(feature = "jwt")]
#[cfg_attr(
    not(feature = "authz"),
    allow(unused_imports, reason = "`Answer` is read by `authz`")
)]
pub(crate) use fetch::{Answer, Fetch};
pub(crate) use ids::{random_bytes, random_id};
pub(crate) use lock::Locked;
pub(crate) use named::named_arguments;
#[cfg(feature = "http")]
pub(crate) use outbound::Frames;
pub use outbound::{Frame, Outbound};
pub use page::{Cursor, Page};
pub(crate) use reply::{
    Body, ResultType, Written, members, members_of, text_members_len, text_object,
};
pub use reply::{Reply, Status};

/// A boxed, sendable future: what object-safe traits (the store and bus seams, the tables'
/// handler pointers) return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The future `make` makes, pinned in a box allocated before it is made: the future is then
/// written straight into the box, where `Box::pin(future)` makes it on the stack and copies it
/// (a request's future is several KB; the copy showed in every request's profile).
#[cfg(feature = "http")]
pub(crate) fn boxed<F>(make: impl FnOnce() -> F) -> Pin<Box<F>> {
    let slot = Box::<F>::new_uninit();
    let written: Box<F> = Box::write(slot, make());
    Box::into_pin(written)
}

/// The `tracing` target of phantom's telemetry events.
pub(crate) const TELEMETRY_TARGET: &str = "phantom::telemetry";

/// A handler, callback or verifier panicked: logged once, without the panic text.
pub(crate) fn exception(what: &'static str, name: &str) {
    tracing::error!(target: TELEMETRY_TARGET, event = "exception", name, "{what} panicked");
}
