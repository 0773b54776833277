//! The middleware chain over real transports: arguments rewritten and results replaced in
//! order (A, B, C outermost first), a retry, a tool's own middleware, in both eras over HTTP and
//! over stdio (`stdio-server --chain`); a rate limit's `429` and its JSON-RPC error, per
//! principal; a timeout that cuts a slow tool off and tells its `Ctx`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use phantom::Config;
use phantom::auth::{AuthInfo, BearerAuth, StaticTokens};
use phantom::client::{Client, Era};
use phantom::http::HttpConfig;
use phantom::middleware::{RateLimit, Timeout};
use phantom::prelude::*;
use serde_json::json;

use crate::chain::{Chained, config};
use crate::support::TestServer;

async fn exercise(client: &Client, what: &str) {
    let said = client
        .call_tool("say", json!({"text": "hi"}))
        .await
        .expect("say");
    assert_eq!(
        said.text_content(),
        "hi>A>B>C<C<B<A",
        "{what}: in A, B, C; out C, B, A"
    );
    let shouted = client
        .call_tool("shout", json!({"text": "hi"}))
        .await
        .expect("shout");
    assert_eq!(
        shouted.text_content(),
        "HI>A>B>C<C<B<A",
        "{what}: `shout`'s own middleware, innermost"
    );
    let flaky = client.call_tool("flaky", json!({})).await.expect("flaky");
    assert!(!flaky.is_error, "{what}: retried: {flaky:?}");
    assert_eq!(
        flaky.text_content(),
        "call 1 worked<C<B<A",
        "{what}: the retry's answer"
    );
}

#[tokio::test]
async fn the_chain_runs_in_order_retries_and_rewrites_over_http_and_stdio() {
    for era in [Era::Legacy, Era::Modern] {
        let server =
            TestServer::start_configured(Chained::default(), config(), HttpConfig::default()).await;
        let client = Client::http(&format!("http://{}/mcp", server.addr))
            .era(era)
            .connect()
            .await
            .expect("connects");
        exercise(&client, &format!("HTTP {era:?}")).await;
        client.close().await;
        let stdio = Client::stdio(env!("CARGO_BIN_EXE_stdio-server"), ["--chain"])
            .era(era)
            .connect()
            .await
            .expect("starts");
        exercise(&stdio, &format!("stdio {era:?}")).await;
    }
}

/// Echo, for the rate limit; a tool that outlives its time limit, for the timeout.
#[derive(Clone, Default)]
struct Limited {
    told: Arc<AtomicBool>,
}

#[mcp_router(name = "limited", version = "1.0.0")]
impl Limited {
    /// Echo.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    /// Hands its `Ctx` to a task that waits for the cancellation, then takes ten seconds.
    #[tool]
    async fn slow(&self, ctx: Ctx) -> String {
        let told = Arc::clone(&self.told);
        tokio::spawn(async move {
            ctx.cancelled().await;
            told.store(true, Ordering::SeqCst);
        });
        tokio::time::sleep(Duration::from_secs(10)).await;
        "done".into()
    }
}

fn tokens() -> BearerAuth {
    BearerAuth::new(
        StaticTokens::new()
            .token("ada-token", AuthInfo::new("ada"))
            .token("bo-token", AuthInfo::new("bo")),
    )
}

#[tokio::test]
async fn a_rate_limit_refuses_a_burst_with_429_per_principal() {
    for era in ["2025-11-25", "2026-07-28"] {
        let config = Config::default()
            .with_bearer_auth(tokens())
            .with_middleware(RateLimit::per_second(0.01, 2).tool("echo"));
        let server =
            TestServer::start_configured(Limited::default(), config, HttpConfig::default()).await;
        let call = |token: &'static str, id: u64| {
            let params = json!({"name": "echo", "arguments": {"text": "x"}});
            let server = &server;
            async move {
                let auth = format!("Bearer {token}");
                if era == "2026-07-28" {
                    server
                        .post_modern("tools/call", params)
                        .header("authorization", &auth)
                        .send()
                        .await
                } else {
                    let session = server.initialize_with(era, &auth).await;
                    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
                    server
                        .post_in(&session, &body)
                        .header("authorization", &auth)
                        .send()
                        .await
                }
            }
        };
        for id in 1..=2 {
            let ok = call("ada-token", id).await;
            assert_eq!(ok.status, 200, "{era}: call {id} within the burst");
        }
        let refused = call("ada-token", 3).await;
        assert_eq!(refused.status, 429, "{era}: past the burst");
        let retry: u64 = refused
            .header("retry-after")
            .expect("Retry-After")
            .parse()
            .unwrap();
        assert!(retry >= 1, "{era}: Retry-After {retry}");
        let body = refused.json().await;
        assert_eq!(body["error"]["code"], -32000, "{era}: {body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("Rate limit exceeded"),
            "{era}: {message}"
        );
        assert_eq!(
            body["error"]["data"]["rateLimit"]["burst"], 2,
            "{era}: {body}"
        );
        assert_eq!(
            body["error"]["data"]["rateLimit"]["key"], "principal",
            "{era}: {body}"
        );
        let other = call("bo-token", 4).await;
        assert_eq!(
            other.status, 200,
            "{era}: another principal has its own bucket"
        );
    }
}

#[tokio::test]
async fn a_timeout_cuts_a_slow_tool_off_and_its_ctx_hears_it() {
    for era in [Era::Legacy, Era::Modern] {
        let limited = Limited::default();
        let told = Arc::clone(&limited.told);
        let config = Config::default()
            .with_middleware(Timeout::new().tool("slow", Duration::from_millis(200)));
        let server = TestServer::start_configured(limited, config, HttpConfig::default()).await;
        let client = Client::http(&format!("http://{}/mcp", server.addr))
            .era(era)
            .connect()
            .await
            .expect("connects");
        let started = std::time::Instant::now();
        let cut = client
            .call_tool("slow", json!({}))
            .await
            .expect("a tool error result");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{era:?}: cut off"
        );
        assert!(cut.is_error, "{era:?}: {cut:?}");
        assert_eq!(
            cut.text_content(),
            "Tool `slow` timed out after 200ms",
            "{era:?}"
        );
        for _ in 0..100 {
            if told.load(Ordering::SeqCst) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            told.load(Ordering::SeqCst),
            "{era:?}: the handler's Ctx heard the cancellation"
        );
        let next = client
            .call_tool("echo", json!({"text": "after"}))
            .await
            .expect("echo");
        assert_eq!(
            next.text_content(),
            "after",
            "{era:?}: the next call succeeds"
        );
        client.close().await;
    }
}
