//! Tools, prompts and resources made at run time from async closures, their schemas from types.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::RegistryError;
use crate::extract::Handler;
use crate::kernel::BoxFuture;
use crate::kernel::{Body, Failure, invalid, members_of};
use crate::prompts::AddedPrompt;
use crate::prompts::IntoPromptReply;
use crate::protocol::descriptor::raw;
use crate::resources::uri::Template;
use crate::resources::{AddedResource, Reader, TemplateInfo};
use crate::resources::{IntoContents, ReadTarget};
use crate::tools::{AddedTool, IntoToolResult, ToolResult};

/// The JSON Schema of `A`, as an input schema (no `$schema`, no `title`).
fn schema_of<A: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<A>().to_value();
    if let Some(map) = schema.as_object_mut() {
        map.remove("$schema");
        map.remove("title");
    }
    schema
}

/// A handler reading its arguments as one `A`: `finish` shapes what the closure returns,
/// `refuse` answers arguments that do not read as an `A`.
fn typed<A, F, Fut>(
    handler: F,
    finish: fn(Fut::Output) -> Result<Body, Failure>,
    refuse: impl Fn(serde_json::Error) -> Result<Body, Failure> + Send + Sync + 'static,
) -> Handler
where
    A: DeserializeOwned + Send + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
{
    Arc::new(move |arguments: Option<&RawValue>, _cx| {
        let text = arguments.map_or("{}", RawValue::get);
        match serde_json::from_str::<A>(text) {
            Ok(args) => {
                let fut = handler(args);
                Box::pin(async move { finish(fut.await) })
            }
            Err(e) => Box::pin(std::future::ready(refuse(e))),
        }
    })
}

/// The item of a list, with `description` when there is one.
/// Scopes as given to a `scopes(…)` builder.
pub(super) fn owned(scopes: impl IntoIterator<Item = impl Into<String>>) -> Vec<String> {
    scopes.into_iter().map(Into::into).collect()
}

fn item(mut obj: Map<String, Value>, description: Option<&String>) -> Box<RawValue> {
    if let Some(d) = description {
        obj.insert("description".into(), d.as_str().into());
    }
    raw(&obj)
}

/// A tool made at run time: a name, a handler taking its arguments as one typed value (its JSON
/// Schema becomes the tool's `inputSchema`), and an optional description. Add it with
/// [`Registry::add_tool`](super::Registry::add_tool).
///
/// ```
/// use phantom::registry::DynamicTool;
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
    scopes: Vec<String>,
    ui: Option<crate::apps::ToolUi>,
    handler: Handler,
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
        let shown = name.clone();
        let handler = typed(
            handler,
            |result: R| members_of(&result.into_tool_result()),
            move |e| {
                let message = format!("Invalid arguments for tool `{shown}`: {e}");
                members_of(&ToolResult::error(message))
            },
        );
        Self {
            name,
            description: None,
            input_schema: schema_of::<A>(),
            scopes: Vec::new(),
            ui: None,
            handler,
        }
    }

    /// OAuth scopes the caller's token must grant, as `#[tool(scopes = […])]` says for a declared
    /// tool: a call without them gets `403` with an `insufficient_scope` challenge naming them.
    #[must_use]
    pub fn scopes<I, T>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.scopes = owned(scopes);
        self
    }

    /// The MCP Apps view of the tool's result, as `#[tool(ui = "ui://…")]` declares one: listed
    /// as the tool's `_meta.ui`.
    #[must_use]
    pub fn ui(mut self, ui: crate::apps::ToolUi) -> Self {
        self.ui = Some(ui);
        self
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

    pub(crate) fn into_added(self) -> AddedTool {
        let mut obj = Map::new();
        obj.insert("name".into(), self.name.as_str().into());
        obj.insert("inputSchema".into(), self.input_schema);
        if let Some(ui) = &self.ui {
            let mut meta = Map::new();
            ui.write(&mut meta);
            obj.insert("_meta".into(), Value::Object(meta));
        }
        AddedTool {
            json: item(obj, self.description.as_ref()),
            name: self.name,
            scopes: self.scopes,
            headers: Vec::new(),
            has_ui: self.ui.is_some(),
            handler: self.handler,
            tasks: None,
        }
    }
}

/// A prompt made at run time: a name and a handler taking its arguments as one typed value,
/// whose fields become the prompt's arguments (required unless they may be left out). Add it
/// with [`Registry::add_prompt`](super::Registry::add_prompt).
///
/// ```
/// use phantom::{registry::DynamicPrompt, prompts::PromptMessage};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Topic {
///     /// What to write about.
///     topic: String,
/// }
/// let prompt = DynamicPrompt::new("essay", |args: Topic| async move {
///     vec![PromptMessage::user(format!("Write an essay on {}", args.topic))]
/// });
/// assert_eq!(prompt.name(), "essay");
/// ```
#[derive(Clone)]
pub struct DynamicPrompt {
    name: String,
    description: Option<String>,
    arguments: Vec<Value>,
    scopes: Vec<String>,
    handler: Handler,
}

impl std::fmt::Debug for DynamicPrompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicPrompt")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl DynamicPrompt {
    /// A prompt named `name` whose arguments read as an `A`. Arguments that do not read as one
    /// are answered -32602 naming the problem, as a declared prompt's are.
    pub fn new<A, F, Fut, R>(name: impl Into<String>, handler: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoPromptReply + 'static,
    {
        let name = name.into();
        let shown = name.clone();
        let handler = typed(
            handler,
            |reply: R| members_of(&reply.into_prompt_reply().map_err(Failure::from)?),
            move |e| {
                let message = format!("Invalid params: arguments of prompt `{shown}`: {e}");
                Err(invalid(message))
            },
        );
        Self {
            name,
            description: None,
            arguments: prompt_arguments(&schema_of::<A>()),
            scopes: Vec::new(),
            handler,
        }
    }

    /// Sets the description clients show.
    #[must_use]
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// OAuth scopes the caller's token must grant, as `#[prompt(scopes = […])]` says for a declared
    /// prompt: without them it is left out of lists and a `prompts/get` or completion of it gets `403` with an
    /// `insufficient_scope` challenge naming them.
    #[must_use]
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = owned(scopes);
        self
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn into_added(self) -> AddedPrompt {
        let mut obj = Map::new();
        obj.insert("name".into(), self.name.as_str().into());
        let arguments = self
            .arguments
            .iter()
            .filter_map(|a| a["name"].as_str().map(str::to_owned))
            .collect();
        if !self.arguments.is_empty() {
            obj.insert("arguments".into(), self.arguments.into());
        }
        AddedPrompt {
            json: item(obj, self.description.as_ref()),
            name: self.name,
            arguments,
            completions: Vec::new(),
            scopes: self.scopes,
            handler: self.handler,
        }
    }
}

/// A prompt's `arguments` list from an object schema: each property, its description, and
/// whether the schema requires it.
fn prompt_arguments(schema: &Value) -> Vec<Value> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let mut arg = json!({ "name": name, "required": required.contains(&name.as_str()) });
            if let Some(d) = property["description"].as_str() {
                arg["description"] = d.into();
            }
            arg
        })
        .collect()
}

/// A resource (a concrete URI) or resource template (`<param>` segments, the grammar of
/// `#[resource]`) made at run time, with a handler taking the URI's parameters by name. Add it
/// with [`Registry::add_resource`](super::Registry::add_resource).
///
/// ```
/// use std::collections::HashMap;
/// use phantom::registry::DynamicResource;
/// let notes = DynamicResource::new(
///     "notes:///drafts/<id>",
///     "draft",
///     |params: HashMap<String, String>| async move { format!("draft {}", params["id"]) },
/// )
/// .mime_type("text/plain");
/// assert_eq!(notes.name(), "draft");
/// ```
#[derive(Clone)]
pub struct DynamicResource {
    template: String,
    name: String,
    description: Option<String>,
    mime_type: Option<Arc<str>>,
    scopes: Vec<String>,
    read: ReadFn,
}

type ReadOutcome = Result<Option<Vec<crate::content::ResourceContents>>, crate::error::Error>;

/// Reads one URI: its parameters by name, the URI itself and the resource's MIME type.
type ReadFn = Arc<
    dyn Fn(HashMap<String, String>, String, Option<Arc<str>>) -> BoxFuture<'static, ReadOutcome>
        + Send
        + Sync,
>;

impl std::fmt::Debug for DynamicResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicResource")
            .field("template", &self.template)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl DynamicResource {
    /// A resource served at `template` (checked when it is added), named `name`, read by
    /// `handler` from the URI's decoded parameters. Whatever a `#[resource]` method may return,
    /// the handler may too (`None` reads as not found).
    pub fn new<F, Fut, R>(template: impl Into<String>, name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(HashMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoContents + Send + 'static,
    {
        let read: ReadFn = Arc::new(move |params, uri, mime_type| {
            let fut = handler(params);
            Box::pin(async move {
                let target = ReadTarget {
                    uri: &uri,
                    mime_type: mime_type.as_deref(),
                };
                fut.await.into_contents(target)
            })
        });
        Self {
            template: template.into(),
            name: name.into(),
            description: None,
            mime_type: None,
            scopes: Vec::new(),
            read,
        }
    }

    /// Sets the description clients show.
    #[must_use]
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// Sets the MIME type listed and used for text the handler returns.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into().into());
        self
    }

    /// OAuth scopes the caller's token must grant, as `#[resource(scopes = […])]` says for a declared
    /// resource: without them it is left out of lists and a read, subscription or completion of it gets `403` with an
    /// `insufficient_scope` challenge naming them.
    #[must_use]
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = owned(scopes);
        self
    }

    /// The resource's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn into_added(self) -> Result<AddedResource, RegistryError> {
        let template =
            Template::parse(&self.template).map_err(|e| RegistryError::InvalidTemplate {
                template: self.template.clone(),
                message: format!("{}; {}", e.message(), e.help()),
            })?;
        let uri_template = template.to_rfc6570();
        let info = Arc::new(TemplateInfo {
            template: self.template,
            uri_template: uri_template.clone(),
            name: self.name,
            params: template.params().map(str::to_owned).collect(),
            scopes: self.scopes,
        });
        let mut obj = Map::new();
        let key = if template.is_concrete() {
            "uri"
        } else {
            "uriTemplate"
        };
        obj.insert(key.into(), uri_template.into());
        obj.insert("name".into(), info.name.as_str().into());
        if let Some(m) = &self.mime_type {
            obj.insert("mimeType".into(), (**m).into());
        }
        let json = item(obj, self.description.as_ref());
        let (read_fn, mime_type, names) = (self.read, self.mime_type, Arc::clone(&info));
        let read: Reader = Arc::new(move |uri: &str, values, _cx| {
            let params = names
                .params
                .iter()
                .cloned()
                .zip(values.into_iter().map(|v| v.into_owned()));
            let fut = read_fn(params.collect(), uri.to_owned(), mime_type.clone());
            let uri = uri.to_owned();
            Box::pin(async move {
                let contents = fut.await.map_err(Failure::from)?.ok_or_else(|| {
                    Failure::from(crate::error::Error::resource_not_found(uri.as_str()))
                })?;
                crate::resources::contents_body(&contents)
            })
        });
        Ok(AddedResource {
            info,
            template,
            json,
            completions: Vec::new(),
            has_ui: false,
            read,
            watch: None,
        })
    }
}
