//! Handler parameters by type: [`FromContext`] (the one extractor trait of every handler kind) and
//! [`CallParam`] (tool and prompt parameters: arguments or context).

use serde_json::value::RawValue;

use crate::kernel::Outbound;
use crate::session::{Request, Session};

pub(crate) mod call;
pub(crate) mod ctx;

pub(crate) use call::{ArgSpec, Args, ArgsBuilder, CallParts, ReadParam, describe_args, generator};
pub(crate) use ctx::Ctx;

/// What every handler's context parameters are read from, whatever the handler's kind: the input of
/// [`FromContext`], for writing extractors of your own. Handlers take [`Ctx`], the
/// request's handle for progress, logs and input, built from it.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The caller's session.
    pub session: &'a Session,
    /// The transport request.
    pub request: &'a Request,
    /// Where messages sent before the result go.
    pub(crate) outbound: &'a Outbound,
    /// What the request names (`params.name`, `uri`, `taskId`), decoded once with its params.
    pub(crate) target: &'a crate::protocol::Target<'a>,
    /// `params._meta.progressToken`, when the request carried one.
    pub(crate) progress_token: Option<&'a RawValue>,
    /// Where input the handler asks for comes from.
    pub(crate) exchange: &'a crate::input::Exchange,
    /// What announces changes (the config's).
    pub(crate) notifier: &'a crate::Notifier,
}

/// Runs an entry added at run time or merged in from another router: its arguments and the
/// request's context in, the result out.
pub(crate) type Handler = std::sync::Arc<
    dyn for<'a> Fn(
            Option<&'a RawValue>,
            Context<'a>,
        ) -> crate::kernel::BoxFuture<
            'a,
            Result<crate::kernel::Body, crate::kernel::Failure>,
        > + Send
        + Sync,
>;

/// A handler parameter read from the request's context rather than from its arguments or URI:
/// the one extractor trait of every handler kind (tools, prompts, resources).
///
/// Implemented for `&Session`, `&Request`, [`Bearer`](crate::auth::Bearer),
/// [`&AuthInfo`](crate::auth::AuthInfo) and [`Ctx`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a context parameter",
    label = "not a context type",
    note = "context parameters are `&Session`, `&Request`, `Bearer`, `&AuthInfo`, `Ctx` and `Notifier`; a `#[resource]` argument that is none of these needs a `<name>` in the URI template"
)]
pub trait FromContext<'a>: Sized {
    /// Reads the parameter; `Err` says what the request lacks (a tool answers it as an `isError`
    /// result, a prompt or resource as `-32602`).
    fn from_context(cx: &Context<'a>) -> Result<Self, String>;
}

impl<'a> FromContext<'a> for &'a Session {
    fn from_context(cx: &Context<'a>) -> Result<Self, String> {
        Ok(cx.session)
    }
}

impl<'a> FromContext<'a> for &'a Request {
    fn from_context(cx: &Context<'a>) -> Result<Self, String> {
        Ok(cx.request)
    }
}

/// The server's [`Notifier`](crate::Notifier), to announce a change a handler made.
impl<'a> FromContext<'a> for crate::Notifier {
    fn from_context(cx: &Context<'a>) -> Result<Self, String> {
        Ok(cx.notifier.clone())
    }
}

/// What the request's verified bearer token grants: its subject, client, scopes and every claim
/// (an email or name phantom's authorization server carried from the identity provider, say).
/// A request without a verified token is refused (a tool answers it as an `isError` result).
impl<'a> FromContext<'a> for &'a crate::auth::AuthInfo {
    fn from_context(cx: &Context<'a>) -> Result<Self, String> {
        cx.session.auth.as_deref().ok_or_else(|| {
            "this request is not signed in: it has no verified bearer token".to_owned()
        })
    }
}

impl<'a> FromContext<'a> for crate::auth::Bearer {
    fn from_context(cx: &Context<'a>) -> Result<Self, String> {
        Self::from_request(cx.request)
            .ok_or_else(|| "this request needs an `Authorization: Bearer` token".to_owned())
    }
}

/// A parameter of a `#[tool]` or `#[prompt]` handler: an argument or a context value.
///
/// Arguments (any `T: Deserialize + JsonSchema`) come from the call's `arguments`, and
/// [`Arguments<T>`] takes them all as one value; context types (`&Session`, `&Request`,
/// [`Bearer`](crate::auth::Bearer), [`Ctx`], [`Notifier`](crate::Notifier)) come from the
/// request. A type that is neither cannot be a parameter.
///
/// The trait is sealed: it is implemented for exactly these types, and cannot be implemented
/// outside phantom. Name it in bounds (`T: CallParam<'a>`); to take a value of your own in a
/// tool, make it an argument (`Deserialize + JsonSchema`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of a `#[tool]` or `#[prompt]` handler",
    label = "not an argument type nor a context type",
    note = "arguments need `serde::Deserialize` and `schemars::JsonSchema`; context parameters are `&Session`, `&Request`, `Bearer`, `&AuthInfo`, `Ctx` and `Notifier`"
)]
pub trait CallParam<'a>: ReadParam<'a> {}

impl<'a, T: ReadParam<'a>> CallParam<'a> for T {}

/// Takes every argument of a call as one value: its schema becomes the tool's whole `inputSchema`
/// (kept verbatim, with `$schema`, `$defs`, `allOf`, `if`/`then`/`else`, …), and its
/// `Deserialize` reads the whole `arguments` object.
///
/// Use it when the arguments are better described by one struct, or by a hand-written schema.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments<T>(pub T);
