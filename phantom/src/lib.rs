#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod apps;
pub mod auth;
#[cfg(feature = "authz")]
pub mod authz;
#[cfg(feature = "client")]
pub mod client;
pub mod completion;
mod content;
pub mod dispatch;
mod error;
pub mod extract;
#[cfg(feature = "client")]
pub mod gateway;
pub mod input;
mod kernel;
mod logging;
mod node;
pub mod prompts;
pub mod protocol;
pub mod registry;
pub mod resources;
mod router;
mod server;
mod session;
pub mod skills;
pub mod store;
mod subscriptions;
pub mod tasks;
pub mod telemetry;
pub mod testing;
pub mod tools;
mod transport;

#[cfg(feature = "http")]
pub use transport::http;
#[cfg(feature = "http")]
pub use transport::http::serve;
pub use transport::shutdown_signal;
pub use transport::stdio;

/// Middleware: code that runs around every feature request, in both eras
/// ([`Config::middleware`]). [`Method`](crate::protocol::Method) names the requests a
/// [`RateLimit`](crate::middleware::RateLimit) or [`Timeout`](crate::middleware::Timeout)
/// applies to.
pub mod middleware {
    pub use crate::protocol::Method;
    pub use crate::server::middleware::{
        Answer, Attach, Audit, Call, Middleware, Next, Outcome, RateKey, RateLimit, ResponseCache,
        SizeLimit, Timeout,
    };
}

pub use content::Content;
pub use content::Json;
pub use error::Error;
pub use extract::ctx::Ctx;
pub use kernel::BoxFuture;
pub use protocol::cache::CacheScope;
pub use server::{Config, Connect, Cursor, Page, Server, default_resources, default_skills};
pub use session::{AllowList, Request, Session};
pub use store::notifier::Notifier;

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
///     async fn study_review(&self) -> phantom::skills::Skill {
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

/// What handler and callback signatures name: `use phantom::prelude::*;`.
pub mod prelude {
    pub use crate::auth::{Bearer, WwwAuthenticate};
    pub use crate::completion::{CompleteContext, Completion};
    pub use crate::dispatch::Transport;
    pub use crate::extract::Arguments;
    pub use crate::input::{Elicit, ElicitUrl, Elicitation, Field, Form, InputKind, Roots, Sample};
    pub use crate::prompts::{PromptMessage, PromptReply, Role};
    pub use crate::protocol::{ErrorObject, Implementation, LogLevel};
    pub use crate::resources::{
        Authorized, Blob, Contents, ResolvedResource, Resource, ResourceContents,
    };
    pub use crate::skills::Skill;
    pub use crate::tasks::{Task, TaskError, TaskStatus};
    pub use crate::tools::ToolResult;
    pub use crate::{
        Connect, Content, Ctx, Cursor, Error, Json, Notifier, Page, Request, Server, Session,
        mcp_router, prompt, resource, skill, task_handler, tool,
    };
}

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod __fuzz;
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
