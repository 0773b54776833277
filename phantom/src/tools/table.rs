//! The descriptors of `#[tool]`s as the macro writes them ([`ToolDef`]) and as the router keeps
//! them once built ([`ToolEntry`]: schemas, validators, the serialized list item).

use std::collections::HashMap;

use schemars::{Schema, SchemaGenerator};
use serde_json::value::RawValue;

use super::validator::Validator;
use super::{ToolAnnotations, ToolFuture};
use crate::extract::{ArgSpec, ArgsBuilder, CallParts};
use crate::protocol::MetaValue;

/// Generated tool trampoline.
pub(crate) type ToolFn<S> = for<'a> fn(&'a S, CallParts<'a>) -> ToolFuture<'a>;
/// One `#[tool]`.
#[allow(missing_debug_implementations, missing_docs)]
pub struct ToolDef<S> {
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: Option<&'static str>,
    pub annotations: ToolAnnotations,
    pub icons: &'static [&'static str],
    pub meta: &'static [(&'static str, MetaValue)],
    /// Client capabilities the tool needs: `"sampling"`, `"elicitation.url"`.
    pub requires: &'static [&'static str],
    /// `scopes`: OAuth scopes the caller's token must grant (`"notes:write"`).
    pub scopes: &'static [&'static str],
    /// `timeout`: the handler's time limit, in milliseconds (client input time excluded).
    pub timeout_ms: Option<u64>,
    /// `#[task_handler]`: how the tool runs as a task.
    pub task: Option<TaskSupport>,
    /// `ui = "ui://…"`: the MCP Apps view of the tool's result.
    pub ui: Option<crate::apps::ToolUi>,
    pub args: fn(&mut ArgsBuilder<'_>),
    pub output: fn(&mut SchemaGenerator) -> Option<Schema>,
    pub call: ToolFn<S>,
}

/// The options of a `#[task_handler]` tool.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub struct TaskSupport {
    /// `mode = "required"`: only as a task (a request without the extension gets `-32021`).
    pub required: bool,
    pub ttl_ms: Option<u64>,
    pub poll_interval_ms: Option<u64>,
    /// `prepare`: inline (MRTR rounds) until the handler calls `ctx.task()`.
    pub prepare: bool,
}

pub(crate) struct ToolEntry<S> {
    pub(crate) def: ToolDef<S>,
    pub(crate) specs: Vec<ArgSpec>,
    /// Compiled validators of the arguments whose schemas declare constraints, by wire name.
    pub(crate) validators: Vec<(&'static str, Validator)>,
    /// Whether one [`Arguments`](crate::extract::Arguments) parameter takes the whole object (its
    /// schema, not phantom, decides which names are allowed; its validator is named `""`).
    pub(crate) takes_all: bool,
    pub(crate) wrap_output: bool,
    /// The descriptor as listed by default, its schemas in portable spelling.
    pub(crate) json: Box<RawValue>,
    /// The descriptor with schemas as schemars generated them, when that differs
    /// ([`Config::portable_schemas`](crate::Config::portable_schemas) off).
    pub(crate) schemars_json: Option<Box<RawValue>>,
}

/// The tools one `#[mcp_router]` impl declares, built once per type ([`Declared::build`]).
pub(crate) struct Declared<S> {
    pub(crate) entries: Vec<ToolEntry<S>>,
    pub(crate) index: HashMap<&'static str, usize, ahash::RandomState>,
    /// Whether any declared tool has `Mcp-Param-*` headers (most routers have none, and then a
    /// `tools/call` over HTTP looks nothing up for them).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) any_headers: bool,
}
