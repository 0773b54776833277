//! The routers the dispatch tests run against, and small helpers to build clients and envelopes.

use phantom::Config;
use phantom::prelude::*;
use phantom::testing::Client;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

/// The server name and version every `Lab` result reports.
pub(crate) const LAB_INFO: &str = r#"{"name":"lab","version":"0.3.0","title":"Test lab"}"#;

/// `Lab`'s instructions.
pub(crate) const LAB_INSTRUCTIONS: &str = "Call `echo` first.";

/// A router with every feature: tools of each return kind, prompts with completions, concrete and
/// templated resources (typed, multi-segment), and a `connect` that reads `x-role` and `x-user`.
#[derive(Clone)]
pub(crate) struct Lab;

/// Summary statistics.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Stats {
    count: usize,
    sum: f64,
}

/// A colour.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Color {
    Red,
    Green,
}

/// A page size between 1 and 50.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub(crate) struct Limit(#[schemars(range(min = 1, max = 50))] u8);

/// A member to register.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Member {
    #[schemars(length(min = 2, max = 8))]
    name: String,
    #[schemars(regex(pattern = r"^[A-Z]{3}$"))]
    code: String,
}

/// A team led by a member (constraints one `$ref` deeper).
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Team {
    lead: Member,
}

/// One item of the `lab:///items/<id>` resource.
#[derive(Debug, Serialize)]
pub(crate) struct Item {
    id: u64,
    label: String,
}

#[mcp_router(
    name = "lab",
    version = "0.3.0",
    title = "Test lab",
    instructions = "Call `echo` first."
)]
impl Lab {
    /// Say it back.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    /// Add two integers.
    #[tool]
    fn add(&self, a: i64, b: i64) -> String {
        (a + b).to_string()
    }

    /// Count and sum numbers.
    #[tool]
    async fn stats(&self, values: Vec<f64>) -> Json<Stats> {
        Json(Stats {
            count: values.len(),
            sum: values.iter().sum(),
        })
    }

    /// Count the words of a text (a non-object output).
    #[tool]
    async fn words(&self, text: String) -> Json<u32> {
        Json(u32::try_from(text.split_whitespace().count()).unwrap_or(u32::MAX))
    }

    /// Divide `a` by `b`.
    #[tool]
    async fn divide(&self, a: f64, b: f64) -> Result<String, String> {
        if b == 0.0 {
            Err("division by zero".into())
        } else {
            Ok((a / b).to_string())
        }
    }

    /// Always panics.
    #[tool]
    async fn boom(&self) -> String {
        panic!("secret panic text 4242")
    }

    /// Paint in a colour.
    #[tool]
    async fn paint(&self, color: Color) -> String {
        format!("{color:?}")
    }

    /// List a page of things.
    #[tool]
    async fn page(&self, limit: Limit) -> String {
        format!("limit {}", limit.0)
    }

    /// The top entries, optionally limited.
    #[tool]
    async fn top(
        &self,
        limit: Option<Limit>,
        #[arg(rename = "dryRun")] dry_run: Option<bool>,
    ) -> String {
        format!(
            "top {} (dry run: {})",
            limit.map_or(10, |l| l.0),
            dry_run.unwrap_or(false)
        )
    }

    /// Register a member.
    #[tool]
    async fn register(&self, member: Member) -> String {
        format!("{} ({})", member.name, member.code)
    }

    /// Enrol a team.
    #[tool]
    async fn enrol(&self, team: Team) -> String {
        format!("led by {}", team.lead.name)
    }

    /// Greet someone, or everyone.
    #[tool]
    async fn hello(&self, #[arg(description = "who to greet")] name: Option<String>) -> String {
        format!("hello {}", name.as_deref().unwrap_or("everyone"))
    }

    /// Who is calling (the principal `connect` set).
    #[tool]
    async fn whoami(&self, session: &Session) -> String {
        session
            .principal
            .as_deref()
            .unwrap_or("anonymous")
            .to_owned()
    }

    /// A tiny image.
    #[tool]
    async fn picture(&self) -> Content {
        Content::image([1u8, 2, 3], "image/png")
    }

    /// The current time.
    #[tool(
        name = "clock.now",
        title = "Current time",
        read_only,
        open_world = false,
        icons = ["https://example.com/clock.png"],
        meta(owner = "team-time", tier = 2)
    )]
    fn now(&self) -> String {
        "12:00".into()
    }

    /// Greet someone by name.
    #[prompt(title = "Welcome")]
    async fn welcome(
        &self,
        #[arg(description = "who to greet")]
        #[complete(with = "Self::names")]
        name: String,
        #[arg(description = "the tone")]
        #[complete(with = "Self::tones")]
        tone: Option<String>,
        style: Option<String>,
    ) -> PromptReply {
        let tone = tone.unwrap_or_else(|| "warm".into());
        let style = style.unwrap_or_else(|| "plain".into());
        PromptReply::default()
            .description(format!("Welcome for {name}"))
            .user(format!("Please welcome {name}."))
            .assistant(format!("Welcome, {name}! ({tone}, {style})"))
    }

    /// A haiku.
    #[prompt]
    async fn haiku(&self) -> String {
        "old pond, frog leaps in".into()
    }

    /// The lab readme.
    #[resource("lab://info/readme", title = "Readme")]
    async fn readme(&self) -> String {
        "# Lab".into()
    }

    /// The lab logo.
    #[resource("lab://info/logo", mime_type = "image/png", size = 4)]
    async fn logo(&self) -> Blob {
        Blob(vec![0x89, b'P', b'N', b'G'])
    }

    /// One item, by numeric id (1 to 3 exist).
    #[resource("lab:///items/<id>", mime_type = "application/json")]
    async fn item(&self, #[complete(with = "Self::item_ids")] id: u64) -> Option<Json<Item>> {
        (1..=3).contains(&id).then(|| {
            Json(Item {
                id,
                label: format!("item {id}"),
            })
        })
    }

    /// One run, by UUID.
    #[resource("lab:///runs/<run>")]
    async fn run(&self, run: Uuid) -> String {
        format!("run {run}")
    }

    /// A file below the lab root (`missing.md` does not exist).
    #[resource("lab:///files/<path..>", mime_type = "text/markdown")]
    async fn file(&self, path: String) -> Option<String> {
        (path != "missing.md").then(|| format!("file {path}"))
    }

    async fn names(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        ["alice", "albert", "bob"]
            .into_iter()
            .filter(|n| n.starts_with(value))
            .map(str::to_owned)
            .collect()
    }

    async fn tones(&self, _value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        (0..150).map(|i| format!("tone{i:03}")).collect()
    }

    async fn item_ids(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        ["1", "2", "3", "12"]
            .into_iter()
            .filter(|n| n.starts_with(value))
            .map(str::to_owned)
            .collect()
    }

    /// `x-role` narrows or rejects the session; `x-user` names the principal.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        match request.header("x-role") {
            Some("guest") => {
                session.allowed_tools = Session::allow(["echo"]);
                session.allowed_prompts = Session::allow(Vec::<String>::new());
                session.allowed_resource_templates = Session::allow(["readme", "item"]);
            }
            Some("anonymous") => {
                return Connect::Unauthorized(
                    WwwAuthenticate::bearer()
                        .resource_metadata(
                            "https://lab.example/.well-known/oauth-protected-resource",
                        )
                        .scope("lab:read"),
                );
            }
            Some("banned") => return Connect::Forbidden("banned from the lab".into()),
            Some("expired") => return Connect::NotFound("session expired".into()),
            Some("broken") => return Connect::Error("broken credentials".into()),
            Some("reader") => return Connect::InsufficientScope(vec!["lab:write".into()]),
            _ => {}
        }
        session.principal = request.header("x-user").map(Into::into);
        Connect::Ok
    }
}

/// A router with tools only (no prompts, resources or completions).
#[derive(Clone)]
pub(crate) struct Calc;

#[mcp_router(name = "calc", version = "1.0.0")]
impl Calc {
    /// Double a number.
    #[tool]
    fn double(&self, n: i64) -> String {
        (n * 2).to_string()
    }
}

/// A router with five of each list item, for pagination.
#[derive(Clone)]
pub(crate) struct Many;

#[mcp_router(name = "many", version = "1.0.0")]
impl Many {
    /// Tool 1.
    #[tool]
    fn t1(&self) -> String {
        "1".into()
    }
    /// Tool 2.
    #[tool]
    fn t2(&self) -> String {
        "2".into()
    }
    /// Tool 3.
    #[tool]
    fn t3(&self) -> String {
        "3".into()
    }
    /// Tool 4.
    #[tool]
    fn t4(&self) -> String {
        "4".into()
    }
    /// Tool 5.
    #[tool]
    fn t5(&self) -> String {
        "5".into()
    }

    /// Prompt 1.
    #[prompt]
    async fn p1(&self) -> String {
        "1".into()
    }
    /// Prompt 2.
    #[prompt]
    async fn p2(&self) -> String {
        "2".into()
    }
    /// Prompt 3.
    #[prompt]
    async fn p3(&self) -> String {
        "3".into()
    }
    /// Prompt 4.
    #[prompt]
    async fn p4(&self) -> String {
        "4".into()
    }
    /// Prompt 5.
    #[prompt]
    async fn p5(&self) -> String {
        "5".into()
    }

    /// Concrete 1.
    #[resource("many://c/1")]
    async fn c1(&self) -> String {
        "1".into()
    }
    /// Concrete 2.
    #[resource("many://c/2")]
    async fn c2(&self) -> String {
        "2".into()
    }
    /// Concrete 3.
    #[resource("many://c/3")]
    async fn c3(&self) -> String {
        "3".into()
    }
    /// Concrete 4.
    #[resource("many://c/4")]
    async fn c4(&self) -> String {
        "4".into()
    }
    /// Concrete 5.
    #[resource("many://c/5")]
    async fn c5(&self) -> String {
        "5".into()
    }

    /// Template 1.
    #[resource("many://x1/<id>")]
    async fn x1(&self, id: String) -> String {
        id
    }
    /// Template 2.
    #[resource("many://x2/<id>")]
    async fn x2(&self, id: String) -> String {
        id
    }
    /// Template 3.
    #[resource("many://x3/<id>")]
    async fn x3(&self, id: String) -> String {
        id
    }
    /// Template 4.
    #[resource("many://x4/<id>")]
    async fn x4(&self, id: String) -> String {
        id
    }
    /// Template 5.
    #[resource("many://x5/<id>")]
    async fn x5(&self, id: String) -> String {
        id
    }
}

/// `Lab`'s `serverInfo` as JSON.
pub(crate) fn lab_info() -> Value {
    serde_json::from_str(LAB_INFO).expect("valid JSON")
}

/// A legacy `Lab` client initialized at 2025-11-25 with one header.
pub(crate) async fn legacy_lab_with(header: &str, value: &str) -> Client<Lab> {
    let mut client = Client::uninitialized(Lab, Config::default()).header(header, value);
    client.initialize("2025-11-25").await.result();
    client
}

/// A legacy client of any server with a page size, initialized at 2025-11-25.
pub(crate) async fn legacy_paged<S: Server>(server: S, page_size: usize) -> Client<S> {
    let mut client = Client::uninitialized(server, Config::default().with_page_size(page_size));
    client.initialize("2025-11-25").await.result();
    client
}

/// `params` with a hand-written `_meta` envelope (the `Client` adds a complete one by itself).
pub(crate) fn with_meta(mut params: Value, meta: Value) -> Value {
    params["_meta"] = meta;
    params
}

/// A complete 2026-07-28 `_meta` without `clientInfo`.
pub(crate) fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// Every key of every object in `value`, recursively.
pub(crate) fn all_keys(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                out.extend(all_keys(v));
            }
        }
        Value::Array(items) => items.iter().for_each(|v| out.extend(all_keys(v))),
        _ => {}
    }
    out
}

/// A router that overrides `list_resources`, `instructions` and `server_info`.
#[derive(Clone)]
pub(crate) struct Listed;

#[mcp_router(name = "listed", version = "2.0.0")]
impl Listed {
    /// Answer `pong`.
    #[tool]
    fn pong(&self) -> String {
        "pong".into()
    }

    /// Two pages: `ext://a`, then `ext://b`.
    async fn list_resources(
        &self,
        cursor: Option<Cursor>,
        _session: &Session,
    ) -> Result<Page<Resource>, Error> {
        match cursor {
            None => Ok(Page {
                items: vec![Resource::new("ext://a", "a")],
                next_cursor: Some("second".into()),
            }),
            Some(Cursor(c)) if c == "second" => Ok(Page::last(vec![Resource::new("ext://b", "b")])),
            Some(_) => Err(Error::invalid_params("unknown cursor")),
        }
    }

    /// Greets the principal.
    async fn instructions(&self, session: &Session) -> Option<String> {
        Some(format!(
            "hello {}",
            session.principal.as_deref().unwrap_or("stranger")
        ))
    }

    /// Reports the protocol version in the title.
    async fn server_info(&self, session: &Session) -> phantom::protocol::Implementation {
        phantom::protocol::Implementation {
            name: "listed".into(),
            version: "2.0.0".into(),
            title: Some(format!("listed at {}", session.protocol_version)),
            ..phantom::protocol::Implementation::default()
        }
    }
}
