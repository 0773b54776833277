//! The descriptors of `#[resource]`s: as the macro writes them ([`ResourceDef`]), what a
//! trampoline receives ([`ReadParts`]) and what the router keeps ([`ResourceEntry`]).

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::json;
use serde_json::value::RawValue;

use super::{ReadTarget, TemplateInfo};
use crate::completion::CompleteFn;
use crate::content::ResourceContents;
use crate::error::Error;
use crate::extract::Context;
use crate::kernel::BoxFuture;

/// Generated resource trampoline.
pub(crate) type ReadFn<S> =
    for<'a> fn(&'a S, ReadParts<'a>) -> BoxFuture<'a, Result<Option<Vec<ResourceContents>>, Error>>;
/// One `#[resource]`.
#[allow(missing_debug_implementations, missing_docs)]
pub struct ResourceDef<S> {
    pub template: &'static str,
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub mime_type: Option<&'static str>,
    pub size: Option<u64>,
    pub icons: &'static [&'static str],
    /// `scopes`: OAuth scopes the caller's token must grant (to list, read, subscribe, complete).
    pub scopes: &'static [&'static str],
    /// A `ui://` resource's `_meta.ui` (MCP Apps).
    pub ui: Option<crate::apps::ResourceUi>,
    pub read: ReadFn<S>,
    pub completions: Vec<(&'static str, CompleteFn<S>)>,
}

/// What a resource trampoline receives.
#[derive(Debug)]
pub struct ReadParts<'a> {
    /// The URI read.
    pub uri: &'a str,
    /// Decoded parameters, in template order.
    pub params: Vec<Cow<'a, str>>,
    /// The request's context.
    pub cx: Context<'a>,
    /// The template's MIME type.
    pub mime_type: Option<&'static str>,
}

impl<'a> ReadParts<'a> {
    /// The `i`-th parameter.
    pub fn param(&self, i: usize) -> &str {
        &self.params[i]
    }

    /// Where the handler's value goes.
    pub fn target(&self) -> ReadTarget<'_> {
        ReadTarget {
            uri: self.uri,
            mime_type: self.mime_type,
        }
    }

    /// The error for a context parameter the request cannot give (e.g. no bearer token).
    pub fn bad_context(&self, reason: &str) -> Error {
        Error::invalid_params(reason.to_owned()).with_data(json!({ "uri": self.uri }))
    }

    /// The error for a parameter that does not parse.
    pub fn bad_param(&self, name: &str, reason: &str) -> Error {
        Error::invalid_params(format!("invalid URI parameter `{name}`: {reason}"))
            .with_data(json!({ "uri": self.uri, "param": name }))
    }
}

pub(crate) struct ResourceEntry<S> {
    pub(crate) def: ResourceDef<S>,
    pub(crate) info: Arc<TemplateInfo>,
    pub(crate) concrete_uri: Option<String>,
    pub(crate) json: Box<RawValue>,
}
