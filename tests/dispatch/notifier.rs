//! The notifier an app announces with is the served one: taken from the config it serves with,
//! from the test client, or as a handler parameter. A change published on an in-process bus
//! that no served router uses is logged once at `warn` instead of vanishing.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use phantom::Config;
use phantom::prelude::*;
use phantom::store::{MemoryBus, NotificationBus};
use phantom::testing::Client;
use serde_json::json;

/// An app that keeps a notifier for its background jobs.
#[derive(Clone)]
struct Jobs {
    notifier: Notifier,
}

#[mcp_router(name = "jobs", version = "1.0.0")]
impl Jobs {
    /// Says hello.
    #[tool]
    async fn hello(&self) -> &'static str {
        "hello"
    }
}

/// What the `warn` lines written while a test runs say.
#[derive(Clone, Default)]
pub(crate) struct Logs(Arc<Mutex<Vec<u8>>>);

impl Logs {
    /// Collects this thread's `warn` lines until the guard drops.
    pub(crate) fn capture(&self) -> tracing::subscriber::DefaultGuard {
        let logs = self.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::WARN)
            .with_ansi(false)
            .with_writer(move || logs.clone())
            .finish();
        tracing::subscriber::set_default(subscriber)
    }

    /// What was written so far.
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    fn lost(&self) -> usize {
        self.text().matches("no served router uses").count()
    }
}

impl Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const HEAR: Duration = Duration::from_secs(5);

#[tokio::test]
async fn the_app_announces_with_the_served_notifier_and_listens_hear_it() {
    let logs = Logs::default();
    let _guard = logs.capture();
    let config = Config::default();
    let app = Jobs {
        notifier: config.notifier().clone(),
    };
    let mut client = Client::builder(app.clone()).config(config).modern();
    let mut listen = client.listen(json!({"toolsListChanged": true}));
    listen.next_within(HEAR).await.expect("the acknowledgement");

    // A background job, outside any handler.
    app.notifier.notify_tools_changed().await.unwrap();
    let heard = listen.next_within(HEAR).await.expect("the change");
    assert_eq!(heard["method"], "notifications/tools/list_changed");
    // The client hands out the same notifier.
    client.notifier().notify_tools_changed().await.unwrap();
    let heard = listen.next_within(HEAR).await.expect("the change");
    assert_eq!(heard["method"], "notifications/tools/list_changed");
    assert_eq!(logs.lost(), 0, "nothing was lost");
}

#[tokio::test]
async fn a_change_on_a_notifier_nothing_serves_is_reported_once() {
    let logs = Logs::default();
    let _guard = logs.capture();
    // The mistake: the app's notifier is not the one the server runs with.
    let app = Jobs {
        notifier: Notifier::with_bus(MemoryBus::new()),
    };
    let mut client = Client::builder(app.clone()).modern();
    let mut listen = client.listen(json!({"toolsListChanged": true}));
    listen.next_within(HEAR).await.expect("the acknowledgement");

    app.notifier.notify_tools_changed().await.unwrap();
    app.notifier
        .notify_resource_updated("jobs://1")
        .await
        .unwrap();
    assert_eq!(logs.lost(), 1, "reported, once per notifier");
    assert!(
        listen
            .next_within(Duration::from_millis(150))
            .await
            .is_none(),
        "and indeed unheard"
    );
}

#[tokio::test]
#[allow(deprecated)]
async fn a_notifier_made_on_its_own_is_deprecated_and_reported() {
    let logs = Logs::default();
    let _guard = logs.capture();
    let alone = Notifier::new();
    alone.notify_prompts_changed().await.unwrap();
    assert_eq!(logs.lost(), 1);
}

#[tokio::test]
async fn a_notifier_whose_server_is_gone_is_reported() {
    let logs = Logs::default();
    let _guard = logs.capture();
    let config = Config::default();
    let notifier = config.notifier().clone();
    let client = Client::builder(Jobs {
        notifier: notifier.clone(),
    })
    .config(config)
    .modern();
    notifier.notify_tools_changed().await.unwrap();
    assert_eq!(logs.lost(), 0, "served while the client lives");
    drop(client);
    notifier.notify_tools_changed().await.unwrap();
    assert_eq!(logs.lost(), 1, "nothing serves it any more");
}

/// A bus that stands for a networked one: a worker process may publish on it and serve nothing.
struct Elsewhere(MemoryBus);

impl NotificationBus for Elsewhere {
    fn publish<'a>(
        &'a self,
        change: &'a phantom::store::Change,
    ) -> phantom::BoxFuture<'a, Result<(), phantom::store::StoreError>> {
        self.0.publish(change)
    }

    fn subscribe(&self) -> futures_util::stream::BoxStream<'static, phantom::store::BusEvent> {
        self.0.subscribe()
    }
}

#[tokio::test]
async fn a_worker_publishing_on_a_networked_bus_is_not_reported() {
    let logs = Logs::default();
    let _guard = logs.capture();
    let worker = Notifier::with_bus(Elsewhere(MemoryBus::new()));
    worker.notify_tools_changed().await.unwrap();
    assert_eq!(logs.lost(), 0, "other nodes may serve it");
}
