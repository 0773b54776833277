//! [`Failure`]: an error reply in the making (a JSON-RPC error and the transport status it maps
//! to), and the one place a handler's panic becomes `-32603`.

use std::borrow::Cow;
use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt as _;
use serde::Deserialize;
use serde_json::Value;

use super::reply::Status;
use crate::error::Error;
use crate::protocol::{ErrorObject, Params, codes};

#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) error: ErrorObject,
    pub(crate) status: Status,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Self::from(e.into_object())
    }
}

impl From<ErrorObject> for Failure {
    fn from(error: ErrorObject) -> Self {
        Self {
            error,
            status: Status::Ok,
        }
    }
}

impl Failure {
    pub(crate) fn with_status(self, status: Status) -> Self {
        Self { status, ..self }
    }

    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.error.data = Some(data);
        self
    }

    pub(crate) fn internal() -> Self {
        Self::from(ErrorObject::new(codes::INTERNAL_ERROR, "Internal error"))
    }
}

/// `-32602` with a message.
pub(crate) fn invalid(message: impl Into<Cow<'static, str>>) -> Failure {
    Failure::from(ErrorObject::new(codes::INVALID_PARAMS, message))
}

/// An error answered with HTTP 400.
pub(crate) fn bad_request(error: ErrorObject) -> Failure {
    Failure::from(error).with_status(Status::BadRequest)
}

/// `-32602 Unknown <what>: <name>` with `data.<key>`: a name the router lacks, or one the
/// session's allow-list hides (the two read the same, so a hidden name does not leak).
pub(crate) fn unknown(what: &str, key: &str, name: &str) -> Failure {
    let mut data = serde_json::Map::new();
    data.insert(key.into(), name.into());
    invalid(format!("Unknown {what}: {name}")).with_data(Value::Object(data))
}

/// Deserializes `params` (absent = `{}`), naming what is wrong without serde's position suffix.
pub(crate) fn parse_params<'a, T: Deserialize<'a>>(raw: Option<Params<'a>>) -> Result<T, Failure> {
    let text = raw.map_or("{}", Params::get);
    serde_json::from_str(text).map_err(|e| {
        let e = e.to_string();
        let e = e.split(" at line ").next().unwrap_or(&e);
        invalid(format!("Invalid params: {e}"))
    })
}

/// A member of the request's target (decoded once with its params), or, when it is absent or
/// did not read as a string, the error that reading the params as `T` gives: the exact one the
/// room's params type names.
pub(crate) fn target_member<'t, 'a, T: Deserialize<'a>>(
    value: Option<&'t str>,
    params: Option<Params<'a>>,
    field: &str,
) -> Result<&'t str, Failure> {
    let Some(value) = value else {
        return Err(match parse_params::<T>(params) {
            Err(failure) => failure,
            Ok(_) => invalid(format!("Invalid params: `{field}` must be a string"))
                .with_data(serde_json::json!({ "field": field })),
        });
    };
    Ok(value)
}

pin_project_lite::pin_project! {
    /// A request's handling, [`guarded`] and in its span, in one wrapper: the handling future (a
    /// request's largest) is moved into it once, where `guarded(…).instrument(span)` moved it
    /// twice, a copy of a few KB each.
    pub(crate) struct Handling<'n, F> {
        #[pin]
        future: F,
        span: tracing::Span,
        name: &'n str,
    }
}

impl<'n, F> Handling<'n, F> {
    /// `future`, guarded as "request handling" of `name`, polled in `span`.
    pub(crate) fn new(name: &'n str, span: tracing::Span, future: F) -> Self {
        Self { future, span, name }
    }
}

impl<F: Future> Future for Handling<'_, F> {
    type Output = Result<F::Output, Failure>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let this = self.project();
        let _entered = this.span.enter();
        let future = this.future;
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(poll) => poll.map(Ok),
            Err(_) => {
                super::exception("request handling", this.name);
                std::task::Poll::Ready(Err(Failure::internal()))
            }
        }
    }
}

/// Runs user code (a handler, a completion function, a callback): a panic is logged once with
/// `what` and `name`, and answered `-32603 Internal error` without the panic text.
///
/// Built from combinators rather than as an `async fn`, so the guarded future is stored once, not
/// once as an argument and again inside the guard.
pub(crate) fn guarded<'n, F: Future + 'n>(
    what: &'static str,
    name: &'n str,
    future: F,
) -> impl Future<Output = Result<F::Output, Failure>> + 'n {
    AssertUnwindSafe(future).catch_unwind().map(move |outcome| {
        outcome.map_err(|_| {
            super::exception(what, name);
            Failure::internal()
        })
    })
}
