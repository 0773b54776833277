//! [`Middleware`]: a seam around every feature request, for rate limits, audit logs and metrics
//! without forking the dispatcher.

use crate::error::Error;
use crate::kernel::BoxFuture;
use crate::protocol::{ErrorObject, Method};
use crate::session::{Request, Session};

/// One feature request as middleware sees it: after `connect`, before the method runs.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Call<'a> {
    /// The method (`tools/call`, `resources/read`, `tools/list`, …).
    pub method: Method,
    /// What the request names: the tool or prompt (`params.name`) or the URI (`params.uri`).
    pub name: Option<&'a str>,
    /// The caller's session, as `connect` left it.
    pub session: &'a Session,
    /// The transport request.
    pub request: &'a Request,
}

/// How a request ended. A tool that returns `isError: true` ended [`Outcome::Ok`]: its error is
/// a result, not a protocol error.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Outcome<'a> {
    /// A result was sent.
    Ok,
    /// A JSON-RPC error was sent.
    Error(&'a ErrorObject),
}

/// Hooks around every feature request (lists, `tools/call`, `prompts/get`, `resources/read`,
/// `completion/complete`), in both eras; set one with [`Config::middleware`](crate::Config::middleware).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use phantom::{BoxFuture, Error, middleware::{Call, Middleware}};
///
/// /// Refuses every call after the first 1000.
/// struct Quota(AtomicUsize);
///
/// impl Middleware for Quota {
///     fn before<'a>(&'a self, call: &'a Call<'a>) -> BoxFuture<'a, Result<(), Error>> {
///         let spent = self.0.fetch_add(1, Ordering::Relaxed);
///         Box::pin(async move {
///             if spent >= 1000 {
///                 return Err(Error::new(-32000, format!("quota spent; `{}` refused", call.method)));
///             }
///             Ok(())
///         })
///     }
/// }
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// Runs before the method: an `Err` is sent instead of the result, and the method does not run.
    /// Default: let it through.
    fn before<'a>(&'a self, call: &'a Call<'a>) -> BoxFuture<'a, Result<(), Error>> {
        let _ = call;
        Box::pin(std::future::ready(Ok(())))
    }

    /// Runs after the method (or after `before` refused it), with the outcome. Default: nothing.
    fn after<'a>(&'a self, call: &'a Call<'a>, outcome: Outcome<'a>) -> BoxFuture<'a, ()> {
        let _ = (call, outcome);
        Box::pin(std::future::ready(()))
    }
}
