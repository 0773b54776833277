//! Runtime registration: tools added, removed, disabled and enabled while a server runs, for one
//! served instance (a [`Dispatcher`]), on top of the tools its `#[mcp_router]` impl declares.
//!
//! The changes live in an overlay that readers load without locking (`arc-swap`): a change
//! builds a new overlay (with the first page of `tools/list` serialized once) and swaps it in, so
//! a request sees the tools before or after the change, never half of it. Every change announces
//! `notifications/tools/list_changed` through the server's [`Notifier`](crate::Notifier).

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;

use arc_swap::ArcSwap;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::dispatch::Dispatcher;
use crate::router::BoxFuture;
use crate::server::Server;
use crate::store::StoreError;
use crate::subscriptions::Change;
use crate::tools::{IntoToolResult, ToolResult};

type Call = Arc<dyn Fn(Option<&RawValue>) -> BoxFuture<'static, ToolResult> + Send + Sync>;

/// A tool made at run time: a name, a handler taking its arguments as one typed value (its JSON
/// Schema becomes the tool's `inputSchema`), and an optional description.
///
/// ```
/// use phantom::DynamicTool;
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Shout {
///     text: String,
/// }
/// let tool = DynamicTool::new("shout", |args: Shout| async move { args.text.to_uppercase() })
///     .description("Shouts the text back");
/// assert_eq!(tool.name(), "shout");
/// ```
#[derive(Clone)]
pub struct DynamicTool {
    name: String,
    description: Option<String>,
    input_schema: Value,
    call: Call,
}

impl std::fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicTool")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl DynamicTool {
    /// A tool named `name` whose arguments read as an `A`. Arguments that do not read as one
    /// get an `isError` result naming the problem, as a declared tool's do.
    pub fn new<A, F, Fut, R>(name: impl Into<String>, handler: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult + 'static,
    {
        let name = name.into();
        let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        let mut input_schema = generator.into_root_schema_for::<A>().to_value();
        if let Some(map) = input_schema.as_object_mut() {
            map.remove("$schema");
            map.remove("title");
        }
        let shown = name.clone();
        let handler = Arc::new(handler);
        let call: Call = Arc::new(move |arguments: Option<&RawValue>| {
            let text = arguments.map_or("{}", RawValue::get);
            match serde_json::from_str::<A>(text) {
                Ok(args) => {
                    let fut = handler(args);
                    Box::pin(async move { fut.await.into_tool_result() })
                }
                Err(e) => {
                    let message = format!("Invalid arguments for tool `{shown}`: {e}");
                    Box::pin(std::future::ready(ToolResult::error(message)))
                }
            }
        });
        Self {
            name,
            description: None,
            input_schema,
            call,
        }
    }

    /// Sets the description clients show.
    #[must_use]
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn list_item(&self) -> Box<RawValue> {
        let mut item = json!({ "name": self.name, "inputSchema": self.input_schema });
        if let Some(d) = &self.description {
            item["description"] = d.as_str().into();
        }
        RawValue::from_string(item.to_string()).unwrap_or_else(|_| unreachable!("valid JSON"))
    }

    pub(crate) fn call(&self, arguments: Option<&RawValue>) -> BoxFuture<'static, ToolResult> {
        (self.call)(arguments)
    }
}

/// Why a registration was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The name breaks the tool-name rules.
    #[error("invalid tool name `{0}`: tool names are 1 to 128 characters of `A-Z a-z 0-9 _ . -`")]
    InvalidName(String),
    /// A tool of that name exists already (declared or added).
    #[error("a tool named `{0}` exists already; remove it first, or choose another name")]
    Duplicate(String),
    /// No tool of that name exists.
    #[error("no tool named `{0}`")]
    Unknown(String),
    /// The change was made, but announcing it failed.
    #[error("the change was made but could not be announced: {0}")]
    Announce(#[from] StoreError),
}

/// What runtime registration has changed, as requests see it.
#[derive(Default)]
pub(crate) struct Overlay {
    /// Tools added at run time, in the order they were added.
    pub(crate) tools: Vec<(Arc<DynamicTool>, Box<RawValue>)>,
    /// Tools (declared or added) that are disabled: unlisted and uncallable.
    pub(crate) disabled: HashSet<String>,
    /// The first page of `tools/list` without a cursor or an allow-list.
    pub(crate) first_page: Option<String>,
}

impl Overlay {
    /// Whether anything changed at all (requests then take the declared tables as they are).
    pub(crate) fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.disabled.is_empty()
    }

    /// An added tool by name, when it is enabled.
    pub(crate) fn tool(&self, name: &str) -> Option<&Arc<DynamicTool>> {
        if self.disabled.contains(name) {
            return None;
        }
        self.tools.iter().map(|(t, _)| t).find(|t| t.name == name)
    }
}

/// The overlay of one served instance.
pub(crate) type Overlays = ArcSwap<Overlay>;

/// Adds, removes, disables and enables tools of one served instance while it runs. Cheap to
/// clone; get one with [`Dispatcher::registry`].
pub struct Registry<S: 'static> {
    dispatcher: Dispatcher<S>,
}

impl<S: 'static> Clone for Registry<S> {
    fn clone(&self) -> Self {
        Self {
            dispatcher: self.dispatcher.clone(),
        }
    }
}

impl<S: 'static> std::fmt::Debug for Registry<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry").finish_non_exhaustive()
    }
}

impl<S: Server> Dispatcher<S> {
    /// Runtime registration for this served instance.
    pub fn registry(&self) -> Registry<S> {
        Registry {
            dispatcher: self.clone(),
        }
    }
}

impl<S: Server> Registry<S> {
    fn overlays(&self) -> &Overlays {
        &self.dispatcher.inner.overlay
    }

    /// Applies `change` to a copy of the overlay and swaps it in, then announces the change.
    async fn update(
        &self,
        name: &str,
        change: impl Fn(&mut Overlay) -> Result<(), RegistryError>,
    ) -> Result<(), RegistryError> {
        let inner = &self.dispatcher.inner;
        let mut result = Ok(());
        self.overlays().rcu(|current| {
            let mut next = Overlay {
                tools: current.tools.clone(),
                disabled: current.disabled.clone(),
                first_page: None,
            };
            result = change(&mut next);
            if result.is_err() {
                return Arc::clone(current);
            }
            // The first page every session without an allow-list gets, serialized once.
            next.first_page = inner
                .router
                .tools_page(
                    &next,
                    &crate::server::Session::default(),
                    None,
                    &inner.config,
                )
                .ok();
            Arc::new(next)
        });
        result?;
        let names = vec![name.to_owned()];
        self.dispatcher
            .notifier()
            .publish(Change::ToolsChanged { names })
            .await?;
        Ok(())
    }

    fn declared(&self, name: &str) -> bool {
        self.dispatcher.inner.router.tool_position(name).is_some()
    }

    /// Adds a tool. Its name must be free (neither declared nor added) and valid.
    pub async fn add_tool(&self, tool: DynamicTool) -> Result<(), RegistryError> {
        let name = tool.name.clone();
        if !valid_tool_name(&name) {
            return Err(RegistryError::InvalidName(name));
        }
        if self.declared(&name) {
            return Err(RegistryError::Duplicate(name));
        }
        let tool = Arc::new(tool);
        let item = tool.list_item();
        self.update(&name, |overlay| {
            if overlay.tools.iter().any(|(t, _)| t.name == name) {
                return Err(RegistryError::Duplicate(name.clone()));
            }
            overlay.tools.push((Arc::clone(&tool), item.clone()));
            Ok(())
        })
        .await
    }

    /// Removes a tool added at run time (declared tools can be disabled, not removed).
    pub async fn remove_tool(&self, name: &str) -> Result<(), RegistryError> {
        self.update(name, |overlay| {
            let before = overlay.tools.len();
            overlay.tools.retain(|(t, _)| t.name != name);
            overlay.disabled.remove(name);
            if overlay.tools.len() == before {
                return Err(RegistryError::Unknown(name.to_owned()));
            }
            Ok(())
        })
        .await
    }

    /// Disables a tool (declared or added): it is neither listed nor callable until enabled.
    pub async fn disable_tool(&self, name: &str) -> Result<(), RegistryError> {
        let declared = self.declared(name);
        self.update(name, |overlay| {
            if !declared && !overlay.tools.iter().any(|(t, _)| t.name == name) {
                return Err(RegistryError::Unknown(name.to_owned()));
            }
            overlay.disabled.insert(name.to_owned());
            Ok(())
        })
        .await
    }

    /// Enables a disabled tool again.
    pub async fn enable_tool(&self, name: &str) -> Result<(), RegistryError> {
        self.update(name, |overlay| {
            if overlay.disabled.remove(name) {
                Ok(())
            } else {
                Err(RegistryError::Unknown(name.to_owned()))
            }
        })
        .await
    }
}

/// MCP's tool-name rule: 1 to 128 characters of `A-Z a-z 0-9 _ . -` (the macros check declared
/// names at compile time; added ones are checked here).
fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}
