//! `scopes = […]` on resources (templates included), prompts and skills: hidden from the lists of
//! a session whose token does not grant them, and refused with the `403 insufficient_scope`
//! challenge and `-32001` on every way in — `resources/read`, `resources/subscribe`, a listen's
//! `resourceSubscriptions`, `completion/complete`, `prompts/get`, a skill's `SKILL.md`, files and
//! directory — whether declared, added at run time, mounted from another router or served from a
//! gateway's upstream, in both eras.

use std::collections::HashMap;

use http::StatusCode;
use phantom::auth::{AuthInfo, BearerAuth, StaticTokens};
use phantom::dispatch::Dispatcher;
use phantom::gateway::Upstream;
use phantom::http::HttpConfig;
use phantom::prelude::*;
use phantom::registry::{DynamicPrompt, DynamicResource, DynamicSkill};
use phantom::skills::Skill;
use phantom::{Config, prompts::PromptMessage};
use serde_json::{Value, json};

use crate::support::{Call, LEGACY, MODERN, TestServer, modern_request, request};

const METADATA: &str = "http://vault.test/.well-known/oauth-protected-resource";

/// A router whose secrets need `vault:read`; `vault:///public` needs nothing.
#[derive(Clone, Default)]
struct Vault;

#[mcp_router(name = "vault", version = "1.0.0")]
impl Vault {
    /// What anyone may read.
    #[resource("vault:///public")]
    async fn public(&self) -> String {
        "open".into()
    }

    /// The secret.
    #[resource("vault:///secret", scopes = ["vault:read"])]
    async fn secret(&self) -> String {
        "s3cret".into()
    }

    /// A secret by id.
    #[resource("vault:///secrets/<id>", scopes = ["vault:read"])]
    async fn secrets(&self, #[complete(with = "Self::ids")] id: String) -> String {
        format!("secret {id}")
    }

    /// Reveals a secret.
    #[prompt(scopes = ["vault:read"])]
    async fn reveal(&self, #[complete(with = "Self::ids")] id: String) -> Vec<PromptMessage> {
        vec![PromptMessage::user(format!("Reveal {id}"))]
    }

    /// How to unseal the vault.
    #[skill("skill://vault/unseal", scopes = ["vault:read"])]
    async fn unseal(&self) -> Skill {
        Skill::new("unseal", "How to unseal the vault").file("steps.md", "1. Turn.\n")
    }

    async fn ids(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        ["7", "8"]
            .into_iter()
            .filter(|v| v.starts_with(value))
            .map(str::to_owned)
            .collect()
    }
}

/// A front with nothing of its own.
#[derive(Clone, Default)]
struct Front;

#[mcp_router(name = "front", version = "1.0.0")]
impl Front {}

/// `reader` grants `vault:list` only, `keeper` `vault:read`.
fn config() -> Config {
    let tokens = StaticTokens::new()
        .token("reader", AuthInfo::new("ada").scopes(["vault:list"]))
        .token("keeper", AuthInfo::new("ada").scopes(["vault:read"]));
    Config::default().with_bearer_auth(BearerAuth::new(tokens).resource_metadata(METADATA))
}

/// The scoped entries one server serves, by the names and URIs it serves them under.
struct Scoped {
    resource: (&'static str, &'static str),
    template: (&'static str, &'static str),
    prompt: &'static str,
    /// A skill's directory URI, when the server serves one.
    skill: Option<&'static str>,
    /// Whether the prompt and template have completion functions.
    completes: bool,
}

/// Declared, or added at run time under the same names.
const VAULT: Scoped = Scoped {
    resource: ("secret", "vault:///secret"),
    template: ("secrets", "vault:///secrets/{id}"),
    prompt: "reveal",
    skill: Some("skill://vault/unseal"),
    completes: true,
};

/// One way in: a request that a reader is refused and a keeper is served.
fn ways_in(s: &Scoped) -> Vec<(&'static str, Value)> {
    let (_, uri) = s.resource;
    let (_, template) = s.template;
    let mut ways = vec![
        ("resources/read", json!({"uri": uri})),
        (
            "resources/read",
            json!({"uri": template.replace("{id}", "7")}),
        ),
        (
            "prompts/get",
            json!({"name": s.prompt, "arguments": {"id": "7"}}),
        ),
    ];
    if s.completes {
        ways.extend([
            (
                "completion/complete",
                json!({
                    "ref": {"type": "ref/prompt", "name": s.prompt},
                    "argument": {"name": "id", "value": "7"},
                }),
            ),
            (
                "completion/complete",
                json!({
                    "ref": {"type": "ref/resource", "uri": template},
                    "argument": {"name": "id", "value": "7"},
                }),
            ),
        ]);
    }
    if let Some(dir) = s.skill {
        ways.extend([
            ("skills/get", json!({"uri": format!("{dir}/SKILL.md")})),
            ("resources/read", json!({"uri": format!("{dir}/SKILL.md")})),
            ("resources/read", json!({"uri": format!("{dir}/steps.md")})),
            ("resources/directory/read", json!({"uri": dir})),
        ]);
    }
    ways
}

/// What one token gets, in one era.
struct Asker<'a> {
    server: &'a TestServer,
    token: &'static str,
    /// A legacy session opened with the token; `None`: 2026-07-28 requests.
    session: Option<String>,
}

impl<'a> Asker<'a> {
    async fn new(server: &'a TestServer, token: &'static str, modern: bool) -> Self {
        let session = if modern {
            None
        } else {
            Some(
                server
                    .initialize_with(LEGACY, &format!("Bearer {token}"))
                    .await,
            )
        };
        Self {
            server,
            token,
            session,
        }
    }

    fn call(&self, method: &str, params: Value) -> Call {
        let call = match &self.session {
            Some(session) => self.server.post_in(session, &request(2, method, params)),
            None => self.server.post_modern(method, params),
        };
        call.header("authorization", &format!("Bearer {}", self.token))
    }

    async fn ask(&self, method: &str, params: Value) -> (StatusCode, Option<String>, Value) {
        let reply = self.call(method, params).send().await;
        let challenge = reply.header("www-authenticate").map(str::to_owned);
        (reply.status, challenge, reply.json().await)
    }

    /// The names (or URIs) of a list's items.
    async fn listed(&self, method: &str, key: &str, field: &str) -> Vec<String> {
        let (status, _, body) = self.ask(method, json!({})).await;
        assert_eq!(status, StatusCode::OK, "{method}: {body}");
        body["result"][key]
            .as_array()
            .unwrap_or_else(|| panic!("{method}: {body}"))
            .iter()
            .filter_map(|i| i[field].as_str().map(str::to_owned))
            .collect()
    }

    fn era(&self) -> &'static str {
        if self.session.is_some() {
            LEGACY
        } else {
            MODERN
        }
    }
}

/// Everything a reader and a keeper see of `s` on `server`, in both eras.
async fn check(server: &TestServer, s: &Scoped, what: &str) {
    for modern in [false, true] {
        let reader = Asker::new(server, "reader", modern).await;
        let keeper = Asker::new(server, "keeper", modern).await;
        let era = reader.era();
        let lists = [
            ("resources/list", "resources", "name", s.resource.0),
            (
                "resources/templates/list",
                "resourceTemplates",
                "name",
                s.template.0,
            ),
            ("prompts/list", "prompts", "name", s.prompt),
        ];
        for (method, key, field, name) in lists {
            let seen = reader.listed(method, key, field).await;
            assert!(
                !seen.iter().any(|n| n == name),
                "{what} {era}: {method} shows a reader `{name}`: {seen:?}"
            );
            let seen = keeper.listed(method, key, field).await;
            assert!(
                seen.iter().any(|n| n == name),
                "{what} {era}: {method} hides `{name}` from a keeper: {seen:?}"
            );
        }
        if let Some(dir) = s.skill {
            let md = format!("{dir}/SKILL.md");
            // `resources/list` appends the `SKILL.md` of declared skills.
            let lists = [("skills/list", "skills"), ("resources/list", "resources")];
            for (method, key) in lists
                .into_iter()
                .take(if what == "declared" { 2 } else { 1 })
            {
                let seen = reader.listed(method, key, "uri").await;
                assert!(
                    !seen.contains(&md),
                    "{what} {era}: {method} shows a reader the skill: {seen:?}"
                );
                let seen = keeper.listed(method, key, "uri").await;
                assert!(
                    seen.contains(&md),
                    "{what} {era}: {method} hides the skill from a keeper: {seen:?}"
                );
            }
        }
        for (method, params) in ways_in(s) {
            let (status, challenge, body) = reader.ask(method, params.clone()).await;
            assert_eq!(
                status,
                StatusCode::FORBIDDEN,
                "{what} {era}: a reader's {method} {params}: {body}"
            );
            let challenge = challenge.unwrap_or_default();
            assert!(
                challenge.starts_with("Bearer error=\"insufficient_scope\"")
                    && challenge.contains("scope=\"vault:read\"")
                    && challenge.contains(METADATA),
                "{what} {era}: {method}: {challenge}"
            );
            assert_eq!(body["error"]["code"], -32001, "{what} {era}: {body}");
            assert_eq!(
                body["error"]["data"],
                json!({"requiredScopes": ["vault:read"]}),
                "{what} {era}: {method}"
            );
            let (status, _, body) = keeper.ask(method, params.clone()).await;
            assert_eq!(
                status,
                StatusCode::OK,
                "{what} {era}: a keeper's {method} {params}: {body}"
            );
            assert!(
                body.get("result").is_some(),
                "{what} {era}: {method}: {body}"
            );
        }
        // What needs no scope is read by both.
        for asker in [&reader, &keeper] {
            let (status, _, body) = asker
                .ask("resources/read", json!({"uri": "vault:///public"}))
                .await;
            assert_eq!(status, StatusCode::OK, "{what} {era}: {body}");
        }
        subscriptions(&reader, &keeper, s, what).await;
    }
}

/// `resources/subscribe` (a legacy session) and a listen's `resourceSubscriptions` (2026-07-28).
async fn subscriptions(reader: &Asker<'_>, keeper: &Asker<'_>, s: &Scoped, what: &str) {
    let uri = s.resource.1;
    match &reader.session {
        Some(_) => {
            let params = json!({"uri": uri});
            let (status, challenge, body) = reader.ask("resources/subscribe", params.clone()).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{what}: subscribe: {body}");
            assert!(
                challenge.is_some_and(|c| c.contains("insufficient_scope")),
                "{what}"
            );
            assert_eq!(body["error"]["code"], -32001, "{what}: {body}");
            let (status, _, body) = keeper.ask("resources/subscribe", params).await;
            assert_eq!(status, StatusCode::OK, "{what}: subscribe: {body}");
        }
        None => {
            let listen = |token: &str| {
                let mut body = modern_request(
                    0,
                    "subscriptions/listen",
                    json!({"notifications": {"resourceSubscriptions": [uri]}}),
                );
                body["id"] = json!("l-1");
                reader
                    .server
                    .post(&body)
                    .header("mcp-protocol-version", MODERN)
                    .header("mcp-method", "subscriptions/listen")
                    .header("authorization", &format!("Bearer {token}"))
            };
            let reply = listen("reader").send().await;
            assert_eq!(reply.status, StatusCode::FORBIDDEN, "{what}: listen");
            let body = reply.json().await;
            assert_eq!(body["error"]["code"], -32001, "{what}: listen: {body}");
            let mut stream = listen("keeper").send().await.sse();
            let ack = loop {
                let event = stream.next().await.expect("the acknowledgement");
                if !event.is_priming() {
                    break event.json();
                }
            };
            assert_eq!(
                ack["params"]["notifications"]["resourceSubscriptions"],
                json!([uri]),
                "{what}: {ack}"
            );
        }
    }
}

#[tokio::test]
async fn declared_scoped_resources_prompts_and_skills_are_hidden_and_refused() {
    let server = TestServer::start_configured(Vault, config(), HttpConfig::default()).await;
    check(&server, &VAULT, "declared").await;
}

#[tokio::test]
async fn scoped_entries_added_at_run_time_are_hidden_and_refused() {
    let dispatcher = Dispatcher::with_config(Front, config());
    let registry = dispatcher.registry();
    let read = ["vault:read"];
    registry
        .add_resource(DynamicResource::new(
            "vault:///public",
            "public",
            |_| async { "open" },
        ))
        .await
        .expect("a free name");
    registry
        .add_resource(
            DynamicResource::new("vault:///secret", "secret", |_| async { "s3cret" }).scopes(read),
        )
        .await
        .expect("a free name");
    registry
        .add_resource(
            DynamicResource::new(
                "vault:///secrets/<id>",
                "secrets",
                |p: HashMap<String, String>| async move { format!("secret {}", p["id"]) },
            )
            .scopes(read),
        )
        .await
        .expect("a free name");
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Reveal {
        id: String,
    }
    registry
        .add_prompt(
            DynamicPrompt::new("reveal", |r: Reveal| async move {
                vec![PromptMessage::user(format!("Reveal {}", r.id))]
            })
            .scopes(read),
        )
        .await
        .expect("a free name");
    registry
        .add_skill(
            DynamicSkill::new("skill://vault/unseal", |_| async {
                Some(Skill::new("unseal", "How to unseal the vault").file("steps.md", "1. Turn.\n"))
            })
            .scopes(read),
        )
        .await
        .expect("a free URI");
    let server = TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await;
    // An added entry has no completion function (and the server then offers no completion).
    let added = Scoped {
        completes: false,
        ..VAULT
    };
    check(&server, &added, "added").await;
}

#[tokio::test]
async fn scoped_entries_of_a_mounted_router_are_hidden_and_refused() {
    let dispatcher = Dispatcher::with_config(Front, config())
        .mount("m", Vault)
        .expect("free names");
    let server = TestServer::start_dispatcher(dispatcher, HttpConfig::default()).await;
    let mounted = Scoped {
        resource: ("m_secret", "vault:///secret"),
        template: ("m_secrets", "vault:///secrets/{id}"),
        prompt: "m_reveal",
        skill: None,
        completes: true,
    };
    check(&server, &mounted, "mounted").await;
}

#[tokio::test]
async fn scoped_entries_of_a_gateways_upstream_are_hidden_and_refused() {
    // The upstream checks its own scopes against the gateway's token; the front checks the
    // scopes it gives the remote entries against its client's.
    let upstream = TestServer::start_configured(Vault, config(), HttpConfig::default()).await;
    let front = Dispatcher::with_config(Front, config());
    Upstream::http(format!("http://{}/mcp", upstream.addr))
        .bearer("keeper")
        .scopes("secret", ["vault:read"])
        .scopes("secrets", ["vault:read"])
        .scopes("reveal", ["vault:read"])
        .mount(&front.registry())
        .await
        .expect("mounted");
    let server = TestServer::start_dispatcher(front, HttpConfig::default()).await;
    let remote = Scoped {
        skill: None,
        ..VAULT
    };
    check(&server, &remote, "gateway").await;
}
