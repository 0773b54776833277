//! The rmcp side of the benchmark: the same behaviour as `phantom-echo` (one tool `echo {text}` →
//! one text block, one tool `progress {count}` → that many `notifications/progress` then `done`,
//! one resource template `users://{id}/profile`, and one tool `touch {uri}` announcing an update of
//! that URI to every legacy session subscribed to it and every 2026-07-28 listen following it, and
//! one tool `job {text}` that returns its input from a task of rmcp's `TaskManager`) on
//! rmcp 3.11, served by rmcp's
//! `StreamableHttpService` with a `LocalSessionManager`, mounted at `/mcp` in axum 0.8.
//!
//! | env | values | default | effect |
//! |---|---|---|---|
//! | `MODE` | `stateful` \| `stateless` | `stateful` | legacy sessions, or stateless legacy serving |
//! | `JSON` | `0` \| `1` | `0` | `application/json` replies instead of SSE (stateless only) |
//! | `NODELAY` | `0` \| `1` | `0` | TCP_NODELAY on accepted sockets |
//! | `ADDR` | `host:port` | `127.0.0.1:8931` | listen address |

use axum::serve::ListenerExt as _;
use std::sync::{Arc, Mutex};

use rmcp::{
    ErrorData, Peer, RoleServer, ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{
        CallToolResponse, CallToolResult, ContentBlock, CreateTaskResult, GetTaskParams,
        GetTaskResult, ListResourceTemplatesResult, PaginatedRequestParams,
        ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse,
        ReadResourceResult, ResourceContents, ResourceTemplate, ResourceUpdatedNotificationParam,
        ServerCapabilities, ServerConfig, SubscribeRequestParams, SubscriptionFilter,
    },
    service::{RequestContext, SubscriptionContext, SubscriptionSink},
    task_manager::{TaskManager, TaskOptions},
    tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};

/// Arguments of `echo`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to return.
    text: String,
}

/// Who follows `users://…` resources: legacy sessions (by their peer, with the URI) and
/// 2026-07-28 listens (by their sink, which checks the URI itself). Shared by every session.
#[derive(Debug, Default)]
struct Followers {
    sessions: Mutex<Vec<(String, Peer<RoleServer>)>>,
    listens: Mutex<Vec<SubscriptionSink>>,
}

#[derive(Clone)]
struct Echo {
    tool_router: ToolRouter<Self>,
    followers: Arc<Followers>,
    tasks: TaskManager,
}

/// Arguments of `touch`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct TouchArgs {
    /// The resource that changed.
    uri: String,
}

#[tool_router]
impl Echo {
    fn new(followers: Arc<Followers>, tasks: TaskManager) -> Self {
        Self {
            tool_router: Self::tool_router(),
            followers,
            tasks,
        }
    }

    /// Returns its input from a task kept 10 minutes (the task-creation benchmark).
    #[tool(description = "Returns its input from a task.")]
    fn job(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> CallToolResponse {
        let options = TaskOptions::new().with_ttl_ms(600_000u64);
        let task = self.tasks.spawn(options, move |_| {
            Box::pin(async move { Ok(CallToolResult::success(vec![ContentBlock::text(text)])) })
        });
        CallToolResponse::Task(CreateTaskResult::new(task))
    }

    /// Announces an update of `uri` to its followers, then answers `touched`.
    #[tool(description = "Announces an update of `uri` to its followers.")]
    async fn touch(&self, Parameters(TouchArgs { uri }): Parameters<TouchArgs>) -> CallToolResult {
        let sessions: Vec<_> = {
            let all = self.followers.sessions.lock().expect("followers");
            all.iter()
                .filter(|(u, _)| *u == uri)
                .map(|(_, p)| p.clone())
                .collect()
        };
        let listens = self.followers.listens.lock().expect("followers").clone();
        tokio::spawn(async move {
            for peer in sessions {
                let params = ResourceUpdatedNotificationParam::new(uri.clone());
                let _ = peer.notify_resource_updated(params).await;
            }
            for sink in listens {
                let _ = sink.notify_resource_updated(uri.clone()).await;
            }
        });
        CallToolResult::success(vec![ContentBlock::text("touched")])
    }

    /// Returns its input.
    #[tool(description = "Returns its input.")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(text)])
    }

    /// Reports `count` progress notifications, then answers `done`.
    #[tool(description = "Reports `count` progress notifications, then answers `done`.")]
    async fn progress(
        &self,
        Parameters(ProgressArgs { count }): Parameters<ProgressArgs>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        if let Some(token) = context.meta.get_progress_token() {
            for i in 1..=count {
                let params = ProgressNotificationParam::new(token.clone(), f64::from(i))
                    .with_total(f64::from(count));
                if context.peer.notify_progress(params).await.is_err() {
                    break;
                }
            }
        }
        CallToolResult::success(vec![ContentBlock::text("done")])
    }
}

/// Arguments of `progress`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct ProgressArgs {
    /// How many notifications to send.
    count: u32,
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_tasks()
                .build(),
        )
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks
            .get_task(&request.task_id)
            .map(GetTaskResult::new)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("users://{id}/profile", "user-profile")
                .with_mime_type("text/plain"),
        ]))
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let mut sessions = self.followers.sessions.lock().expect("followers");
        sessions.push((request.uri, context.peer));
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = context.sink().clone();
        self.followers.listens.lock().expect("followers").push(sink);
        context.cancelled().await;
        Ok(())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let id = request
            .uri
            .strip_prefix("users://")
            .and_then(|rest| rest.strip_suffix("/profile"))
            .filter(|id| !id.is_empty() && !id.contains('/'));
        match id {
            Some(id) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(format!("profile of {id}"), request.uri.clone())
                    .with_mime_type("text/plain"),
            ])
            .into()),
            None => Err(ErrorData::resource_not_found(
                format!("no resource at `{}`", request.uri),
                None,
            )),
        }
    }
}

fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == "1")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:8931".into());
    let stateful = std::env::var("MODE").map_or(true, |m| m == "stateful");
    let json = flag("JSON");
    let nodelay = flag("NODELAY");

    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(stateful)
        .with_json_response(json)
        .with_sse_keep_alive(None);
    let followers = Arc::new(Followers::default());
    let tasks = TaskManager::new();
    let service: StreamableHttpService<Echo, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(Echo::new(Arc::clone(&followers), tasks.clone())),
        Default::default(),
        config,
    );
    let app = axum::Router::new().nest_service("/mcp", service);

    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!(
        "rmcp-echo listening on http://{addr}/mcp mode={} json={} nodelay={}",
        if stateful { "stateful" } else { "stateless" },
        u8::from(json),
        u8::from(nodelay),
    );
    if nodelay {
        let listener = listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                eprintln!("rmcp-echo: set_nodelay failed: {e}");
            }
        });
        axum::serve(listener, app).await
    } else {
        axum::serve(listener, app).await
    }
}
