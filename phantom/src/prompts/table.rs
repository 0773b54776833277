//! The descriptors of `#[prompt]`s: as the macro writes them ([`PromptDef`]) and as the router
//! keeps them ([`PromptEntry`]).

use serde_json::value::RawValue;

use super::PromptReply;
use crate::completion::CompleteFn;
use crate::error::Error;
use crate::extract::{ArgSpec, ArgsBuilder, CallParts};
use crate::kernel::BoxFuture;

/// Generated prompt trampoline.
pub(crate) type PromptFn<S> =
    for<'a> fn(&'a S, CallParts<'a>) -> BoxFuture<'a, Result<PromptReply, Error>>;
/// One `#[prompt]`.
#[allow(missing_debug_implementations, missing_docs)]
pub struct PromptDef<S> {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub icons: &'static [&'static str],
    /// `scopes`: OAuth scopes the caller's token must grant.
    pub scopes: &'static [&'static str],
    pub args: fn(&mut ArgsBuilder<'_>),
    pub get: PromptFn<S>,
    pub completions: Vec<(&'static str, CompleteFn<S>)>,
}

pub(crate) struct PromptEntry<S> {
    pub(crate) def: PromptDef<S>,
    pub(crate) specs: Vec<ArgSpec>,
    pub(crate) json: Box<RawValue>,
}
