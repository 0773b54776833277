//! The [`Server`] trait (the 12 router callbacks with their defaults), and what every callback
//! sees: the [`Session`], the transport [`Request`] and the [`Config`].

mod config;
pub(crate) mod middleware;

pub use crate::kernel::{Cursor, Page};
pub use config::Config;
#[cfg(feature = "fuzzing")]
pub(crate) use config::DEFAULT_JSON_DEPTH;
pub(crate) use middleware::Middleware;

use std::future::Future;

use serde_json::{Map, Value};

use crate::error::Error;
use crate::kernel::WwwAuthenticate;
use crate::protocol::{ErrorObject, Implementation};
use crate::resources::Resource;
use crate::resources::{Authorized, ResolvedResource};
use crate::router::Router;
use crate::session::{Request, Session};
use crate::tasks::{Task, TaskError};

/// What `connect` decides about a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connect {
    /// The request may proceed.
    Ok,
    /// Not authenticated: HTTP 401 with this `WWW-Authenticate` challenge.
    Unauthorized(WwwAuthenticate),
    /// Authenticated but not allowed: HTTP 403 with a message.
    Forbidden(String),
    /// The token lacks these scopes: HTTP 403 with an `insufficient_scope` challenge naming them,
    /// so that the client can ask its authorization server for them (step-up).
    InsufficientScope(Vec<String>),
    /// The session is gone: HTTP 404, the client starts a new session.
    NotFound(String),
    /// Rejected for another reason.
    Error(String),
}

/// The page of `resources/list` that `S`'s declared resources make for `session`: the concrete
/// (parameter-less) resources of its `#[resource]`s, paginated, the session's
/// `allowed_resource_templates` and each resource's scopes applied. For an override of
/// [`Server::list_resources`] that extends the default rather than restating it:
///
/// ```
/// use phantom::prelude::*;
/// use phantom::resources::Resource;
///
/// #[derive(Clone)]
/// struct Desk;
///
/// #[mcp_router(name = "desk", version = "1.0.0")]
/// impl Desk {
///     /// The runbook.
///     #[resource("desk:///runbook")]
///     async fn runbook(&self) -> String {
///         "Page the on-call.".into()
///     }
///
///     async fn list_resources(
///         &self,
///         cursor: Option<Cursor>,
///         session: &Session,
///     ) -> Result<Page<Resource>, Error> {
///         let mut page = phantom::default_resources::<Self>(cursor.as_ref(), session)?;
///         if page.next_cursor.is_none() {
///             page.items.push(Resource::new("desk:///incidents/42", "incident-42"));
///         }
///         Ok(page)
///     }
/// }
/// ```
pub fn default_resources<S: Server>(
    cursor: Option<&Cursor>,
    session: &Session,
) -> Result<Page<Resource>, Error> {
    S::__router().concrete_resources(cursor, session)
}

/// The page of `skills/list` that `S`'s declared skills make for `session`: the `SKILL.md` URIs
/// of its `#[skill]`s without URI parameters, paginated, the session's `allowed_skills` and each
/// skill's scopes applied. For an override of [`Server::list_skills`] that extends the default.
pub fn default_skills<S: Server>(
    cursor: Option<&Cursor>,
    session: &Session,
) -> Result<Page<String>, Error> {
    S::__router().concrete_skills(cursor, session)
}

/// The server side of phantom: implemented by `#[mcp_router]` on your type.
///
/// Every method is a callback with a default. Write a method with the same name and an equivalent
/// signature inside the `#[mcp_router]` impl to override one; the macro moves it here. Callbacks
/// return `Send` futures.
///
/// # Callbacks
///
/// "Legacy" is a 2025-11-25 (or earlier) client with a session, "modern" a 2026-07-28 request.
///
/// | callback | when phantom calls it | default |
/// |---|---|---|
/// | [`connect`](Server::connect) | before serving a message: on legacy `initialize`, then on every later HTTP request of the session (POSTed requests, notifications and client responses, GET, DELETE; another principal gets 404); on every modern request. Over stdio and in the test client a legacy session runs it once, at `initialize` | [`Connect::Ok`] |
/// | [`disconnect`](Server::disconnect) | when a request or stream ends: after every legacy HTTP POST, when a GET stream closes, after a DELETE, after every modern request, at the end of stdio input | nothing |
/// | [`terminate`](Server::terminate) | when the client ends its legacy session: an HTTP `DELETE` (200, or 204 when it fails; the session is forgotten either way), or the end of stdio input | `Ok(())` |
/// | [`instructions`](Server::instructions) | for the `initialize` (legacy) and `server/discover` (modern) results | `instructions = "…"` of `#[mcp_router]` |
/// | [`server_info`](Server::server_info) | for `serverInfo`: in the `initialize` result (legacy), in every result's `_meta` (modern) | `name`, `version`, `title`, … of `#[mcp_router]` |
/// | [`list_resources`](Server::list_resources) | `resources/list` | the parameter-less `#[resource]`s, paginated, allow-list applied |
/// | [`list_skills`](Server::list_skills) | `skills/list`: the `SKILL.md` URIs of one page, each then built as `skills/get` builds it | the `#[skill]`s without URI parameters, paginated, allow-list applied |
/// | [`authorize_resource_subscriptions`](Server::authorize_resource_subscriptions) | legacy `resources/subscribe` (one resource); a 2026-07-28 `subscriptions/listen` as it opens (the resources it asks for); once per open stream per batch of updated resources | every resource |
/// | [`authorize_task_subscriptions`](Server::authorize_task_subscriptions) | a 2026-07-28 `subscriptions/listen` that asks for `taskIds`, as it opens: the ids it may follow (`notifications/tasks` on each change) | the ids `get_task` finds |
/// | [`get_task`](Server::get_task) | `tasks/get`, `tasks/update`, `tasks/cancel` when defined: the app's tasks and its access check (defining it advertises the tasks extension) | the task store's tasks of `#[task_handler]` tools, for their owner |
/// | [`update_task`](Server::update_task) | `tasks/update`, with the answers to the keys the task asks for | acknowledge |
/// | [`cancel_task`](Server::cancel_task) | `tasks/cancel` of a task still running | acknowledge |
pub trait Server: Clone + Send + Sync + 'static {
    /// Runs on every request, before anything else: over HTTP on every POST (requests,
    /// notifications and client responses alike), GET and DELETE; on every 2026-07-28 request
    /// whatever the transport; on stdio once, at `initialize` (one session per process). At
    /// `initialize` the session already carries the id it is opening. Authenticate here; set the
    /// principal, assigns and allow-lists.
    ///
    /// A legacy session belongs to the principal that opened it: a later request whose `connect`
    /// sets another principal (or none where there was one) is answered 404, as if the session
    /// did not exist, and what `connect` decided for it is not kept. Default: [`Connect::Ok`].
    fn connect(
        &self,
        session: &mut Session,
        request: &Request,
    ) -> impl Future<Output = Connect> + Send {
        let _ = (session, request);
        async { Connect::Ok }
    }

    /// Runs when a request or a stream ends: over HTTP after every legacy POST (the session
    /// lives on), when a GET stream closes, after DELETE (following `terminate`), and after every
    /// 2026-07-28 request (whose session lives for that request); on stdio when input ends. It
    /// runs often: keep it cheap. Default: nothing.
    fn disconnect(&self, session: &Session) -> impl Future<Output = ()> + Send {
        let _ = session;
        async {}
    }

    /// Runs when the client ends its session (HTTP DELETE; on stdio when input ends). The session
    /// is forgotten either way; over HTTP an `Err` answers the DELETE with 204 instead of 200.
    fn terminate(&self, session: &Session) -> impl Future<Output = Result<(), Error>> + Send {
        let _ = session;
        async { Ok(()) }
    }

    /// The instructions sent in `initialize` and `server/discover`. Default: `instructions = "…"`.
    fn instructions(&self, session: &Session) -> impl Future<Output = Option<String>> + Send {
        let _ = session;
        async { Self::__router().info.instructions.map(str::to_owned) }
    }

    /// The `serverInfo`. Default: the `name`, `version`, `title`, … of `#[mcp_router]`.
    fn server_info(&self, session: &Session) -> impl Future<Output = Implementation> + Send {
        let _ = session;
        async { Self::__router().info.implementation() }
    }

    /// `resources/list`. Default: the concrete (parameter-less) resources, declared and added at
    /// run time, paginated, the allow-list and scopes applied, then the `SKILL.md` of each skill
    /// without URI parameters. An override replaces all of it; one that only adds entries starts
    /// from [`default_resources`](crate::default_resources) (the declared resources' page, the
    /// allow-list and scopes applied) and extends it.
    fn list_resources(
        &self,
        cursor: Option<Cursor>,
        session: &Session,
    ) -> impl Future<Output = Result<Page<Resource>, Error>> + Send {
        async move { default_resources::<Self>(cursor.as_ref(), session) }
    }

    /// `skills/list`: the `SKILL.md` URIs of one page (`skill://…/<name>/SKILL.md`) and the
    /// cursor of the next. phantom builds each entry as `skills/get` does and leaves out a URI
    /// that serves no skill to the session. Default: every `#[skill]` without URI parameters,
    /// paginated, the session's `allowed_skills` and the skills' scopes applied. An override that
    /// only adds skills starts from [`default_skills`](crate::default_skills) and extends it.
    fn list_skills(
        &self,
        cursor: Option<Cursor>,
        session: &Session,
    ) -> impl Future<Output = Result<Page<String>, Error>> + Send {
        async move { default_skills::<Self>(cursor.as_ref(), session) }
    }

    /// Which resources a session may subscribe to and hear about. Default: all.
    ///
    /// Called with a one-element list on legacy `resources/subscribe` (nothing allowed: the
    /// not-found error), with the requested `resourceSubscriptions` when a 2026-07-28
    /// `subscriptions/listen` opens, and once per open stream for each batch of updated resources
    /// (`Notifier::notify_resources_updated`) before it hears of them. The resources are resolved
    /// against the templates first; unresolved URIs never reach it. Answering with a resource it
    /// was not offered, or panicking, allows none (and is logged).
    fn authorize_resource_subscriptions(
        &self,
        resources: Vec<ResolvedResource>,
        session: &Session,
    ) -> impl Future<Output = Authorized> + Send {
        let _ = session;
        async move { Authorized::Resources(resources) }
    }

    /// Which task ids a session may follow on a 2026-07-28 `subscriptions/listen`
    /// (`notifications.taskIds`), called once when the listen opens with the ids it asks for
    /// (each once). Ids it answers that were not asked are ignored; a panic allows none. Each
    /// later `notifications/tasks` is sent only if `get_task` (or, without it, the task store's
    /// owner check) still finds the task for the session. Not defined: the ids phantom finds
    /// for the session that way.
    fn authorize_task_subscriptions(
        &self,
        task_ids: Vec<String>,
        session: &Session,
    ) -> impl Future<Output = Vec<String>> + Send {
        async move {
            let mut allowed = Vec::with_capacity(task_ids.len());
            for id in task_ids {
                if self.get_task(&id, session).await.is_ok() {
                    allowed.push(id);
                }
            }
            allowed
        }
    }

    /// Fetches a task for `tasks/get`, `tasks/update` and `tasks/cancel`: when the router
    /// defines it, it is the source of truth and the access check (return
    /// [`TaskError::NotFound`] for a task the session may not see), and the tasks extension is
    /// advertised. To serve the tasks of `#[task_handler]` tools too, give
    /// [`Config::task_store`](crate::Config::task_store) an `Arc` of your store and read it here.
    /// Not defined: the task store's tasks, for the principal that created them. (The default
    /// body answers not found; phantom does not call it.)
    fn get_task(
        &self,
        task_id: &str,
        session: &Session,
    ) -> impl Future<Output = Result<Task, TaskError>> + Send {
        let _ = (task_id, session);
        async { Err(TaskError::NotFound) }
    }

    /// Receives a task's `inputResponses` (`tasks/update`), only those to keys the task (as
    /// `get_task` returned it) asks for; answers for a `#[task_handler]` tool running on this
    /// node reach its handler anyway. Default: acknowledge.
    fn update_task(
        &self,
        task: Task,
        input_responses: Map<String, Value>,
        session: &Session,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = (task, input_responses, session);
        async { Ok(()) }
    }

    /// Cancels a task still running (`tasks/cancel`); a `#[task_handler]` tool's task is stopped
    /// and stored `cancelled` first. Default: acknowledge.
    fn cancel_task(
        &self,
        task: Task,
        session: &Session,
    ) -> impl Future<Output = Result<(), ErrorObject>> + Send {
        let _ = (task, session);
        async { Ok(()) }
    }

    #[doc(hidden)]
    fn __router() -> &'static Router<Self>;
}
