//! [`Session`]: the small per-client row phantom keeps.

use std::collections::HashSet;
use std::sync::Arc;

use http::Extensions;
use serde_json::Value;

use crate::protocol::{Implementation, LogLevel, ProtocolVersion};
use crate::store::Owner;

mod list;
mod request;
mod slot;

#[cfg(feature = "fuzzing")]
pub(crate) use list::decode_cursor;
pub(crate) use list::{Added, DEFAULT_PAGE_SIZE, Entry, Found, ListKind, Table, find, paginate};
pub use request::{Request, Transport};
pub use slot::SessionSlot;

/// `{}`, shared: most clients declare no capabilities, and a session needs no copy of its own.
pub(crate) fn empty_capabilities() -> Arc<Value> {
    static EMPTY: std::sync::LazyLock<Arc<Value>> =
        std::sync::LazyLock::new(|| Arc::new(Value::Object(serde_json::Map::new())));
    Arc::clone(&EMPTY)
}

/// An allow-list of names: `None` on the session means "everything is allowed".
pub type AllowList = Arc<HashSet<String>>;

/// One client's session: a small row, not a task.
///
/// Legacy (≤ 2025-11-25) clients keep a session from `initialize` until it ends; modern (2026-07-28)
/// requests each get a fresh session built from the request's `_meta`. `connect` runs on every
/// request and may fill in the principal, assigns and allow-lists.
#[derive(Debug, Clone)]
pub struct Session {
    /// Session id (`Mcp-Session-Id` for legacy HTTP); `None` for modern stateless requests.
    pub id: Option<Arc<str>>,
    /// Who the client is, as `connect` decided (for example the subject of a bearer token).
    pub principal: Option<Arc<str>>,
    /// What the verified bearer token grants (set before `connect` when the server has a
    /// [`BearerAuth`](crate::auth::BearerAuth); `connect` may set it itself, e.g. on stdio). Tools
    /// with `#[tool(scopes = […])]` check it.
    pub auth: Option<Arc<crate::auth::AuthInfo>>,
    /// Typed application data set in `connect`; handlers read it with `session.assigns.get::<T>()`.
    pub assigns: Extensions,
    /// Tools this session may list and call; `None` allows all.
    pub allowed_tools: Option<AllowList>,
    /// Prompts this session may list, get and complete; `None` allows all.
    pub allowed_prompts: Option<AllowList>,
    /// Resource templates (by name) this session may list, read and complete; `None` allows all.
    pub allowed_resource_templates: Option<AllowList>,
    /// Skills this session may list and read; `None` allows all.
    pub allowed_skills: Option<AllowList>,
    /// What the client said about itself (shared: cloning a session does not copy it).
    pub client_info: Option<Arc<Implementation>>,
    /// The client's declared capabilities (`{}` when none; shared like `client_info`).
    pub client_capabilities: Arc<Value>,
    /// The negotiated (legacy) or requested (modern) protocol version.
    pub protocol_version: ProtocolVersion,
    /// Minimum level of `notifications/message` the client wants; `None` sends none.
    pub log_level: Option<LogLevel>,
    /// A legacy request served in stateless mode: nothing about the client outlives the request.
    stateless: bool,
}

impl Default for Session {
    fn default() -> Self {
        Self::new(None, ProtocolVersion::LATEST_LEGACY)
    }
}

impl Session {
    /// A fresh session with no principal, no assigns and no allow-lists.
    pub fn new(id: Option<Arc<str>>, protocol_version: ProtocolVersion) -> Self {
        Self {
            id,
            principal: None,
            auth: None,
            assigns: Extensions::new(),
            allowed_tools: None,
            allowed_prompts: None,
            allowed_resource_templates: None,
            allowed_skills: None,
            client_info: None,
            client_capabilities: empty_capabilities(),
            protocol_version,
            log_level: None,
            stateless: false,
        }
    }

    /// The session of one legacy request in stateless mode: no id, no declared capabilities.
    pub(crate) fn stateless(protocol_version: ProtocolVersion) -> Self {
        Self {
            stateless: true,
            ..Self::new(None, protocol_version)
        }
    }

    /// Whether the session lives for one legacy request only (the HTTP transport's stateless
    /// mode): the client's capabilities are unknown and nothing can be sent to it later.
    pub fn is_stateless(&self) -> bool {
        self.stateless
    }

    /// A session that may list and use nothing until allow-lists say otherwise (set in `connect`).
    pub fn deny_all(&mut self) {
        let none = Self::allow(Vec::<String>::new());
        self.allowed_tools.clone_from(&none);
        self.allowed_prompts.clone_from(&none);
        self.allowed_resource_templates.clone_from(&none);
        self.allowed_skills = none;
    }

    /// Builds an allow-list from names: `session.allowed_tools = Session::allow(["search"])`.
    pub fn allow<I, S>(names: I) -> Option<AllowList>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Some(Arc::new(names.into_iter().map(Into::into).collect()))
    }

    /// Who owns the tasks this request creates, and so who may see them: the principal
    /// `connect` set; without one, the legacy session; without either (a 2026-07-28 request
    /// from a client `connect` did not identify), every such request alike — identify clients in
    /// `connect` to keep their tasks apart.
    pub fn task_owner(&self) -> Owner {
        match (&self.principal, &self.id) {
            (Some(p), _) => Owner::Principal(p.to_string()),
            (None, Some(id)) => Owner::Session(id.to_string()),
            (None, None) => Owner::Anonymous,
        }
    }

    /// Whether the session speaks the modern (stateless) era.
    pub fn is_modern(&self) -> bool {
        self.protocol_version.is_modern()
    }

    /// Whether the client renders MCP Apps (it declared `io.modelcontextprotocol/ui`, with
    /// `text/html;profile=mcp-app` among its `mimeTypes` if it lists any). A tool with a view
    /// answers every client; this tells whether its text should stand on its own.
    pub fn supports_apps(&self) -> bool {
        use crate::protocol::extension;
        let Some(ext) = self
            .client_capabilities
            .get("extensions")
            .and_then(|e| e.get(extension::APPS))
            .filter(|v| v.is_object())
        else {
            return false;
        };
        match ext.get("mimeTypes").and_then(Value::as_array) {
            Some(types) => types
                .iter()
                .any(|t| t.as_str() == Some(extension::APPS_MIME_TYPE)),
            None => true,
        }
    }

    /// Whether the client declared a capability, e.g. `"sampling"` or `"elicitation"`.
    pub fn client_supports(&self, capability: &str) -> bool {
        self.client_capabilities
            .get(capability)
            .is_some_and(|v| !v.is_null())
    }
}

/// The session part of a reply-bus key: the session id (stdio has one session and no id).
pub(crate) fn reply_key(session: &Session) -> &str {
    session.id.as_deref().unwrap_or("")
}

/// [`reply_key`], shared: the session's own id when it has one (no allocation).
pub(crate) fn session_key(session: &Session) -> Arc<str> {
    session.id.clone().unwrap_or_else(|| Arc::from(""))
}

pub(crate) fn allowed(list: &Option<AllowList>, name: &str) -> bool {
    list.as_ref().is_none_or(|l| l.contains(name))
}

#[cfg(test)]
mod tests {
    use super::{Owner, Session};

    #[test]
    fn task_owners_follow_the_principal_then_the_session() {
        let mut session = Session::default();
        assert_eq!(session.task_owner(), Owner::Anonymous);
        session.id = Some(std::sync::Arc::from("s1"));
        assert_eq!(session.task_owner(), Owner::Session("s1".into()));
        session.principal = Some("ada".into());
        assert_eq!(session.task_owner(), Owner::Principal("ada".into()));
    }
}
