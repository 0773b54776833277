//! `completion/complete`: what `#[complete(with = "…")]` functions receive and return.

pub(crate) mod complete;
pub(crate) use complete::{Completable, CompleteFn, Completions, Env, complete};

use std::collections::BTreeMap;
use std::fmt::Display;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::kernel::BoxFuture;
use crate::session::Request;
use crate::session::Session;

/// The most values one completion may carry.
pub(crate) const MAX_VALUES: usize = 100;

/// What a completion function knows besides the partial value.
#[derive(Debug)]
pub struct CompleteContext<'a> {
    /// The argument (prompt argument or URI parameter) being completed.
    pub argument: &'a str,
    /// Arguments the client already resolved (`context.arguments`).
    pub arguments: &'a BTreeMap<String, String>,
    /// The caller's session.
    pub session: &'a Session,
    /// The transport request.
    pub request: &'a Request,
    /// The request's line to the client: log messages and progress. A completion cannot ask the
    /// client for input (`Ctx::input` ends the request with `-32603` saying so); only
    /// `tools/call`, `prompts/get` and `resources/read` can.
    pub ctx: crate::Ctx,
}

/// A completion: candidate values, truncated to 100.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// Candidate values.
    pub values: Vec<String>,
    /// The number of matches in all, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more values exist than were sent.
    #[serde(default)]
    pub has_more: bool,
}

impl Completion {
    /// A completion from all matching values; keeps the first 100 and sets `total` and `hasMore`.
    pub fn new(mut values: Vec<String>) -> Self {
        let total = values.len();
        values.truncate(MAX_VALUES);
        Self {
            has_more: total > values.len(),
            total: Some(total as u64),
            values,
        }
    }
}

/// What a completion function may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a completion function",
    note = "return `Vec<String>`, `Completion` or `Result<T, E>` where `E: Display + 'static` (`String`, any error type; a `phantom::Error` keeps its code)"
)]
pub trait IntoCompletion {
    /// Converts the function's value.
    fn into_completion(self) -> Result<Completion, Error>;
}

impl IntoCompletion for Completion {
    fn into_completion(mut self) -> Result<Completion, Error> {
        if self.values.len() > MAX_VALUES {
            self.values.truncate(MAX_VALUES);
            self.has_more = true;
        }
        Ok(self)
    }
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<Completion, Error> {
        Ok(Completion::new(self))
    }
}

impl<T: IntoCompletion, E: Display + 'static> IntoCompletion for Result<T, E> {
    fn into_completion(self) -> Result<Completion, Error> {
        self.map_err(Error::from_handler)?.into_completion()
    }
}

/// A completion function of an entry added at run time or merged in from another router.
pub(crate) type Completer = std::sync::Arc<
    dyn for<'a> Fn(&'a str, &'a CompleteContext<'a>) -> BoxFuture<'a, Result<Completion, Error>>
        + Send
        + Sync,
>;
