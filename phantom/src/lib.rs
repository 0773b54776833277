#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod apps;
pub mod auth;
mod completion;
mod content;
mod dispatch;
mod error;
mod extract;
mod input;
mod kernel;
mod prompts;
mod protocol;
mod registry;
mod resources;
mod router;
mod server;
mod session;
mod skills;
pub mod store;
mod subscriptions;
mod tasks;
pub mod telemetry;
pub mod testing;
mod tools;
mod transport;

#[cfg(feature = "http")]
pub use transport::http;
#[cfg(feature = "http")]
pub use transport::http::serve;
pub use transport::stdio;

pub use auth::{Bearer, ProtectedResource, WwwAuthenticate};
pub use completion::{CompleteContext, Completion, IntoCompletion};
pub use content::{Content, ResourceContents};
pub use dispatch::Dispatcher;
pub use error::Error;
pub use extract::{Arguments, CallParam, Context, Ctx, FromContext};
pub use input::{
    Elicit, ElicitUrl, Elicitation, Field, Form, Input, InputKind, InputRequest, Inputs, Root,
    Roots, Sample, Sampled, StateKey, StateKeyError,
};
pub use kernel::{Outbound, Reply, Status};
#[doc = include_str!("docs/mcp_router.md")]
#[doc(inline)]
pub use phantom_macros::mcp_router;
#[doc = include_str!("docs/prompt.md")]
#[doc(inline)]
pub use phantom_macros::prompt;
#[doc = include_str!("docs/resource.md")]
#[doc(inline)]
pub use phantom_macros::resource;
#[doc = include_str!("docs/skill.md")]
#[doc(inline)]
pub use phantom_macros::skill;
#[doc = include_str!("docs/task_handler.md")]
#[doc(inline)]
pub use phantom_macros::task_handler;
#[doc = include_str!("docs/tool.md")]
#[doc(inline)]
pub use phantom_macros::tool;
pub use prompts::{IntoPromptReply, PromptMessage, PromptReply, Role};
pub use protocol::codes;
pub use protocol::{
    Era, ErrorObject, Icon, Implementation, LogLevel, Method, ProtocolVersion, RequestId,
};
pub use registry::{
    DynamicPrompt, DynamicResource, DynamicSkill, DynamicTool, EntryKind, Registry, RegistryError,
};
pub use resources::FromUriParam;
pub use resources::{Blob, Contents, IntoContents, Resource};
pub use router::TemplateInfo;
pub use server::{
    Authorized, CacheScope, Call, Config, Connect, Cursor, Hook, Middleware, Outcome, Page,
    ResolvedResource, Server,
};
pub use session::{AllowList, Request, Session, SessionSlot, Transport};
pub use skills::{IntoSkill, Skill};

/// Compiles a skill directory into the binary: `SKILL.md` (kept byte for byte; its frontmatter
/// `name` must be the directory's name and have a `description`) and every file beside it, with
/// their sha256 digests computed at compile time. The path is relative to the crate's
/// `Cargo.toml`. Changing a file rebuilds the crate; a missing directory, a `SKILL.md` without
/// frontmatter, `name` or `description`, or more than 512 files or 16 MiB is a compile error
/// pointing at the path. (A file *added* to the directory is picked up at the next rebuild of
/// the crate.)
///
/// ```
/// use phantom::prelude::*;
///
/// #[derive(Clone)]
/// struct Studies;
///
/// #[mcp_router(name = "studies", version = "1.0.0")]
/// impl Studies {
///     /// How to review a study.
///     #[skill("skill://studies/study-review")]
///     async fn study_review(&self) -> phantom::Skill {
///         // The `studies` example's skill directory, relative to this crate's `Cargo.toml`.
///         phantom::embed_skill!("../examples/skills/study-review")
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut client = phantom::testing::Client::modern(Studies);
/// let listed = client.request("skills/list", serde_json::json!({})).await;
/// assert_eq!(listed.result()["skills"][0]["uri"], "skill://studies/study-review/SKILL.md");
/// # });
/// ```
#[macro_export]
macro_rules! embed_skill {
    ($dir:literal) => {
        $crate::__private::embed_skill!($crate, $dir)
    };
}
pub use subscriptions::{Change, Notifier};
pub use tasks::{Task, TaskError, TaskStatus};
pub use tools::{IntoToolResult, Json, ToolAnnotations, ToolResult};

/// Everything a router and its callbacks need: `use phantom::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Arguments, Authorized, Bearer, Blob, CompleteContext, Completion, Connect, Content,
        Contents, Ctx, Cursor, Elicit, ElicitUrl, Elicitation, Error, ErrorObject, Field, Form,
        Implementation, InputKind, Json, LogLevel, Notifier, Page, PromptMessage, PromptReply,
        Request, ResolvedResource, Resource, ResourceContents, Role, Roots, Sample, Server,
        Session, Status, Task, TaskError, TaskStatus, ToolResult, Transport, WwwAuthenticate,
        mcp_router, prompt, resource, skill, task_handler, tool,
    };
}

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod __fuzz;
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
