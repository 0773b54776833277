//! [`Method`]: every JSON-RPC method phantom serves or understands, and what the protocol says
//! about each. No method name is matched as a string anywhere else.

use super::Era;

/// A JSON-RPC method of MCP that phantom serves, understands or sends (requests and
/// notifications).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `initialize` (legacy era).
    Initialize,
    /// `ping`.
    Ping,
    /// `server/discover` (2026-07-28).
    ServerDiscover,
    /// `logging/setLevel` (legacy era: it changes the session).
    LoggingSetLevel,
    /// `tools/list`.
    ToolsList,
    /// `tools/call`.
    ToolsCall,
    /// `prompts/list`.
    PromptsList,
    /// `prompts/get`.
    PromptsGet,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    ResourcesTemplatesList,
    /// `resources/read`.
    ResourcesRead,
    /// `completion/complete`.
    CompletionComplete,
    /// `resources/subscribe` (legacy era).
    ResourcesSubscribe,
    /// `resources/unsubscribe` (legacy era).
    ResourcesUnsubscribe,
    /// `subscriptions/listen` (2026-07-28): a stream of change notifications.
    SubscriptionsListen,
    /// `skills/list` (the Skills extension).
    SkillsList,
    /// `skills/get` (the Skills extension).
    SkillsGet,
    /// `resources/directory/read` (the Skills extension).
    ResourcesDirectoryRead,
    /// `tasks/get` (the Tasks extension).
    TasksGet,
    /// `tasks/update` (the Tasks extension).
    TasksUpdate,
    /// `tasks/cancel` (the Tasks extension).
    TasksCancel,
    /// `notifications/initialized`.
    Initialized,
    /// `notifications/cancelled`.
    Cancelled,
    /// `notifications/progress`.
    Progress,
    /// `notifications/roots/list_changed`.
    RootsListChanged,
    /// `notifications/message` (server to client: a log message).
    LogMessage,
    /// `elicitation/create` (server to client: a form or a URL for the user).
    ElicitationCreate,
    /// `sampling/createMessage` (server to client: an LLM completion).
    SamplingCreateMessage,
    /// `roots/list` (server to client: the client's filesystem roots).
    RootsList,
    /// `notifications/tools/list_changed` (server to client).
    ToolsListChanged,
    /// `notifications/prompts/list_changed` (server to client).
    PromptsListChanged,
    /// `notifications/resources/list_changed` (server to client).
    ResourcesListChanged,
    /// `notifications/resources/updated` (server to client).
    ResourcesUpdated,
    /// `notifications/subscriptions/acknowledged` (server to client, first on a listen stream).
    SubscriptionsAcknowledged,
    /// `notifications/elicitation/complete` (server to client, 2025-11-25: a URL elicitation's
    /// flow ended).
    ElicitationComplete,
    /// `notifications/tasks` (server to client, the Tasks extension: a task's new state on a
    /// listen that follows it).
    TaskNotification,
}

/// Which parameter of a request an `Mcp-Name` header mirrors (2026-07-28 over HTTP).
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameField {
    /// `params.name`.
    Name,
    /// `params.uri`.
    Uri,
    /// `params.taskId` (the Tasks extension).
    TaskId,
}

/// A server capability a method belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Capability {
    Tools,
    Prompts,
    Resources,
    Completions,
    Logging,
}

impl Capability {
    /// Every capability, in the order `initialize` and `server/discover` list them.
    pub(crate) const ALL: [Self; 5] = [
        Self::Tools,
        Self::Prompts,
        Self::Resources,
        Self::Completions,
        Self::Logging,
    ];

    /// The member of `ServerCapabilities`.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Prompts => "prompts",
            Self::Resources => "resources",
            Self::Completions => "completions",
            Self::Logging => "logging",
        }
    }
}

impl Method {
    /// Every method, in the order of the table above.
    pub const ALL: [Self; 36] = [
        Self::Initialize,
        Self::Ping,
        Self::ServerDiscover,
        Self::LoggingSetLevel,
        Self::ToolsList,
        Self::ToolsCall,
        Self::PromptsList,
        Self::PromptsGet,
        Self::ResourcesList,
        Self::ResourcesTemplatesList,
        Self::ResourcesRead,
        Self::CompletionComplete,
        Self::ResourcesSubscribe,
        Self::ResourcesUnsubscribe,
        Self::SubscriptionsListen,
        Self::SkillsList,
        Self::SkillsGet,
        Self::ResourcesDirectoryRead,
        Self::TasksGet,
        Self::TasksUpdate,
        Self::TasksCancel,
        Self::Initialized,
        Self::Cancelled,
        Self::Progress,
        Self::RootsListChanged,
        Self::LogMessage,
        Self::ElicitationCreate,
        Self::SamplingCreateMessage,
        Self::RootsList,
        Self::ToolsListChanged,
        Self::PromptsListChanged,
        Self::ResourcesListChanged,
        Self::ResourcesUpdated,
        Self::SubscriptionsAcknowledged,
        Self::ElicitationComplete,
        Self::TaskNotification,
    ];

    /// The method a wire name names; `None` for a method phantom does not know.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "initialize" => Self::Initialize,
            "ping" => Self::Ping,
            "server/discover" => Self::ServerDiscover,
            "logging/setLevel" => Self::LoggingSetLevel,
            "tools/list" => Self::ToolsList,
            "tools/call" => Self::ToolsCall,
            "prompts/list" => Self::PromptsList,
            "prompts/get" => Self::PromptsGet,
            "resources/list" => Self::ResourcesList,
            "resources/templates/list" => Self::ResourcesTemplatesList,
            "resources/read" => Self::ResourcesRead,
            "completion/complete" => Self::CompletionComplete,
            "resources/subscribe" => Self::ResourcesSubscribe,
            "resources/unsubscribe" => Self::ResourcesUnsubscribe,
            "subscriptions/listen" => Self::SubscriptionsListen,
            "skills/list" => Self::SkillsList,
            "skills/get" => Self::SkillsGet,
            "resources/directory/read" => Self::ResourcesDirectoryRead,
            "tasks/get" => Self::TasksGet,
            "tasks/update" => Self::TasksUpdate,
            "tasks/cancel" => Self::TasksCancel,
            "notifications/initialized" => Self::Initialized,
            "notifications/cancelled" => Self::Cancelled,
            "notifications/progress" => Self::Progress,
            "notifications/roots/list_changed" => Self::RootsListChanged,
            "notifications/message" => Self::LogMessage,
            "elicitation/create" => Self::ElicitationCreate,
            "sampling/createMessage" => Self::SamplingCreateMessage,
            "roots/list" => Self::RootsList,
            "notifications/tools/list_changed" => Self::ToolsListChanged,
            "notifications/prompts/list_changed" => Self::PromptsListChanged,
            "notifications/resources/list_changed" => Self::ResourcesListChanged,
            "notifications/resources/updated" => Self::ResourcesUpdated,
            "notifications/subscriptions/acknowledged" => Self::SubscriptionsAcknowledged,
            "notifications/elicitation/complete" => Self::ElicitationComplete,
            "notifications/tasks" => Self::TaskNotification,
            _ => return None,
        })
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Initialize => "initialize",
            Self::Ping => "ping",
            Self::ServerDiscover => "server/discover",
            Self::LoggingSetLevel => "logging/setLevel",
            Self::ToolsList => "tools/list",
            Self::ToolsCall => "tools/call",
            Self::PromptsList => "prompts/list",
            Self::PromptsGet => "prompts/get",
            Self::ResourcesList => "resources/list",
            Self::ResourcesTemplatesList => "resources/templates/list",
            Self::ResourcesRead => "resources/read",
            Self::CompletionComplete => "completion/complete",
            Self::ResourcesSubscribe => "resources/subscribe",
            Self::ResourcesUnsubscribe => "resources/unsubscribe",
            Self::SubscriptionsListen => "subscriptions/listen",
            Self::SkillsList => "skills/list",
            Self::SkillsGet => "skills/get",
            Self::ResourcesDirectoryRead => "resources/directory/read",
            Self::TasksGet => "tasks/get",
            Self::TasksUpdate => "tasks/update",
            Self::TasksCancel => "tasks/cancel",
            Self::Initialized => "notifications/initialized",
            Self::Cancelled => "notifications/cancelled",
            Self::Progress => "notifications/progress",
            Self::RootsListChanged => "notifications/roots/list_changed",
            Self::LogMessage => "notifications/message",
            Self::ElicitationCreate => "elicitation/create",
            Self::SamplingCreateMessage => "sampling/createMessage",
            Self::RootsList => "roots/list",
            Self::ToolsListChanged => "notifications/tools/list_changed",
            Self::PromptsListChanged => "notifications/prompts/list_changed",
            Self::ResourcesListChanged => "notifications/resources/list_changed",
            Self::ResourcesUpdated => "notifications/resources/updated",
            Self::SubscriptionsAcknowledged => "notifications/subscriptions/acknowledged",
            Self::ElicitationComplete => "notifications/elicitation/complete",
            Self::TaskNotification => "notifications/tasks",
        }
    }

    /// Whether the method is a notification (no reply).
    pub fn is_notification(self) -> bool {
        matches!(
            self,
            Self::Initialized
                | Self::Cancelled
                | Self::Progress
                | Self::RootsListChanged
                | Self::LogMessage
                | Self::ToolsListChanged
                | Self::PromptsListChanged
                | Self::ResourcesListChanged
                | Self::ResourcesUpdated
                | Self::SubscriptionsAcknowledged
                | Self::ElicitationComplete
                | Self::TaskNotification
        )
    }

    /// Whether the method exists in `era`: 2026-07-28 removed `initialize`, `ping`,
    /// `logging/setLevel` and `resources/subscribe` / `unsubscribe`, and added `server/discover`
    /// and `subscriptions/listen`.
    pub fn in_era(self, era: Era) -> bool {
        match self {
            Self::Initialize
            | Self::Ping
            | Self::LoggingSetLevel
            | Self::Initialized
            | Self::ResourcesSubscribe
            | Self::ResourcesUnsubscribe => era == Era::Legacy,
            Self::ServerDiscover | Self::SubscriptionsListen => era == Era::Modern,
            _ => true,
        }
    }

    /// Whether the method answers with a stream of messages before its result whatever its
    /// params say (`subscriptions/listen`).
    #[cfg(feature = "http")]
    pub(crate) fn streams(self) -> bool {
        self == Self::SubscriptionsListen
    }

    /// Whether a 2026-07-28 result carries cache hints (`ttlMs`, `cacheScope`).
    pub(crate) fn cacheable(self) -> bool {
        matches!(
            self,
            Self::ServerDiscover
                | Self::ToolsList
                | Self::PromptsList
                | Self::ResourcesList
                | Self::ResourcesTemplatesList
                | Self::ResourcesRead
                | Self::SkillsList
                | Self::SkillsGet
                | Self::ResourcesDirectoryRead
        )
    }

    /// The parameter an `Mcp-Name` header must mirror, for the methods that have one.
    #[cfg(feature = "http")]
    pub(crate) fn name_field(self) -> Option<NameField> {
        match self {
            Self::ToolsCall | Self::PromptsGet => Some(NameField::Name),
            Self::ResourcesRead => Some(NameField::Uri),
            Self::TasksGet | Self::TasksUpdate | Self::TasksCancel => Some(NameField::TaskId),
            _ => None,
        }
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in Method::ALL {
            assert_eq!(Method::parse(m.as_str()), Some(m));
        }
        assert_eq!(Method::parse("tools/cal"), None);
    }
}
