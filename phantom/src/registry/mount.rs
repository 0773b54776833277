//! Composition: the tools, prompts and resources of other `#[mcp_router]` impls served by one
//! dispatcher, each with its own state, under their names or under a prefix.

use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::overlay::{Added, AddedResource, Handler, Reader};
use super::{EntryKind, Registry, RegistryError};
use crate::dispatch::Dispatcher;
use crate::extract::Context;
use crate::kernel::BoxFuture;
use crate::kernel::{Body, Failure};
use crate::prompts::get::run_prompt;
use crate::resources::TemplateInfo;
use crate::resources::read::run_read;
use crate::resources::uri::Template;
use crate::router::raw;
use crate::server::Server;
use crate::tools::run_tool;

/// The entries of `other`'s router, renamed `<prefix>_<name>` when there is a prefix.
struct Parts {
    tools: Vec<Added>,
    prompts: Vec<Added>,
    resources: Vec<AddedResource>,
}

/// A list item with its `name` replaced.
fn renamed(json: &RawValue, name: &str) -> Box<RawValue> {
    let mut item: Value = serde_json::from_str(json.get()).unwrap_or_default();
    item["name"] = name.into();
    raw(&item)
}

fn parts<T: Server>(prefix: Option<&str>, other: T) -> Result<Parts, RegistryError> {
    let name_of = |name: &str| match prefix {
        Some(p) => format!("{p}_{name}"),
        None => name.to_owned(),
    };
    let server = Arc::new(other);
    let router = T::__router();
    let tools = router.tools.iter().enumerate().map(|(i, entry)| {
        let name = name_of(entry.def.name);
        added(&server, i, name, &entry.json, tool_at::<T>)
    });
    let prompts = router.prompts.iter().enumerate().map(|(i, entry)| {
        let name = name_of(entry.def.name);
        added(&server, i, name, &entry.json, prompt_at::<T>)
    });
    let mut resources = Vec::with_capacity(router.resources.len());
    for (i, entry) in router.resources.iter().enumerate() {
        let server = Arc::clone(&server);
        let read: Reader = Arc::new(move |uri, params, cx| {
            let server = Arc::clone(&server);
            Box::pin(async move {
                run_read(&*server, &T::__router().resources[i], uri, params, cx).await
            })
        });
        let template =
            Template::parse(&entry.info.template).map_err(|e| RegistryError::InvalidTemplate {
                template: entry.info.template.clone(),
                message: e.message(),
            })?;
        let name = name_of(&entry.info.name);
        resources.push(AddedResource {
            json: renamed(&entry.json, &name),
            info: Arc::new(TemplateInfo {
                name,
                ..TemplateInfo::clone(&entry.info)
            }),
            template,
            read,
        });
    }
    Ok(Parts {
        tools: tools.collect(),
        prompts: prompts.collect(),
        resources,
    })
}

/// Runs the `i`-th entry of `T`'s router.
type RunAt<T> = for<'a> fn(
    &'a T,
    usize,
    Option<&'a RawValue>,
    Context<'a>,
) -> BoxFuture<'a, Result<Body, Failure>>;

fn tool_at<'a, T: Server>(
    server: &'a T,
    i: usize,
    arguments: Option<&'a RawValue>,
    cx: Context<'a>,
) -> BoxFuture<'a, Result<Body, Failure>> {
    let router = T::__router();
    let timeout = router.info.tool_timeout_ms;
    Box::pin(run_tool(server, &router.tools[i], timeout, arguments, cx))
}

fn prompt_at<'a, T: Server>(
    server: &'a T,
    i: usize,
    arguments: Option<&'a RawValue>,
    cx: Context<'a>,
) -> BoxFuture<'a, Result<Body, Failure>> {
    Box::pin(run_prompt(server, &T::__router().prompts[i], arguments, cx))
}

/// The `i`-th tool or prompt of `server`'s router, served as `name`.
fn added<T: Server>(
    server: &Arc<T>,
    i: usize,
    name: String,
    json: &RawValue,
    run: RunAt<T>,
) -> Added {
    let server = Arc::clone(server);
    let handler: Handler = Arc::new(move |arguments, cx| {
        let server = Arc::clone(&server);
        Box::pin(async move { run(&server, i, arguments, cx).await })
    });
    Added {
        json: renamed(json, &name),
        name,
        handler,
    }
}

impl<S: Server> Dispatcher<S> {
    /// Serves the tools, prompts and resources of another `#[mcp_router]` impl beside this
    /// one's, under their own names. `other` keeps its own state; the callbacks (`connect`,
    /// `list_resources`, the allow-lists, …) stay this router's.
    ///
    /// A name or URI template that is taken already is an `Err`, and nothing is merged.
    pub fn merge<T: Server>(self, other: T) -> Result<Self, RegistryError> {
        let parts = parts(None, other)?;
        self.compose(&parts)?;
        Ok(self)
    }

    /// [`merge`](Self::merge) with the tools, prompts and resources renamed
    /// `<prefix>_<name>` (URIs stay as they are). The prefixed tool names must still obey MCP's
    /// tool-name rule.
    pub fn mount<T: Server>(self, prefix: &str, other: T) -> Result<Self, RegistryError> {
        let parts = parts(Some(prefix), other)?;
        self.compose(&parts)?;
        Ok(self)
    }

    fn compose(&self, parts: &Parts) -> Result<(), RegistryError> {
        self.change_overlay(|overlay| {
            self.add_all(overlay, &parts.tools, &parts.prompts, &parts.resources)
        })
    }
}

impl<S: Server> Registry<S> {
    /// [`Dispatcher::mount`] while the server runs (`prefix: None` merges): the three lists'
    /// `list_changed` are announced.
    pub async fn mount<T: Server>(
        &self,
        prefix: Option<&str>,
        other: T,
    ) -> Result<(), RegistryError> {
        let parts = parts(prefix, other)?;
        self.dispatcher.compose(&parts)?;
        for (kind, empty) in [
            (EntryKind::Tool, parts.tools.is_empty()),
            (EntryKind::Prompt, parts.prompts.is_empty()),
            (EntryKind::Resource, parts.resources.is_empty()),
        ] {
            if !empty {
                self.announce(kind, prefix.unwrap_or_default()).await?;
            }
        }
        Ok(())
    }
}
