//! The items of MCP's lists and the values both sides read and write: one definition of each
//! wire shape, serialized by the server and deserialized by the client. Members a type does not
//! name are kept in its `other` map where the type has one, and ignored otherwise.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Icon;

/// Tool annotations (hints; clients treat them as untrusted).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// `readOnlyHint`.
    #[serde(
        rename = "readOnlyHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    #[serde(
        rename = "destructiveHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    #[serde(
        rename = "idempotentHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    #[serde(
        rename = "openWorldHint",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// An entry of `resources/list` (and of `resources/directory/read`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// `_meta` (a `ui://` resource's `ui`, for MCP Apps).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// The members this type does not name (`annotations`, extensions' members), as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: Vec::new(),
            meta: None,
            other: Map::new(),
        }
    }
}

/// A tool as `tools/list` describes it.
///
/// `input_schema` is kept verbatim: the client never types or dereferences a server's schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// The name to call it by.
    pub name: String,
    /// A human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// The JSON Schema of its arguments, as sent.
    #[serde(default)]
    pub input_schema: Value,
    /// The JSON Schema of its structured result, if it declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Its hints (`readOnlyHint`, `destructiveHint`, …) and their `title`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolHints>,
    /// How it runs (`{"taskSupport": "optional"}` for a tool that can run as a task).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
    /// `_meta` (an app tool's `ui`, for MCP Apps).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// The members this type does not name, as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Tool {
    /// A tool with a name and the JSON Schema of its arguments.
    pub fn new(name: impl Into<String>, input_schema: Value) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            icons: Vec::new(),
            input_schema,
            output_schema: None,
            annotations: None,
            execution: None,
            meta: None,
            other: Map::new(),
        }
    }
}

/// The `annotations` of a listed [`Tool`]: the hints a server declares ([`ToolAnnotations`]),
/// the `title` the protocol puts beside them, and the members neither names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolHints {
    /// `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`.
    #[serde(flatten)]
    pub hints: ToolAnnotations,
    /// A human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The members this type does not name, as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A prompt as `prompts/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Prompt {
    /// The name to get it by.
    pub name: String,
    /// A human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// The members this type does not name, as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Prompt {
    /// A prompt with a name.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            icons: Vec::new(),
            meta: None,
            other: Map::new(),
        }
    }
}

/// One argument of a listed [`Prompt`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// A human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` needs it (absent means not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// The members this type does not name, as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A resource template as `resources/templates/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceTemplate {
    /// The URI template (RFC 6570).
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of what it reads, if declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// The members this type does not name, as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A skill's listing (`skills/list`, `skills/get`; the Skills extension): the URI of its
/// `SKILL.md`, its frontmatter, and its files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// The frontmatter of its `SKILL.md` (`name`, `description`, …), as JSON.
    #[serde(default)]
    pub frontmatter: Map<String, Value>,
    /// Its files with their digests and sizes, or [`SkillFiles::Dynamic`].
    pub resources: SkillFiles,
    /// The members this type does not name, as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The files a [`SkillEntry`] lists: each with its digest and size, or `"dynamic"` for a skill
/// whose files are known only by reading its directory.
#[derive(Debug, Clone, PartialEq)]
pub enum SkillFiles {
    /// The files, `SKILL.md` among them.
    Files(Vec<SkillFile>),
    /// `"dynamic"`: the files are not listed (read `resources/directory/read`), so they have no
    /// digest or size to check.
    Dynamic,
}

/// The word a [`SkillFiles::Dynamic`] listing is.
const DYNAMIC: &str = "dynamic";

impl Serialize for SkillFiles {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Files(files) => files.serialize(serializer),
            Self::Dynamic => serializer.serialize_str(DYNAMIC),
        }
    }
}

impl<'de> Deserialize<'de> for SkillFiles {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Files(Vec<SkillFile>),
            Word(String),
        }
        match Wire::deserialize(deserializer)? {
            Wire::Files(files) => Ok(Self::Files(files)),
            Wire::Word(word) if word == DYNAMIC => Ok(Self::Dynamic),
            Wire::Word(word) => Err(serde::de::Error::custom(format!(
                "`resources` is a list of files or \"dynamic\", not {word:?}"
            ))),
        }
    }
}

/// One file of a [`SkillEntry`]: its URI, `sha256:<hex>` digest and size in bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillFile {
    /// Its URI.
    pub uri: String,
    /// `sha256:` and the lowercase hex SHA-256 of its bytes.
    pub digest: String,
    /// Its size in bytes.
    pub size: u64,
    /// The members this type does not name, as sent.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}
