//! Runtime registration and composition over real HTTP: prompts and resources added, disabled
//! and removed while the server runs, and routers merged and mounted into one served instance.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use http::StatusCode;
use phantom::apps::ToolUi;
use phantom::auth::{AuthInfo, BearerAuth, StaticTokens};
use phantom::http::HttpConfig;
use phantom::prelude::*;
use phantom::{
    Config,
    dispatch::Dispatcher,
    prompts::PromptMessage,
    registry::{DynamicPrompt, DynamicResource, DynamicTool, EntryKind, RegistryError},
};
use serde_json::{Value, json};

use crate::subscriptions::{next_message, open_stream};
use crate::support::{Call, LEGACY, Reply, TestServer, first_text, request};

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
    let dispatcher = Dispatcher::with_config(Front::default(), Config::default());
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

// ---------------------------------------------------------------------------------------------
// What a composed or added entry must carry over from its declaration: completions, `Mcp-Param-*`
// headers, scopes and the app view.

/// A router with completion functions, merged or mounted into `Front` (which has none).
mod catalog {
    use phantom::prelude::*;
    use phantom::prompts::PromptMessage;

    #[derive(Clone, Default)]
    pub(crate) struct Catalog;

    #[mcp_router(name = "catalog", version = "1.0.0")]
    impl Catalog {
        /// Paints in a colour.
        #[prompt]
        async fn paint(
            &self,
            #[complete(with = "Self::colours")] colour: String,
        ) -> Vec<PromptMessage> {
            vec![PromptMessage::user(format!("Paint it {colour}"))]
        }

        /// An item by SKU.
        #[resource("catalog:///items/<sku>", mime_type = "text/plain")]
        async fn item(&self, #[complete(with = "Self::skus")] sku: String) -> String {
            format!("item {sku}")
        }

        async fn colours(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
            starting(["red", "rose", "blue"], value)
        }

        async fn skus(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
            starting(["a-1", "a-2", "b-1"], value)
        }
    }

    fn starting<const N: usize>(all: [&str; N], value: &str) -> Vec<String> {
        all.into_iter()
            .filter(|v| v.starts_with(value))
            .map(str::to_owned)
            .collect()
    }
}

use catalog::Catalog;

fn complete_prompt(name: &str, argument: &str, value: &str) -> Value {
    json!({
        "ref": {"type": "ref/prompt", "name": name},
        "argument": {"name": argument, "value": value},
    })
}

fn complete_template(uri: &str, argument: &str, value: &str) -> Value {
    json!({
        "ref": {"type": "ref/resource", "uri": uri},
        "argument": {"name": argument, "value": value},
    })
}

#[tokio::test]
async fn a_merged_routers_prompt_completes() {
    let colours = json!({"values": ["red", "rose"], "total": 2, "hasMore": false});
    let skus = json!({"values": ["a-1", "a-2"], "total": 2, "hasMore": false});
    let template = "catalog:///items/{sku}";

    // What the router answers served on its own.
    let alone = TestServer::start_with(Catalog, HttpConfig::default()).await;
    let session = alone.initialize(LEGACY).await;
    let got = post(
        &alone,
        &session,
        2,
        "completion/complete",
        complete_prompt("paint", "colour", "r"),
    )
    .await;
    assert_eq!(got["result"]["completion"], colours, "{got}");
    let got = post(
        &alone,
        &session,
        3,
        "completion/complete",
        complete_template(template, "sku", "a"),
    )
    .await;
    assert_eq!(got["result"]["completion"], skus, "{got}");
    let modern = alone
        .post_modern(
            "completion/complete",
            complete_prompt("paint", "colour", "r"),
        )
        .send()
        .await
        .json()
        .await;
    assert_eq!(modern["result"]["completion"], colours, "{modern}");

    // The same, merged under its own names and mounted under `shop_` (URIs stay as they are).
    let merged = Dispatcher::new(Front::default())
        .merge(Catalog)
        .expect("free names");
    let mounted = Dispatcher::new(Front::default())
        .mount("shop", Catalog)
        .expect("free names");
    for (dispatcher, prompt) in [(merged, "paint"), (mounted, "shop_paint")] {
        let server = TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await;
        let session = server.initialize(LEGACY).await;
        // The prompt itself is served under that name.
        let get = json!({"name": prompt, "arguments": {"colour": "red"}});
        let got = post(&server, &session, 2, "prompts/get", get).await;
        assert_eq!(
            got["result"]["messages"][0]["content"]["text"], "Paint it red",
            "{prompt}: {got}"
        );

        let by_prompt = complete_prompt(prompt, "colour", "r");
        let by_template = complete_template(template, "sku", "a");
        let legacy = post(
            &server,
            &session,
            3,
            "completion/complete",
            by_prompt.clone(),
        )
        .await;
        assert_eq!(
            legacy["result"]["completion"], colours,
            "legacy {prompt}: {legacy}"
        );
        let legacy = post(
            &server,
            &session,
            4,
            "completion/complete",
            by_template.clone(),
        )
        .await;
        assert_eq!(
            legacy["result"]["completion"], skus,
            "legacy {prompt}'s template: {legacy}"
        );

        for (params, expected) in [(by_prompt, &colours), (by_template, &skus)] {
            let reply = server
                .post_modern("completion/complete", params)
                .send()
                .await;
            assert_eq!(reply.status, StatusCode::OK, "modern {prompt}");
            let modern = reply.json().await;
            assert_eq!(
                modern["result"]["completion"], *expected,
                "modern {prompt}: {modern}"
            );
        }
    }
}

/// A router with an argument mirrored in `Mcp-Param-Region`; `calls` counts handler runs.
#[derive(Clone, Default)]
struct Geo {
    calls: Arc<AtomicUsize>,
}

#[mcp_router(name = "geo", version = "1.0.0")]
impl Geo {
    /// The forecast for a region.
    #[tool]
    async fn forecast(&self, #[arg(header = "Region")] region: String) -> String {
        self.calls.fetch_add(1, Ordering::SeqCst);
        format!("sunny in {region}")
    }
}

/// A 2026-07-28 `tools/call` of `name` for `eu-west-1`, with `Mcp-Param-Region: header` if any.
fn forecast_call(server: &TestServer, name: &str, header: Option<&str>) -> Call {
    let params = json!({"name": name, "arguments": {"region": "eu-west-1"}});
    let call = server.post_modern("tools/call", params);
    match header {
        Some(value) => call.header("mcp-param-region", value),
        None => call,
    }
}

#[tokio::test]
async fn a_merged_tools_param_header_is_checked() {
    let geo = Geo::default();
    let declared = TestServer::start_with(geo.clone(), HttpConfig::default()).await;
    let dispatcher = Dispatcher::new(Front::default())
        .merge(geo.clone())
        .expect("free names")
        .mount("weather", geo.clone())
        .expect("free names");
    let composed = TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await;

    let cases = [
        (
            Some("us-east-1"),
            r#"Header mismatch: Mcp-Param-Region 'us-east-1' != argument `region` "eu-west-1""#,
        ),
        (
            None,
            "Header mismatch: missing Mcp-Param-Region header for argument `region`",
        ),
    ];
    for (header, message) in cases {
        // The declared tool is refused with 400 / -32020 before its handler runs ...
        let reply = forecast_call(&declared, "forecast", header).send().await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "declared, {header:?}"
        );
        let refused = reply.json().await;
        assert_eq!(refused["id"], 1, "{refused}");
        assert_eq!(refused["error"]["code"], -32020, "{refused}");
        assert_eq!(refused["error"]["message"], message, "{refused}");
        // ... and so is the same tool merged, or mounted under a prefix.
        for name in ["forecast", "weather_forecast"] {
            let reply = forecast_call(&composed, name, header).send().await;
            let status = reply.status;
            let body = reply.json().await;
            assert_eq!(
                status,
                StatusCode::BAD_REQUEST,
                "{name}, {header:?}: {body}"
            );
            assert_eq!(body, refused, "{name}, {header:?}");
        }
    }
    assert_eq!(geo.calls.load(Ordering::SeqCst), 0, "no handler may run");

    // A matching header is accepted by all three.
    for (server, name) in [
        (&declared, "forecast"),
        (&composed, "forecast"),
        (&composed, "weather_forecast"),
    ] {
        let reply = forecast_call(server, name, Some("eu-west-1")).send().await;
        assert_eq!(reply.status, StatusCode::OK, "{name}");
        let body = reply.json().await;
        assert_eq!(first_text(&body["result"]), "sunny in eu-west-1", "{body}");
    }
    assert_eq!(geo.calls.load(Ordering::SeqCst), 3);
}

/// The resource metadata URL in `Desk`'s challenges.
const DESK_METADATA: &str = "https://desk.example/.well-known/oauth-protected-resource";

/// A router whose declared tool needs `notes:write`.
#[derive(Clone, Default)]
struct Desk;

#[mcp_router(name = "desk", version = "1.0.0")]
impl Desk {
    /// Publishes a note.
    #[tool(scopes = ["notes:write"])]
    async fn publish(&self, text: String) -> String {
        format!("published {text}")
    }
}

/// The arguments of the added `draft` tool.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Note {
    text: String,
}

/// `reader` grants `notes:read`, `writer` also `notes:write`.
fn desk_config() -> Config {
    let tokens = StaticTokens::new()
        .token("reader", AuthInfo::new("ada").scopes(["notes:read"]))
        .token(
            "writer",
            AuthInfo::new("ada").scopes(["notes:read", "notes:write"]),
        );
    Config::default().with_bearer_auth(BearerAuth::new(tokens).resource_metadata(DESK_METADATA))
}

/// The 403 challenge of `tool` needing `notes:write`.
fn needs_write(tool: &str) -> String {
    format!(
        "Bearer error=\"insufficient_scope\", error_description=\"tool `{tool}` needs the scopes `notes:write`\", scope=\"notes:write\", resource_metadata=\"{DESK_METADATA}\""
    )
}

/// A reply's status, `WWW-Authenticate` and JSON body.
async fn answer(reply: Reply) -> (StatusCode, Option<String>, Value) {
    let challenge = reply.header("www-authenticate").map(str::to_owned);
    (reply.status, challenge, reply.json().await)
}

#[tokio::test]
async fn an_added_tool_honours_scopes() {
    let config = desk_config();
    let dispatcher = Dispatcher::with_config(Desk, config);
    let draft = DynamicTool::new("draft", |note: Note| async move {
        format!("drafted {}", note.text)
    })
    .description("Drafts a note")
    .scopes(["notes:write"]);
    dispatcher
        .registry()
        .add_tool(draft)
        .await
        .expect("a free name");
    let server = TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await;
    let modern = |token: &str, tool: &str| {
        server
            .post_modern(
                "tools/call",
                json!({"name": tool, "arguments": {"text": "hi"}}),
            )
            .header("authorization", &format!("Bearer {token}"))
    };

    // Without the scope, the added tool is refused exactly as the declared one is.
    for tool in ["publish", "draft"] {
        let (status, challenge, body) = answer(modern("reader", tool).send().await).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{tool}: {body}");
        assert_eq!(
            challenge.as_deref(),
            Some(needs_write(tool).as_str()),
            "{tool}"
        );
        assert_eq!(body["id"], 1, "{body}");
        assert_eq!(body["error"]["code"], -32001, "{tool}: {body}");
        assert_eq!(
            body["error"]["data"],
            json!({"requiredScopes": ["notes:write"]}),
            "{tool}"
        );
    }
    // With it, both run.
    for (tool, said) in [("publish", "published hi"), ("draft", "drafted hi")] {
        let (status, _, body) = answer(modern("writer", tool).send().await).await;
        assert_eq!(status, StatusCode::OK, "{tool}: {body}");
        assert_eq!(first_text(&body["result"]), said);
    }

    // The same in a legacy session opened with the reader's token.
    let opened = server
        .post(&crate::support::initialize_request(LEGACY))
        .header("authorization", "Bearer reader")
        .send()
        .await;
    assert_eq!(opened.status, StatusCode::OK, "initialize");
    let session = opened.session_id().expect("a session id");
    let _ = opened.text().await;
    let acked = server
        .post_in(
            &session,
            &crate::support::notification("notifications/initialized"),
        )
        .header("authorization", "Bearer reader")
        .send()
        .await;
    assert_eq!(acked.status, StatusCode::ACCEPTED);
    for (id, tool) in [(2, "publish"), (3, "draft")] {
        let body = request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": {"text": "x"}}),
        );
        let reply = server
            .post_in(&session, &body)
            .header("authorization", "Bearer reader")
            .send()
            .await;
        let (status, challenge, body) = answer(reply).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "legacy {tool}: {body}");
        assert_eq!(
            challenge.as_deref(),
            Some(needs_write(tool).as_str()),
            "legacy {tool}"
        );
        assert_eq!(body["error"]["code"], -32001, "legacy {tool}: {body}");
    }
}

/// A router with a declared app tool and its `ui://` view.
#[derive(Clone, Default)]
struct Cards;

#[mcp_router(name = "cards", version = "1.0.0")]
impl Cards {
    /// Shows a card.
    #[tool(ui = "ui://cards/card", visibility = ["model", "app"])]
    async fn show(&self, id: u64) -> String {
        format!("card {id}")
    }

    /// The card's view.
    #[resource("ui://cards/card")]
    async fn card(&self) -> &'static str {
        "<!doctype html><div id=card></div>"
    }
}

/// The arguments of the added `peek` tool.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct CardId {
    id: u64,
}

#[tokio::test]
async fn an_added_tool_carries_its_ui() {
    let dispatcher = Dispatcher::new(Cards);
    let peek = DynamicTool::new("peek", |card: CardId| async move {
        format!("peeked at card {}", card.id)
    })
    .ui(ToolUi {
        resource_uri: "ui://cards/card",
        visibility: &["model", "app"],
    });
    dispatcher
        .registry()
        .add_tool(peek)
        .await
        .expect("a free name");
    let server = TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await;
    let session = server.initialize(LEGACY).await;
    let legacy = post(&server, &session, 2, "tools/list", json!({})).await;
    let modern = server
        .post_modern("tools/list", json!({}))
        .send()
        .await
        .json()
        .await;

    let expected = json!({
        "ui": {"resourceUri": "ui://cards/card", "visibility": ["model", "app"]},
        "ui/resourceUri": "ui://cards/card",
    });
    for (era, list) in [("legacy", legacy), ("modern", modern)] {
        assert_eq!(names(&list, "tools"), ["show", "peek"], "{era}");
        let tools = &list["result"]["tools"];
        assert_eq!(
            tools[0]["_meta"], expected,
            "{era}: the declared tool: {list}"
        );
        assert_eq!(tools[1]["_meta"], expected, "{era}: the added tool: {list}");
    }
}
