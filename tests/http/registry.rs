//! Runtime registration and composition over real HTTP: prompts and resources added, disabled
//! and removed while the server runs, and routers merged and mounted into one served instance.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use phantom::http::HttpConfig;
use phantom::prelude::*;
use phantom::{
    Config, Notifier,
    dispatch::Dispatcher,
    prompts::PromptMessage,
    registry::{DynamicPrompt, DynamicResource, EntryKind, RegistryError},
};
use serde_json::{Value, json};

use crate::subscriptions::{next_message, open_stream};
use crate::support::{LEGACY, TestServer, first_text, request};

/// The outer router: one tool, one prompt, one resource; `x-only` narrows the tool allow-list.
#[derive(Clone, Default)]
struct Front {
    calls: Arc<AtomicUsize>,
}

#[mcp_router(name = "front", version = "1.0.0")]
impl Front {
    /// Counts its calls.
    #[tool]
    async fn hello(&self) -> String {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        format!("front {n}")
    }

    /// Greets someone.
    #[prompt]
    async fn greet(&self, name: String) -> Vec<PromptMessage> {
        vec![PromptMessage::user(format!("Hello {name}"))]
    }

    /// A page by slug.
    #[resource("front:///pages/<slug>", mime_type = "text/plain")]
    async fn page(&self, slug: String) -> String {
        format!("page {slug}")
    }

    /// `x-only: a,b` allows only the tools named.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        if let Some(only) = request.header("x-only") {
            session.allowed_tools = Session::allow(only.split(','));
        }
        Connect::Ok
    }
}

/// A second router with its own state, in a module of its own (as it would be in another crate).
mod billing {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use phantom::prelude::*;
    use phantom::prompts::PromptMessage;

    /// Bills customers.
    #[derive(Clone, Default)]
    pub(crate) struct Billing {
        pub(crate) charged: Arc<AtomicUsize>,
    }

    #[mcp_router(name = "billing", version = "1.0.0")]
    impl Billing {
        /// Charges an amount; keeps the total in this router's own state.
        #[tool]
        async fn charge(&self, cents: usize) -> String {
            let total = self.charged.fetch_add(cents, Ordering::SeqCst) + cents;
            format!("charged {total}")
        }

        /// An invoice by number.
        #[resource("billing:///invoices/<number>", mime_type = "text/plain")]
        async fn invoice(&self, number: u32) -> String {
            format!("invoice {number}")
        }

        /// Drafts a reminder.
        #[prompt]
        async fn reminder(&self, customer: String) -> Vec<PromptMessage> {
            vec![PromptMessage::user(format!("Remind {customer}"))]
        }
    }
}

use billing::Billing;

/// A router whose tool name clashes with `Front`'s.
#[derive(Clone, Default)]
struct Clash;

#[mcp_router(name = "clash", version = "1.0.0")]
impl Clash {
    /// Clashes with `Front::hello`.
    #[tool]
    async fn hello(&self) -> &'static str {
        "clash"
    }
}

fn names(list: &Value, key: &str) -> Vec<String> {
    list["result"][key]
        .as_array()
        .unwrap_or_else(|| panic!("a {key} array in {list}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn post(server: &TestServer, session: &str, id: u64, method: &str, params: Value) -> Value {
    let body = request(id, method, params);
    server.post_in(session, &body).send().await.json().await
}

#[tokio::test]
async fn merged_and_mounted_routers_dispatch_both_halves_with_their_own_state() {
    let front = Front::default();
    let billing = Billing::default();
    let dispatcher = Dispatcher::new(front.clone())
        .mount("billing", billing.clone())
        .expect("free names");
    // A conflict is an `Err` when the combined router is built, and nothing of it is merged.
    let clash = dispatcher.clone().merge(Clash);
    assert!(
        matches!(&clash, Err(RegistryError::Duplicate { kind: EntryKind::Tool, name }) if name == "hello"),
        "{clash:?}"
    );
    // Prefixed tool names obey the tool-name rule.
    let spaced = dispatcher.clone().mount("has space", Clash);
    assert!(
        matches!(
            &spaced,
            Err(RegistryError::InvalidName {
                kind: EntryKind::Tool,
                ..
            })
        ),
        "{spaced:?}"
    );
    // The same templates twice collide.
    let twice = dispatcher.clone().mount("again", Billing::default());
    assert!(
        matches!(&twice, Err(RegistryError::Collision { .. })),
        "{twice:?}"
    );
    let server = TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;

    let tools = post(&server, &session, 2, "tools/list", json!({})).await;
    assert_eq!(names(&tools, "tools"), ["hello", "billing_charge"]);
    assert_eq!(
        tools["result"]["tools"][1]["inputSchema"]["properties"]["cents"]["type"], "integer",
        "{tools}"
    );
    let prompts = post(&server, &session, 3, "prompts/list", json!({})).await;
    assert_eq!(names(&prompts, "prompts"), ["greet", "billing_reminder"]);
    let templates = post(&server, &session, 4, "resources/templates/list", json!({})).await;
    assert_eq!(
        names(&templates, "resourceTemplates"),
        ["page", "billing_invoice"]
    );

    // Both halves dispatch, each on its own state.
    let call = |name: &str, args: Value| json!({"name": name, "arguments": args});
    let front_said = post(&server, &session, 5, "tools/call", call("hello", json!({}))).await;
    assert_eq!(first_text(&front_said["result"]), "front 1");
    let charge = call("billing_charge", json!({"cents": 250}));
    let charged = post(&server, &session, 6, "tools/call", charge.clone()).await;
    assert_eq!(first_text(&charged["result"]), "charged 250", "{charged}");
    let charged = post(&server, &session, 7, "tools/call", charge).await;
    assert_eq!(first_text(&charged["result"]), "charged 500");
    assert_eq!(billing.charged.load(Ordering::SeqCst), 500);
    assert_eq!(front.calls.load(Ordering::SeqCst), 1);
    // The mounted tool's argument checks still apply.
    let bad = call("billing_charge", json!({"cents": "lots"}));
    let bad = post(&server, &session, 8, "tools/call", bad).await;
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    // Under the inner name the mounted tool is unknown.
    let inner_name = post(
        &server,
        &session,
        9,
        "tools/call",
        call("charge", json!({})),
    )
    .await;
    assert_eq!(inner_name["error"]["code"], -32602, "{inner_name}");

    let reminder = json!({"name": "billing_reminder", "arguments": {"customer": "Ada"}});
    let got = post(&server, &session, 10, "prompts/get", reminder).await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"], "Remind Ada",
        "{got}"
    );
    let read = json!({"uri": "billing:///invoices/42"});
    let read = post(&server, &session, 11, "resources/read", read).await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "invoice 42",
        "{read}"
    );
    assert_eq!(read["result"]["contents"][0]["mimeType"], "text/plain");

    // The 2026-07-28 era reaches the mounted half too.
    let modern = server
        .post_modern("tools/call", call("billing_charge", json!({"cents": 1})))
        .send()
        .await
        .json()
        .await;
    assert_eq!(first_text(&modern["result"]), "charged 501", "{modern}");

    // The outer `connect` decides the allow-list, by the final (prefixed) names.
    let limited = server
        .post(&crate::support::initialize_request(LEGACY))
        .header("x-only", "billing_charge")
        .send()
        .await;
    let limited_session = limited.session_id().expect("a session");
    let list = server
        .post_in(&limited_session, &request(12, "tools/list", json!({})))
        .header("x-only", "billing_charge")
        .send()
        .await
        .json()
        .await;
    assert_eq!(names(&list, "tools"), ["billing_charge"]);
    let hidden = server
        .post_in(
            &limited_session,
            &request(13, "tools/call", call("hello", json!({}))),
        )
        .header("x-only", "billing_charge")
        .send()
        .await
        .json()
        .await;
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");
}

#[tokio::test]
async fn prompts_and_resources_added_at_run_time_are_listed_served_and_announced() {
    let notifier = Notifier::new();
    let dispatcher =
        Dispatcher::with_config(Front::default(), Config::default().notifier(notifier));
    let registry = dispatcher.registry();
    let server = TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let mut get = open_stream(&server, &session).await;

    /// The topic of an essay.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Topic {
        /// What to write about.
        topic: String,
        /// How long, in words.
        words: Option<String>,
    }
    let essay = DynamicPrompt::new("essay", |args: Topic| async move {
        let words = args.words.unwrap_or_else(|| "500".into());
        vec![PromptMessage::user(format!(
            "{words} words on {}",
            args.topic
        ))]
    })
    .description("Asks for an essay");
    registry.add_prompt(essay).await.expect("a free name");
    let changed = next_message(&mut get).await;
    assert_eq!(changed["method"], "notifications/prompts/list_changed");
    let prompts = post(&server, &session, 2, "prompts/list", json!({})).await;
    assert_eq!(names(&prompts, "prompts"), ["greet", "essay"]);
    let listed = &prompts["result"]["prompts"][1];
    assert_eq!(listed["description"], "Asks for an essay");
    assert_eq!(
        listed["arguments"],
        json!([
            {"name": "topic", "required": true, "description": "What to write about."},
            {"name": "words", "required": false, "description": "How long, in words."},
        ])
    );
    let get_essay = |args: Value| json!({"name": "essay", "arguments": args});
    let got = post(
        &server,
        &session,
        3,
        "prompts/get",
        get_essay(json!({"topic": "rust"})),
    )
    .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"], "500 words on rust",
        "{got}"
    );
    let missing = post(&server, &session, 4, "prompts/get", get_essay(json!({}))).await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert!(
        missing["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("topic")),
        "{missing}"
    );

    // A template and a concrete resource.
    let drafts = DynamicResource::new(
        "front:///drafts/<id>",
        "draft",
        |params: HashMap<String, String>| async move { format!("draft {}", params["id"]) },
    )
    .mime_type("text/markdown");
    registry
        .add_resource(drafts)
        .await
        .expect("a free template");
    let changed = next_message(&mut get).await;
    assert_eq!(changed["method"], "notifications/resources/list_changed");
    let readme = DynamicResource::new("front:///readme", "readme", |_| async { "read me" });
    registry.add_resource(readme).await.expect("a free URI");
    next_message(&mut get).await;

    let templates = post(&server, &session, 5, "resources/templates/list", json!({})).await;
    assert_eq!(names(&templates, "resourceTemplates"), ["page", "draft"]);
    assert_eq!(
        templates["result"]["resourceTemplates"][1]["uriTemplate"],
        "front:///drafts/{id}"
    );
    let concrete = post(&server, &session, 6, "resources/list", json!({})).await;
    assert_eq!(names(&concrete, "resources"), ["readme"]);
    let read = post(
        &server,
        &session,
        7,
        "resources/read",
        json!({"uri": "front:///drafts/7"}),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["text"], "draft 7", "{read}");
    assert_eq!(read["result"]["contents"][0]["mimeType"], "text/markdown");
    let modern = server
        .post_modern("resources/read", json!({"uri": "front:///readme"}))
        .send()
        .await
        .json()
        .await;
    assert_eq!(
        modern["result"]["contents"][0]["text"], "read me",
        "{modern}"
    );

    // Templates are checked as the macro checks declared ones, and collisions are refused.
    let collides = DynamicResource::new("front:///pages/<other>", "pages2", |_| async { "" });
    let collides = registry.add_resource(collides).await;
    assert!(
        matches!(&collides, Err(RegistryError::Collision { other, .. }) if other == "front:///pages/<slug>"),
        "{collides:?}"
    );
    let broken = DynamicResource::new("front:///a/<id", "broken", |_| async { "" });
    let broken = registry.add_resource(broken).await;
    assert!(
        matches!(&broken, Err(RegistryError::InvalidTemplate { .. })),
        "{broken:?}"
    );
    let taken = DynamicResource::new("front:///other", "page", |_| async { "" });
    assert!(matches!(
        registry.add_resource(taken).await,
        Err(RegistryError::Duplicate {
            kind: EntryKind::Resource,
            ..
        })
    ));

    // A disabled declared resource reads as not found and leaves the list.
    registry
        .disable(EntryKind::Resource, "page")
        .await
        .expect("declared");
    next_message(&mut get).await;
    let hidden = post(
        &server,
        &session,
        8,
        "resources/read",
        json!({"uri": "front:///pages/a"}),
    )
    .await;
    assert_eq!(hidden["error"]["code"], -32002, "{hidden}");
    let templates = post(&server, &session, 9, "resources/templates/list", json!({})).await;
    assert_eq!(names(&templates, "resourceTemplates"), ["draft"]);
    registry
        .enable(EntryKind::Resource, "page")
        .await
        .expect("disabled");
    next_message(&mut get).await;
    let back = post(
        &server,
        &session,
        10,
        "resources/read",
        json!({"uri": "front:///pages/a"}),
    )
    .await;
    assert_eq!(back["result"]["contents"][0]["text"], "page a", "{back}");

    // Removed, the prompt is gone from the list and unknown to prompts/get.
    registry
        .remove(EntryKind::Prompt, "essay")
        .await
        .expect("added");
    let changed = next_message(&mut get).await;
    assert_eq!(changed["method"], "notifications/prompts/list_changed");
    let gone = post(
        &server,
        &session,
        11,
        "prompts/get",
        get_essay(json!({"topic": "x"})),
    )
    .await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    let declared = registry.remove(EntryKind::Prompt, "greet").await;
    assert!(
        matches!(&declared, Err(RegistryError::Unknown { hint, .. }) if hint.contains("disabled, not removed")),
        "{declared:?}"
    );
}

#[tokio::test]
async fn skills_added_at_run_time_are_listed_served_and_announced_as_resource_changes() {
    let dispatcher = Dispatcher::with_config(Front::default(), Config::default());
    let registry = dispatcher.registry();
    let server = TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let mut get = open_stream(&server, &session).await;

    let runbook = phantom::registry::DynamicSkill::new("skill://ops/runbook", |_| async {
        Some(
            phantom::skills::Skill::new("runbook", "How to operate the service")
                .file("steps.md", "1. Look.\n"),
        )
    });
    registry.add_skill(runbook).await.expect("a free URI");
    let changed = next_message(&mut get).await;
    assert_eq!(changed["method"], "notifications/resources/list_changed");

    let listed = post(&server, &session, 2, "skills/list", json!({})).await;
    let skills = listed["result"]["skills"]
        .as_array()
        .expect("skills")
        .clone();
    assert_eq!(skills.len(), 1, "{listed}");
    assert_eq!(skills[0]["uri"], "skill://ops/runbook/SKILL.md");
    assert_eq!(skills[0]["resources"].as_array().map(Vec::len), Some(2));
    let file = post(
        &server,
        &session,
        3,
        "resources/read",
        json!({"uri": "skill://ops/runbook/steps.md"}),
    )
    .await;
    assert_eq!(
        file["result"]["contents"][0]["text"], "1. Look.\n",
        "{file}"
    );

    // A URI that collides with a served skill, or a bad name, is refused.
    let again = phantom::registry::DynamicSkill::new("skill://ops/runbook", |_| async {
        None::<phantom::skills::Skill>
    });
    assert!(matches!(
        registry.add_skill(again).await,
        Err(RegistryError::Collision { .. })
    ));
    let bad = phantom::registry::DynamicSkill::new("skill://ops/Run_Book", |_| async {
        None::<phantom::skills::Skill>
    });
    assert!(matches!(
        registry.add_skill(bad).await,
        Err(RegistryError::InvalidTemplate { .. })
    ));

    registry
        .remove_skill("skill://ops/runbook")
        .await
        .expect("added");
    next_message(&mut get).await;
    let gone = post(
        &server,
        &session,
        4,
        "skills/get",
        json!({"uri": "skill://ops/runbook/SKILL.md"}),
    )
    .await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
}
