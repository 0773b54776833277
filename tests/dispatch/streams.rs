//! What a client hears besides its replies, through the test kit: a 2025-11-25 session's own
//! stream (`Client::stream`, what its HTTP GET stream carries) hears updates of the resources it
//! subscribed to, list changes it may see and the end of its URL elicitations; a 2026-07-28
//! client has none and is pointed to `Client::listen`, whose filter is checked by the kit (the
//! server ignores keys it does not know, `tests/http/subscriptions.rs`).

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use phantom::Config;
use phantom::prelude::*;
use phantom::testing::{Client, Listen};
use serde_json::{Value, json};

/// How long a test waits for a message that must come.
const WAIT: Duration = Duration::from_secs(5);
/// How long a test waits to be sure nothing more arrives.
const QUIET: Duration = Duration::from_millis(150);

#[derive(Clone)]
struct Watch;

#[mcp_router(name = "watch", version = "1.0.0")]
impl Watch {
    /// Announces that the tool list changed.
    #[tool]
    async fn change_tools(&self, notifier: Notifier) -> &'static str {
        notifier
            .notify_tools_changed()
            .await
            .expect("the in-memory bus");
        "announced"
    }

    /// A greeting.
    #[prompt]
    async fn hello(&self) -> String {
        "hello".into()
    }

    /// One item by id.
    #[resource("watch:///items/<id>", mime_type = "text/plain")]
    async fn item(&self, id: u64) -> String {
        format!("item {id}")
    }
}

fn item(id: u64) -> String {
    format!("watch:///items/{id}")
}

/// A legacy client of `Watch` and the notifier its server announces changes with.
async fn legacy() -> (Client<Watch>, Notifier) {
    let config = Config::default();
    let notifier = config.notifier().clone();
    let client = Client::builder(Watch).config(config).legacy().await;
    (client, notifier)
}

async fn next(stream: &mut Listen) -> Value {
    stream.next_within(WAIT).await.expect("a message in time")
}

async fn subscribe(client: &mut Client<Watch>, method: &str, uri: &str) {
    let reply = client.request(method, json!({ "uri": uri })).await;
    assert_eq!(reply.result(), &json!({}), "{method} {uri}");
}

/// The text of a panic raised by `f`.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = std::panic::catch_unwind(AssertUnwindSafe(f)).expect_err("a panic");
    match payload.downcast::<String>() {
        Ok(text) => *text,
        Err(payload) => (*payload.downcast::<&str>().expect("a text payload")).to_owned(),
    }
}

#[tokio::test]
async fn a_session_stream_hears_updates_of_the_resources_it_subscribed_to_and_no_others() {
    let (mut client, notifier) = legacy().await;
    let mut stream = client.stream();
    // Subscribed after the stream opened: each change reads the session's subscriptions then.
    subscribe(&mut client, "resources/subscribe", &item(1)).await;

    notifier
        .notify_resources_updated([item(2), item(1)])
        .await
        .expect("the in-memory bus");
    assert_eq!(
        next(&mut stream).await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": item(1)}})
    );
    assert_eq!(
        stream.next_within(QUIET).await,
        None,
        "`{}` was never subscribed to",
        item(2)
    );

    subscribe(&mut client, "resources/unsubscribe", &item(1)).await;
    not_heard(
        &notifier,
        &mut stream,
        &format!("`{}` is unsubscribed", item(1)),
    )
    .await;
}

/// An update of item 1 that `stream` must not hear, for the reason `why`.
async fn not_heard(notifier: &Notifier, stream: &mut Listen, why: &str) {
    notifier
        .notify_resource_updated(item(1))
        .await
        .expect("the in-memory bus");
    assert_eq!(stream.next_within(QUIET).await, None, "{why}");
}

#[tokio::test]
async fn a_session_stream_hears_the_list_changes_its_session_may_see() {
    let (mut client, notifier) = legacy().await;
    let mut stream = client.stream();

    // From a handler, as an app announces a change it made.
    client
        .call_tool("change_tools", json!({}))
        .await
        .assert_tool_text("announced");
    assert_eq!(
        next(&mut stream).await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    notifier
        .notify_prompts_changed()
        .await
        .expect("the in-memory bus");
    assert_eq!(
        next(&mut stream).await["method"],
        "notifications/prompts/list_changed"
    );
    notifier
        .notify_resources_changed()
        .await
        .expect("the in-memory bus");
    assert_eq!(
        next(&mut stream).await["method"],
        "notifications/resources/list_changed"
    );

    // A session that may see no tool does not hear that the tool list changed; the stream sees
    // the session as it was when it opened.
    let session = client.session_mut().expect("an initialized session");
    session.allowed_tools = Session::allow(Vec::<String>::new());
    let mut denied = client.stream();
    notifier
        .notify_tools_changed()
        .await
        .expect("the in-memory bus");
    assert_eq!(
        next(&mut stream).await["method"],
        "notifications/tools/list_changed"
    );
    assert_eq!(denied.next_within(QUIET).await, None);
}

#[tokio::test]
async fn a_session_stream_hears_the_end_of_its_own_url_elicitations_only() {
    let (mut client, notifier) = legacy().await;
    let mut stream = client.stream();
    // The session's id, as a handler reads it; an in-process session has none, like a stdio one.
    let session = client.session_mut().expect("an initialized session");
    let id = session.id.as_deref().unwrap_or_default().to_owned();
    assert_eq!(id, "");

    notifier
        .notify_elicitation_complete("another-session", "e0")
        .await
        .expect("the in-memory bus");
    notifier
        .notify_elicitation_complete(id, "e1")
        .await
        .expect("the in-memory bus");
    assert_eq!(
        next(&mut stream).await,
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
               "params": {"elicitationId": "e1"}}),
        "the other session's elicitation is not heard here"
    );
}

#[tokio::test]
async fn a_modern_client_has_no_session_stream_and_is_pointed_to_listen() {
    let client = Client::modern(Watch);
    let message = panic_message(|| drop(client.stream()));
    assert_eq!(
        message,
        "a 2026-07-28 client has no session stream\n\
         help: open a `subscriptions/listen` with `Client::listen` to hear changes"
    );

    let mut legacy = Client::legacy(Watch).await;
    let message = panic_message(|| drop(legacy.listen(json!({"toolsListChanged": true}))));
    assert_eq!(
        message,
        "2025-11-25 has no `subscriptions/listen`\n\
         help: a legacy session hears changes on its own stream: `Client::stream`"
    );
}

#[tokio::test]
async fn listen_refuses_a_filter_key_the_protocol_does_not_define_and_names_the_keys() {
    let mut client = Client::modern(Watch);
    let keys = "(its keys are `toolsListChanged`, `promptsListChanged`, \
                `resourcesListChanged`, `resourceSubscriptions`, `taskIds`)";

    // The params' shape, where the filter itself is expected: the server would ignore the key
    // and acknowledge nothing.
    let message = panic_message(|| {
        drop(client.listen(json!({"notifications": {"taskIds": ["t1"]}})));
    });
    assert_eq!(
        message,
        format!(
            "`listen` filter has a key `notifications` that `subscriptions/listen` does not \
             define {keys}\nhelp: pass the filter itself, e.g. `json!({{\"taskIds\": [id]}})`: \
             `listen` sends it as `params.notifications`"
        )
    );

    let message = panic_message(|| drop(client.listen(json!({"tools_list_changed": true}))));
    assert_eq!(
        message,
        format!(
            "`listen` filter has a key `tools_list_changed` that `subscriptions/listen` does not \
             define {keys}\nhelp: did you mean `toolsListChanged`?"
        )
    );

    let message = panic_message(|| drop(client.listen(json!({"everything": true}))));
    assert!(
        message.ends_with(
            "help: a server ignores a key it does not know, so the listen would not hear of it"
        ),
        "{message}"
    );

    // The filter itself is sent as it is, and acknowledged.
    let mut listen = client.listen(json!({"toolsListChanged": true}));
    let ack = next(&mut listen).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
}

/// A subscription store whose batched answer fails (mode 1), or has a flag too many (mode 2).
struct Faulty {
    inner: phantom::store::MemorySubscriptions,
    mode: std::sync::atomic::AtomicU8,
}

impl phantom::store::SubscriptionStore for Faulty {
    fn add<'a>(
        &'a self,
        session: &'a str,
        uri: &'a str,
    ) -> phantom::BoxFuture<'a, Result<(), phantom::store::StoreError>> {
        self.inner.add(session, uri)
    }

    fn remove<'a>(
        &'a self,
        session: &'a str,
        uri: &'a str,
    ) -> phantom::BoxFuture<'a, Result<bool, phantom::store::StoreError>> {
        self.inner.remove(session, uri)
    }

    fn subscribed<'a>(
        &'a self,
        session: &'a str,
        uris: &'a [String],
    ) -> phantom::BoxFuture<'a, Result<Vec<String>, phantom::store::StoreError>> {
        self.inner.subscribed(session, uris)
    }

    fn forget<'a>(
        &'a self,
        session: &'a str,
    ) -> phantom::BoxFuture<'a, Result<(), phantom::store::StoreError>> {
        self.inner.forget(session)
    }

    fn subscribed_each<'a>(
        &'a self,
        sessions: &'a [&'a str],
        uris: &'a [String],
    ) -> phantom::BoxFuture<'a, Result<Vec<bool>, phantom::store::StoreError>> {
        match self.mode.load(std::sync::atomic::Ordering::SeqCst) {
            1 => Box::pin(std::future::ready(Err(
                phantom::store::StoreError::unavailable("the store is down"),
            ))),
            2 => Box::pin(async move {
                let mut flags = self.inner.subscribed_each(sessions, uris).await?;
                flags.push(true);
                Ok(flags)
            }),
            _ => self.inner.subscribed_each(sessions, uris),
        }
    }
}

#[tokio::test]
async fn a_failing_or_wrong_subscription_store_delivers_no_update_and_keeps_the_stream() {
    let store = std::sync::Arc::new(Faulty {
        inner: phantom::store::MemorySubscriptions::new(),
        mode: std::sync::atomic::AtomicU8::new(0),
    });
    let config = Config::default().with_subscriptions(std::sync::Arc::clone(&store));
    let notifier = config.notifier().clone();
    let mut client = Client::builder(Watch).config(config).legacy().await;
    let mut stream = client.stream();
    subscribe(&mut client, "resources/subscribe", &item(1)).await;

    for (mode, what) in [(1, "fails"), (2, "answers a flag too many")] {
        store.mode.store(mode, std::sync::atomic::Ordering::SeqCst);
        let why = format!("no update is delivered when the store {what}");
        not_heard(&notifier, &mut stream, &why).await;
    }

    // The stream is still open: a list change and, with the store back, the update arrive.
    notifier
        .notify_prompts_changed()
        .await
        .expect("the in-memory bus");
    assert_eq!(
        next(&mut stream).await["method"],
        "notifications/prompts/list_changed"
    );
    store.mode.store(0, std::sync::atomic::Ordering::SeqCst);
    notifier
        .notify_resource_updated(item(1))
        .await
        .expect("the in-memory bus");
    assert_eq!(
        next(&mut stream).await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": item(1)}})
    );
}
