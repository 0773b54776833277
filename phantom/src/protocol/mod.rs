//! Wire types shared by both protocol eras: JSON-RPC envelope, error codes, versions, metadata.

pub(crate) mod cache;
pub(crate) mod descriptor;
mod elicit;
pub(crate) mod jsonrpc;
mod method;
mod model;
pub(crate) mod sampling;
pub(crate) mod scan;
mod target;
pub(crate) mod task;
pub(crate) mod time;
mod version;

pub(crate) use descriptor::MetaValue;
pub use elicit::{ElicitAction, ElicitRequest, ElicitResult};
pub(crate) use jsonrpc::Incoming;
pub(crate) use jsonrpc::nests_deeper_than;
pub use jsonrpc::{ErrorObject, RequestId, codes};
pub(crate) use jsonrpc::{Key, Members, Params, raw_str};
pub(crate) use method::Capability;
pub use method::Method;
#[cfg(feature = "http")]
pub(crate) use method::NameField;
pub use model::{
    Prompt, PromptArgument, Resource, ResourceTemplate, SkillEntry, SkillFile, SkillFiles, Tool,
    ToolAnnotations, ToolHints,
};
pub use sampling::{CreateMessageRequest, CreateMessageResult, SamplingMessage};
pub(crate) use target::{Target, TargetMember};
pub use version::ProtocolVersion;

/// The two protocol eras one endpoint serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: `initialize`, sessions, server→client requests.
    Legacy,
    /// 2026-07-28: stateless requests, each carrying its version and capabilities in `_meta`.
    Modern,
}

/// The names of the extensions phantom speaks, as clients declare them and servers advertise them.
pub(crate) mod extension {
    /// MCP Apps.
    pub(crate) const APPS: &str = "io.modelcontextprotocol/ui";
    /// The MIME type of an app's view.
    pub(crate) const APPS_MIME_TYPE: &str = "text/html;profile=mcp-app";
}

pub(crate) mod meta {
    pub(crate) const VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    pub(crate) const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}

use serde::{Deserialize, Serialize};

/// `Implementation`: the name and version a client or server reports about itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Home page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

/// An icon for a server, tool, prompt, resource or template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// MIME type of the image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `48x48`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// `light` or `dark`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// Log levels of `logging/setLevel` and `notifications/message`, in RFC 5424 order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}
