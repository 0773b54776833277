//! The static tables `#[mcp_router]` generates, and what phantom builds from them once per router.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::kernel::{Failure, unknown};
use crate::protocol::{Icon, Implementation};
use crate::resources::uri::{Matcher, Template};
use crate::resources::{Resource, TemplateInfo};
use crate::server::{Callback, Cursor, Overrides, Page};
use crate::session::Session;
use crate::session::{AllowList, allowed};

mod page;
mod portable;
mod schema;

use crate::prompts::{PromptDef, PromptEntry};
use crate::protocol::MetaValue;
use crate::resources::{ResourceDef, ResourceEntry};
use crate::skills::{SkillDef, SkillEntry};
use crate::tools::validator::Validator;
use crate::tools::{ToolDef, ToolEntry};
#[cfg(feature = "fuzzing")]
pub(crate) use page::decode_cursor as decode_cursor_for_fuzzing;
pub(crate) use page::{ListKind, paginate};
use portable::portable_descriptor;
use schema::{
    arg_validator, describe_args, generator, has_constraints, input_schema, output_schema,
};

fn meta_map(meta: &[(&'static str, MetaValue)]) -> Map<String, Value> {
    meta.iter()
        .map(|(k, v)| {
            let v = match *v {
                MetaValue::Str(s) => Value::from(s),
                MetaValue::Int(i) => Value::from(i),
                MetaValue::Float(f) => Value::from(f),
                MetaValue::Bool(b) => Value::from(b),
            };
            ((*k).to_owned(), v)
        })
        .collect()
}

fn icons(srcs: &[&'static str]) -> Vec<Icon> {
    srcs.iter()
        .map(|src| Icon {
            src: (*src).to_owned(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        })
        .collect()
}

/// The `#[mcp_router(…)]` attribute values.
#[derive(Debug, Clone)]
pub struct RouterInfo {
    /// `name`.
    pub name: &'static str,
    /// `version`.
    pub version: &'static str,
    /// `title`.
    pub title: Option<&'static str>,
    /// `instructions`.
    pub instructions: Option<&'static str>,
    /// `icons` (sources).
    pub icons: &'static [&'static str],
    /// `website_url`.
    pub website_url: Option<&'static str>,
    /// `tool_timeout`: every tool's time limit unless it sets its own, in milliseconds.
    pub tool_timeout_ms: Option<u64>,
}

impl RouterInfo {
    /// The `serverInfo` object.
    pub fn implementation(&self) -> Implementation {
        Implementation {
            name: self.name.into(),
            version: self.version.into(),
            title: self.title.map(Into::into),
            description: None,
            icons: icons(self.icons),
            website_url: self.website_url.map(Into::into),
        }
    }
}

/// Everything `#[mcp_router]` generates, handed to [`Router::build`] once.
#[allow(missing_debug_implementations, missing_docs)]
pub struct RouterDef<S> {
    pub info: RouterInfo,
    pub tools: Vec<ToolDef<S>>,
    pub prompts: Vec<PromptDef<S>>,
    pub resources: Vec<ResourceDef<S>>,
    pub skills: Vec<SkillDef<S>>,
    /// Names of the callbacks the impl overrides.
    pub overrides: &'static [Callback],
}

/// The router built once from the generated [`RouterDef`]: schemas, validators, serialized list
/// items, name indexes and the URI matcher.
#[allow(missing_debug_implementations)]
pub struct Router<S> {
    /// The `#[mcp_router]` attribute values.
    pub info: RouterInfo,
    pub(crate) tools: Vec<ToolEntry<S>>,
    pub(crate) tool_index: HashMap<&'static str, usize>,
    pub(crate) prompts: Vec<PromptEntry<S>>,
    pub(crate) prompt_index: HashMap<&'static str, usize>,
    pub(crate) resources: Vec<ResourceEntry<S>>,
    pub(crate) matcher: Matcher,
    pub(crate) template_index: HashMap<String, usize>,
    pub(crate) concrete: Vec<usize>,
    pub(crate) templated: Vec<usize>,
    pub(crate) has_completions: bool,
    pub(crate) overrides: Overrides,
    pub(crate) skills: Vec<SkillEntry<S>>,
    /// Matches skill URIs: index `2 i` is skill `i`'s directory, `2 i + 1` a path inside it.
    pub(crate) skill_matcher: Matcher,
}

/// The entry named `name` when the allow-list lets it through.
fn visible<'r, E>(
    index: &HashMap<&'static str, usize>,
    entries: &'r [E],
    allow: &Option<AllowList>,
    name: &str,
) -> Option<&'r E> {
    index
        .get(name)
        .filter(|_| allowed(allow, name))
        .map(|&i| &entries[i])
}

/// A URI resolved against one template, with the parameters it matched (in template order).
pub(crate) fn resolved(
    uri: &str,
    info: &Arc<TemplateInfo>,
    values: Vec<Cow<'_, str>>,
) -> crate::resources::ResolvedResource {
    let params = info
        .params
        .iter()
        .zip(values)
        .map(|(name, value)| (name.clone(), Value::String(value.into_owned())))
        .collect();
    crate::resources::ResolvedResource {
        uri: uri.to_owned(),
        params,
        template: Arc::clone(info),
    }
}

pub(crate) fn raw(value: &impl serde::Serialize) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).expect("descriptor serializes")
}

/// `icons` of a list item, when it has any.
fn put_icons(obj: &mut Map<String, Value>, srcs: &[&'static str]) {
    if !srcs.is_empty() {
        let icons = serde_json::to_value(icons(srcs)).unwrap_or_default();
        obj.insert("icons".into(), icons);
    }
}

fn put(obj: &mut Map<String, Value>, key: &str, value: Option<impl Into<Value>>) {
    if let Some(v) = value {
        obj.insert(key.into(), v.into());
    }
}

impl<S> Router<S> {
    /// Builds schemas, validators, serialized items, indexes and the matcher. Runs once.
    ///
    /// # Panics
    ///
    /// Never for tables `#[mcp_router]` generated: it already rejected what would fail here.
    pub fn build(def: RouterDef<S>) -> Self {
        let mut tools = Vec::with_capacity(def.tools.len());
        for tool in def.tools {
            let (specs, defs, root) = describe_args(tool.args);
            let mut validators: Vec<_> = specs
                .iter()
                .filter_map(|spec| arg_validator(spec, &defs))
                .collect();
            let takes_all = root.is_some();
            let schema = match root {
                Some(root) => {
                    let own_defs = root
                        .get("$defs")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default();
                    if has_constraints(&root, &own_defs, &mut Vec::new())
                        && let Some(v) = Validator::compile(&root)
                    {
                        validators.push(("", v));
                    }
                    root
                }
                None => input_schema(&specs, defs),
            };
            let mut obj = Map::new();
            obj.insert("name".into(), tool.name.into());
            put(&mut obj, "title", tool.title);
            put(&mut obj, "description", tool.description);
            put_icons(&mut obj, tool.icons);
            obj.insert("inputSchema".into(), schema);
            let mut wrap_output = false;
            if let Some(out) = (tool.output)(&mut generator()) {
                let (out, wrap) = output_schema(out);
                wrap_output = wrap;
                obj.insert("outputSchema".into(), out);
            }
            if !tool.annotations.is_empty() {
                let mut ann = serde_json::to_value(tool.annotations).unwrap_or_default();
                if let (Some(title), Some(a)) = (tool.title, ann.as_object_mut()) {
                    a.insert("title".into(), title.into());
                }
                obj.insert("annotations".into(), ann);
            }
            if let Some(task) = tool.task {
                let support = if task.required {
                    "required"
                } else {
                    "optional"
                };
                obj.insert("execution".into(), json!({ "taskSupport": support }));
            }
            let mut meta = meta_map(tool.meta);
            if let Some(ui) = &tool.ui {
                ui.write(&mut meta);
            }
            if !meta.is_empty() {
                obj.insert("_meta".into(), Value::Object(meta));
            }
            let (json, schemars_json) = match portable_descriptor(&obj) {
                Some(portable) => (raw(&portable), Some(raw(&obj))),
                None => (raw(&obj), None),
            };
            tools.push(ToolEntry {
                json,
                schemars_json,
                def: tool,
                specs,
                validators,
                takes_all,
                wrap_output,
            });
        }
        let tool_index = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.def.name, i))
            .collect();

        let mut prompts = Vec::with_capacity(def.prompts.len());
        for prompt in def.prompts {
            let (specs, _, _) = describe_args(prompt.args);
            let mut obj = Map::new();
            obj.insert("name".into(), prompt.name.into());
            put(&mut obj, "title", prompt.title);
            put(&mut obj, "description", prompt.description);
            let args: Vec<Value> = specs
                .iter()
                .map(|s| {
                    let mut a = Map::new();
                    a.insert("name".into(), s.name.into());
                    put(&mut a, "description", s.description);
                    a.insert("required".into(), s.required.into());
                    a.into()
                })
                .collect();
            if !args.is_empty() {
                obj.insert("arguments".into(), args.into());
            }
            put_icons(&mut obj, prompt.icons);
            prompts.push(PromptEntry {
                json: raw(&obj),
                def: prompt,
                specs,
            });
        }
        let prompt_index = prompts
            .iter()
            .enumerate()
            .map(|(i, p)| (p.def.name, i))
            .collect();

        let mut resources = Vec::with_capacity(def.resources.len());
        let mut matcher = Matcher::default();
        let mut template_index = HashMap::new();
        let (mut concrete, mut templated) = (Vec::new(), Vec::new());
        for (i, res) in def.resources.into_iter().enumerate() {
            let template = Template::parse(res.template).expect("template validated by the macro");
            matcher.insert(&template, i);
            let uri_template = template.to_rfc6570();
            let info = Arc::new(TemplateInfo {
                template: res.template.to_owned(),
                uri_template: uri_template.clone(),
                name: res.name.to_owned(),
                params: template.params().map(str::to_owned).collect(),
            });
            let mut obj = Map::new();
            let concrete_uri = template.is_concrete().then(|| uri_template.clone());
            if let Some(uri) = &concrete_uri {
                obj.insert("uri".into(), uri.clone().into());
                concrete.push(i);
            } else {
                obj.insert("uriTemplate".into(), uri_template.clone().into());
                templated.push(i);
            }
            template_index.insert(uri_template, i);
            obj.insert("name".into(), res.name.into());
            put(&mut obj, "title", res.title);
            put(&mut obj, "description", res.description);
            put(&mut obj, "mimeType", res.mime_type);
            if concrete_uri.is_some() {
                put(&mut obj, "size", res.size);
            }
            put_icons(&mut obj, res.icons);
            if let Some(ui) = &res.ui {
                obj.insert("_meta".into(), Value::Object(ui.meta()));
            }
            resources.push(ResourceEntry {
                json: raw(&obj),
                def: res,
                info,
                concrete_uri,
            });
        }
        let has_completions = prompts.iter().any(|p| !p.def.completions.is_empty())
            || resources.iter().any(|r| !r.def.completions.is_empty());
        let mut skill_matcher = Matcher::default();
        let mut skills = Vec::with_capacity(def.skills.len());
        for (i, skill) in def.skills.into_iter().enumerate() {
            let root = Template::parse(skill.template).expect("skill URI validated by the macro");
            let inside = format!("{}/<__phantom_path..>", skill.template);
            let inside = Template::parse(&inside).expect("a rest parameter appended");
            skill_matcher.insert(&root, 2 * i);
            skill_matcher.insert(&inside, 2 * i + 1);
            skills.push(SkillEntry {
                params: root.params().count(),
                segments: root.segments.len(),
                concrete: root.is_concrete(),
                def: skill,
            });
        }
        Self {
            info: def.info,
            tools,
            tool_index,
            prompts,
            prompt_index,
            resources,
            matcher,
            template_index,
            concrete,
            templated,
            has_completions,
            overrides: Overrides::of(def.overrides),
            skills,
            skill_matcher,
        }
    }

    /// The tool named `name`, if the session may see it (a hidden tool reads as unknown).
    pub(crate) fn tool(&self, name: &str, session: &Session) -> Result<&ToolEntry<S>, Failure> {
        visible(&self.tool_index, &self.tools, &session.allowed_tools, name)
            .ok_or_else(|| unknown("tool", "name", name))
    }

    /// The prompt named `name`, if the session may see it (a hidden prompt reads as unknown).
    pub(crate) fn prompt(&self, name: &str, session: &Session) -> Result<&PromptEntry<S>, Failure> {
        visible(
            &self.prompt_index,
            &self.prompts,
            &session.allowed_prompts,
            name,
        )
        .ok_or_else(|| unknown("prompt", "name", name))
    }

    /// The position of the tool named `name`: the routing step of `tools/call`.
    #[doc(hidden)]
    pub fn tool_position(&self, name: &str) -> Option<usize> {
        self.tool_index.get(name).copied()
    }

    /// The resource template a URI matches and its decoded parameters: the routing step of
    /// `resources/read`.
    #[doc(hidden)]
    pub fn match_uri(&self, uri: &str) -> Option<usize> {
        self.matcher.find(uri).map(|m| m.index)
    }

    /// A URI resolved against the resource templates: `(uri, path params, template)`; `None`
    /// when no template matches.
    pub(crate) fn resolve(&self, uri: &str) -> Option<crate::resources::ResolvedResource> {
        let found = self.matcher.find(uri)?;
        let info = &self.resources[found.index].info;
        Some(resolved(uri, info, found.params))
    }

    #[cfg(feature = "http")]
    /// The `(argument, header)` pairs of a tool's `#[arg(header = "…")]` arguments; empty for
    /// unknown tools.
    pub(crate) fn tool_headers(
        &self,
        name: &str,
    ) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        self.tool_index
            .get(name)
            .map(|&i| &self.tools[i].specs)
            .into_iter()
            .flatten()
            .filter_map(|s| s.header.map(|h| (s.name, h)))
    }

    /// Whether the impl overrides the named callback.
    pub(crate) fn overrides(&self, callback: Callback) -> bool {
        self.overrides.contains(callback)
    }

    /// The default `list_resources`: concrete resources, paginated, allow-list applied.
    pub fn concrete_resources(
        &self,
        cursor: Option<&Cursor>,
        session: &Session,
    ) -> Result<Page<Resource>, Error> {
        let page = paginate(
            ListKind::Resources,
            self.concrete
                .iter()
                .map(|&i| (self.resources[i].def.name, &self.resources[i])),
            &session.allowed_resource_templates,
            cursor.map(|c| c.0.as_str()),
            crate::server::DEFAULT_PAGE_SIZE,
        )?;
        let items = page
            .items
            .into_iter()
            .map(|r| Resource {
                uri: r.concrete_uri.clone().unwrap_or_default(),
                name: r.def.name.into(),
                title: r.def.title.map(Into::into),
                description: r.def.description.map(Into::into),
                mime_type: r.def.mime_type.map(Into::into),
                size: r.def.size,
                icons: icons(r.def.icons),
                meta: r.def.ui.map(|ui| ui.meta()),
            })
            .collect();
        Ok(Page {
            items,
            next_cursor: page.next_cursor,
        })
    }
}
