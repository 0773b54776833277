//! The outbound path: a handler's `Ctx` sends progress and log messages before its result, to the
//! clients that asked for them, in both eras; context types work in every handler kind.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
pub(crate) struct Chatty;

#[mcp_router(name = "chatty", version = "1.0.0")]
impl Chatty {
    /// Counts to `n`, reporting progress and logging.
    #[tool]
    async fn count(&self, ctx: Ctx, n: u32) -> String {
        for i in 1..=n {
            ctx.progress(f64::from(i), Some(f64::from(n)), Some("counting"))
                .await;
        }
        ctx.log(LogLevel::Debug, "too detailed").await;
        ctx.log(LogLevel::Warning, json!({"counted": n})).await;
        format!("counted to {n}")
    }

    /// A note that logs, and says who read it.
    #[resource("chatty:///notes/<id>")]
    async fn note(&self, id: u32, ctx: Ctx, bearer: Bearer) -> String {
        ctx.log(LogLevel::Error, "note read").await;
        format!("note {id} for {}", bearer.token())
    }

    /// A prompt that reports progress.
    #[prompt]
    async fn hello(&self, ctx: Ctx, session: &Session) -> PromptReply {
        ctx.progress(1.0, None, None).await;
        PromptReply::default().user(format!("hello {}", session.is_modern()))
    }
}

#[tokio::test]
async fn legacy_progress_and_logs_precede_the_result() {
    let mut client = Client::legacy(Chatty).await;
    client
        .request("logging/setLevel", json!({"level": "info"}))
        .await
        .result();
    let response = client
        .request(
            "tools/call",
            json!({"name": "count", "arguments": {"n": 2}, "_meta": {"progressToken": "t1"}}),
        )
        .await;
    response.assert_tool_text("counted to 2");
    assert_eq!(
        response.notifications,
        vec![
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": {"progressToken": "t1", "progress": 1.0, "total": 2.0, "message": "counting"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": {"progressToken": "t1", "progress": 2.0, "total": 2.0, "message": "counting"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "warning", "data": {"counted": 2}}}),
        ]
    );
}

#[tokio::test]
async fn nothing_is_sent_to_a_client_that_asked_for_nothing() {
    let mut client = Client::legacy(Chatty).await;
    let response = client.call_tool("count", json!({"n": 3})).await;
    response.assert_tool_text("counted to 3");
    assert!(
        response.notifications.is_empty(),
        "{:?}",
        response.notifications
    );
}

#[tokio::test]
async fn modern_requests_set_their_log_level_in_meta() {
    let mut client = Client::modern(Chatty);
    let response = client
        .request(
            "tools/call",
            json!({"name": "count", "arguments": {"n": 1},
                   "_meta": {"io.modelcontextprotocol/logLevel": "debug", "progressToken": 7}}),
        )
        .await;
    response.assert_tool_text("counted to 1");
    let methods: Vec<&str> = response
        .notifications
        .iter()
        .map(|n| n["method"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/message",
            "notifications/message"
        ]
    );
    assert_eq!(response.notifications[0]["params"]["progressToken"], 7);
    assert_eq!(response.notifications[1]["params"]["level"], "debug");
}

#[tokio::test]
async fn context_types_work_in_resources_and_prompts() {
    let mut client = Client::modern(Chatty).header("authorization", "Bearer abc");
    let read = client
        .request(
            "resources/read",
            json!({"uri": "chatty:///notes/4", "_meta": {"io.modelcontextprotocol/logLevel": "error"}}),
        )
        .await;
    read.assert_resource_text("note 4 for abc");
    assert_eq!(read.notifications.len(), 1, "{:?}", read.notifications);

    let mut anonymous = Client::modern(Chatty);
    let refused = anonymous.read_resource("chatty:///notes/4").await;
    refused.assert_error(-32602);
    assert_eq!(refused.error()["data"]["uri"], "chatty:///notes/4");

    let prompt = client
        .request(
            "prompts/get",
            json!({"name": "hello", "_meta": {"progressToken": "p"}}),
        )
        .await;
    assert_eq!(
        prompt.result()["messages"][0]["content"]["text"],
        "hello true"
    );
    assert_eq!(prompt.notifications.len(), 1);
}
