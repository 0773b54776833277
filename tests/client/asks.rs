//! The client's `on_roots` and `on_sample` handlers answer a phantom server's `roots/list` and
//! `sampling/createMessage`, in a legacy session and in 2026-07-28 rounds; an explicit cancel
//! (`Client::cancellable`) stops a call and the server's handler; `on_progress` and `on_log`
//! hear a call's progress and log messages; `close` ends a legacy session (DELETE).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use phantom::client::{Client, ClientError, Era};
use phantom::http::HttpConfig;
use phantom::input::{Root, Sample, Sampled};
use phantom::prelude::*;
use phantom::protocol::{CreateMessageRequest, ErrorObject};
use serde_json::json;

use crate::support::TestServer;

/// Asks the client for its roots, and its model for a word; waits to be cancelled.
#[derive(Clone, Default)]
struct Asker {
    stopped: Arc<AtomicBool>,
}

#[mcp_router(name = "asker", version = "1.0.0")]
impl Asker {
    /// The client's roots, by name.
    #[tool]
    async fn roots(&self, ctx: Ctx) -> String {
        let roots = ctx.roots("roots").await;
        roots
            .iter()
            .map(|r| format!("{}={}", r.name.as_deref().unwrap_or("?"), r.uri))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// One word from the client's model.
    #[tool]
    async fn word(&self, ctx: Ctx) -> String {
        let sampled = ctx
            .sample(Sample::new("word", 5).user("Say one word"))
            .await;
        format!(
            "{}: {}",
            sampled.model,
            sampled.content["text"].as_str().unwrap_or("?")
        )
    }

    /// Counts to three, with progress and a log message.
    #[tool]
    async fn count(&self, ctx: Ctx) -> String {
        for i in 1..=3 {
            ctx.progress(f64::from(i), Some(3.0), None).await;
        }
        ctx.log(LogLevel::Info, "counted").await;
        "3".into()
    }

    /// Waits a minute unless cancelled.
    #[tool]
    async fn wait(&self, ctx: Ctx) -> String {
        let stopped = Arc::clone(&self.stopped);
        tokio::spawn(async move {
            ctx.cancelled().await;
            stopped.store(true, Ordering::SeqCst);
        });
        tokio::time::sleep(Duration::from_secs(60)).await;
        "waited".into()
    }
}

#[tokio::test]
async fn roots_and_sampling_are_answered_by_the_handlers_in_both_eras() {
    let server = TestServer::start_with(Asker::default(), HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let client = Client::http(&format!("http://{}/mcp", server.addr))
            .era(era)
            .on_roots(|| async {
                vec![
                    Root {
                        uri: "file:///src".into(),
                        name: Some("src".into()),
                    },
                    Root {
                        uri: "file:///docs".into(),
                        name: Some("docs".into()),
                    },
                ]
            })
            .on_sample(|request: CreateMessageRequest| async move {
                let asked = request.messages[0].as_text().unwrap_or("?").to_owned();
                Ok::<_, ErrorObject>(Sampled {
                    role: "assistant".into(),
                    model: "echo-model".into(),
                    content: json!({"type": "text", "text": format!("heard {asked}")}),
                    stop_reason: None,
                })
            })
            .connect()
            .await
            .expect("connects");
        let roots = client.call_tool("roots", json!({})).await.expect("roots");
        assert_eq!(
            roots.text_content(),
            "src=file:///src,docs=file:///docs",
            "{era:?}: the on_roots handler's answer"
        );
        let word = client.call_tool("word", json!({})).await.expect("word");
        assert_eq!(
            word.text_content(),
            "echo-model: heard Say one word",
            "{era:?}: the on_sample handler's answer"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn an_explicit_cancel_stops_the_call_and_the_servers_handler() {
    for era in [Era::Legacy, Era::Modern] {
        let asker = Asker::default();
        let stopped = Arc::clone(&asker.stopped);
        let server = TestServer::start_with(asker, HttpConfig::default()).await;
        let client = Client::http(&format!("http://{}/mcp", server.addr))
            .era(era)
            .connect()
            .await
            .expect("connects");
        let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let _ = cancel.send(());
        });
        let started = std::time::Instant::now();
        let outcome = client
            .cancellable(client.call_tool("wait", json!({})), async {
                let _ = cancelled.await;
            })
            .await;
        assert!(
            matches!(outcome, Err(ClientError::Cancelled)),
            "{era:?}: {outcome:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(10), "{era:?}");
        for _ in 0..100 {
            if stopped.load(Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            stopped.load(Ordering::SeqCst),
            "{era:?}: the server's handler heard the cancellation"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn progress_and_logs_reach_their_listeners_and_close_ends_the_session() {
    let server = TestServer::start_with(Asker::default(), HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let progress = Arc::new(std::sync::Mutex::new(Vec::new()));
        let logs = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (p, l) = (Arc::clone(&progress), Arc::clone(&logs));
        let client = Client::http(&format!("http://{}/mcp", server.addr))
            .era(era)
            .on_progress(move |params| p.lock().unwrap().push(params["progress"].clone()))
            .log_level("info")
            .on_log(move |params| l.lock().unwrap().push(params["data"].clone()))
            .connect()
            .await
            .expect("connects");
        let counted = client.call_tool("count", json!({})).await.expect("count");
        assert_eq!(counted.text_content(), "3", "{era:?}");
        assert_eq!(
            *progress.lock().unwrap(),
            vec![json!(1.0), json!(2.0), json!(3.0)],
            "{era:?}: on_progress heard each step"
        );
        assert_eq!(
            *logs.lock().unwrap(),
            vec![json!("counted")],
            "{era:?}: on_log heard the message"
        );
        let session = client.session_id();
        client.close().await;
        if era == Era::Legacy {
            let session = session.expect("a legacy session");
            let body = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
            let after = server.post_in(&session, &body).send().await;
            assert_eq!(
                after.status.as_u16(),
                404,
                "close sent DELETE: the session is gone"
            );
        }
    }
}
