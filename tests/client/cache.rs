//! `ResponseCache` over real HTTP in both eras: a repeated read or read-only call does not run
//! the handler, another principal's does, `notify_resource_updated` drops a cached read, a list
//! change drops the cached list, and the `ttlMs` a 2026-07-28 client sees is the entry's remaining
//! life.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use phantom::Config;
use phantom::auth::{AuthInfo, BearerAuth, StaticTokens};
use phantom::client::{Client, Era};
use phantom::http::HttpConfig;
use phantom::middleware::ResponseCache;
use phantom::prelude::*;
use serde_json::json;

use crate::support::TestServer;

/// Counts what its handlers run.
#[derive(Clone, Default)]
struct Counted {
    reads: Arc<AtomicUsize>,
    lookups: Arc<AtomicUsize>,
    lists: Arc<AtomicUsize>,
}

#[mcp_router(name = "counted", version = "1.0.0")]
impl Counted {
    /// A document.
    #[resource("docs:///pages/<id>", mime_type = "text/plain")]
    async fn page(&self, id: u64) -> Option<String> {
        let n = self.reads.fetch_add(1, Ordering::SeqCst) + 1;
        Some(format!("page {id}, read {n}"))
    }

    /// A read-only lookup.
    #[tool(read_only)]
    async fn lookup(&self, q: String) -> String {
        let n = self.lookups.fetch_add(1, Ordering::SeqCst) + 1;
        format!("{q}: {n}")
    }

    /// Not cached.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    async fn list_resources(
        &self,
        _cursor: Option<Cursor>,
        _session: &Session,
    ) -> Result<Page<Resource>, Error> {
        self.lists.fetch_add(1, Ordering::SeqCst);
        Ok(Page::last(vec![Resource::new("docs:///pages/1", "page 1")]))
    }
}

fn tokens() -> BearerAuth {
    BearerAuth::new(
        StaticTokens::new()
            .token("ada-token", AuthInfo::new("ada"))
            .token("bo-token", AuthInfo::new("bo")),
    )
}

async fn client(server: &TestServer, era: Era, token: &str) -> Client {
    Client::http(&format!("http://{}/mcp", server.addr))
        .era(era)
        .bearer(token)
        .connect()
        .await
        .expect("connects")
}

async fn read(client: &Client, uri: &str) -> serde_json::Value {
    client
        .request("resources/read", json!({"uri": uri}))
        .await
        .expect("read")
}

#[tokio::test]
async fn a_cached_answer_skips_the_handler_per_principal_until_invalidated() {
    for era in [Era::Legacy, Era::Modern] {
        let app = Counted::default();
        let (reads, lookups, lists) = (
            Arc::clone(&app.reads),
            Arc::clone(&app.lookups),
            Arc::clone(&app.lists),
        );
        let config = Config::default()
            .with_bearer_auth(tokens())
            .with_middleware(
                ResponseCache::new()
                    .reads(Duration::from_secs(60))
                    .tool("lookup"),
            );
        let notifier = config.notifier().clone();
        let server = TestServer::start_configured(app, config, HttpConfig::default()).await;
        let ada = client(&server, era, "ada-token").await;
        let bo = client(&server, era, "bo-token").await;
        let uri = "docs:///pages/1";

        let first = read(&ada, uri).await;
        assert_eq!(first["contents"][0]["text"], "page 1, read 1", "{era:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let again = read(&ada, uri).await;
        assert_eq!(
            again["contents"][0]["text"], "page 1, read 1",
            "{era:?}: the second read is the kept answer"
        );
        assert_eq!(
            reads.load(Ordering::SeqCst),
            1,
            "{era:?}: the handler ran once"
        );
        if era == Era::Modern {
            assert_eq!(
                first["ttlMs"], 60_000,
                "{era:?}: a fresh entry's whole life"
            );
            assert_eq!(first["cacheScope"], "private");
            let left = again["ttlMs"].as_u64().expect("ttlMs");
            assert!(
                (50_000..=59_800).contains(&left),
                "{era:?}: the kept answer's ttlMs is its remaining life: {left}"
            );
        } else {
            assert!(
                again.get("ttlMs").is_none(),
                "{era:?}: no cache hints in 2025-11-25: {again}"
            );
        }

        let other = read(&bo, uri).await;
        assert_eq!(
            other["contents"][0]["text"], "page 1, read 2",
            "{era:?}: another principal's read runs the handler"
        );

        notifier.notify_resource_updated(uri).await.expect("notify");
        let fresh = read(&ada, uri).await;
        assert_eq!(
            fresh["contents"][0]["text"], "page 1, read 3",
            "{era:?}: an update drops the kept read"
        );

        for _ in 0..2 {
            let found = ada
                .call_tool("lookup", json!({"q": "x"}))
                .await
                .expect("lookup");
            assert_eq!(found.text_content(), "x: 1", "{era:?}");
        }
        let found = ada
            .call_tool("lookup", json!({"q": "y"}))
            .await
            .expect("lookup");
        assert_eq!(
            found.text_content(),
            "y: 2",
            "{era:?}: other arguments, another entry"
        );
        let theirs = bo
            .call_tool("lookup", json!({"q": "x"}))
            .await
            .expect("lookup");
        assert_eq!(
            theirs.text_content(),
            "x: 3",
            "{era:?}: another principal's call runs"
        );
        assert_eq!(lookups.load(Ordering::SeqCst), 3);

        ada.list_resources(None).await.expect("list");
        ada.list_resources(None).await.expect("list");
        assert_eq!(lists.load(Ordering::SeqCst), 1, "{era:?}: the list is kept");
        notifier.notify_resources_changed().await.expect("notify");
        ada.list_resources(None).await.expect("list");
        assert_eq!(
            lists.load(Ordering::SeqCst),
            2,
            "{era:?}: a list change drops the kept list"
        );
        ada.close().await;
        bo.close().await;
    }
}
