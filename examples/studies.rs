//! `studies`: a small research-study catalogue served over MCP.
//!
//! ```text
//! cargo run -p phantom-examples --bin studies                 # http://127.0.0.1:4000/mcp
//! cargo run -p phantom-examples --bin studies -- --addr 127.0.0.1:8080
//! cargo run -p phantom-examples --bin studies -- --stdio      # newline-delimited JSON on stdin/stdout
//! cargo run -p phantom-examples --bin studies -- --preview    # and the MCP Apps preview at /mcp/preview
//! cargo run -p phantom-examples --bin studies -- --redis redis://127.0.0.1:6379/  # one of many nodes
//! ```
//!
//! Tools search (reporting progress), annotate and clear the notes of studies (after asking the
//! user to confirm), show a study as a card (an MCP Apps view; `--preview` serves the preview host
//! at `/mcp/preview`), export the catalogue (a task for clients with the tasks extension), a templated resource serves one study by its numeric id, a
//! concrete resource serves the catalogue summary, and a prompt (with completion of study ids)
//! drafts a review. `connect` narrows what a session may use from the `x-studies-role` header.
//! With `--redis` the node shares everything with the other nodes on that Redis: phantom's
//! sessions, answers and changes (`phantom_redis::backend`) and the studies' notes, the app's own
//! data (`examples/cluster/run.sh` runs two behind HAProxy with `CLUSTER_BIN=studies`).

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use phantom::http::HttpConfig;
use phantom::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One study in the catalogue.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Study {
    id: u64,
    title: String,
    phase: Phase,
    enrolled: u32,
    notes: Vec<String>,
}

/// The answer to a yes-or-no question.
#[derive(Debug, Deserialize)]
struct Confirm {
    confirm: bool,
}

/// Clinical phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Phase {
    One,
    Two,
    Three,
}

/// Search hits.
#[derive(Debug, Serialize, JsonSchema)]
struct Hits {
    total: usize,
    studies: Vec<Study>,
}

#[derive(Clone)]
struct Studies {
    /// The catalogue (read-only; its `notes` are empty: they live in `notes`).
    db: Arc<RwLock<BTreeMap<u64, Study>>>,
    notes: Notes,
}

/// The studies' notes: the app's own data. On one node a map; with `--redis`, Redis lists
/// (`studies:notes:<id>`), so that every node behind a load balancer sees the same notes — the
/// framework shares sessions, answers and changes, and the app shares its own data.
#[derive(Clone)]
enum Notes {
    Memory(Arc<RwLock<BTreeMap<u64, Vec<String>>>>),
    Redis(redis::aio::ConnectionManager),
}

impl Notes {
    fn key(id: u64) -> String {
        format!("studies:notes:{id}")
    }

    async fn of(&self, id: u64) -> Result<Vec<String>, String> {
        match self {
            Self::Memory(map) => Ok(map
                .read()
                .expect("notes lock")
                .get(&id)
                .cloned()
                .unwrap_or_default()),
            Self::Redis(conn) => redis::cmd("LRANGE")
                .arg(Self::key(id))
                .arg(0)
                .arg(-1)
                .query_async(&mut conn.clone())
                .await
                .map_err(|e| format!("the notes store failed: {e}")),
        }
    }

    /// Adds a note; how many the study has now.
    async fn add(&self, id: u64, note: String) -> Result<usize, String> {
        match self {
            Self::Memory(map) => {
                let mut map = map.write().expect("notes lock");
                let notes = map.entry(id).or_default();
                notes.push(note);
                Ok(notes.len())
            }
            Self::Redis(conn) => redis::cmd("RPUSH")
                .arg(Self::key(id))
                .arg(note)
                .query_async(&mut conn.clone())
                .await
                .map_err(|e| format!("the notes store failed: {e}")),
        }
    }

    /// Removes every note; how many there were.
    async fn clear(&self, id: u64) -> Result<usize, String> {
        match self {
            Self::Memory(map) => Ok(map
                .write()
                .expect("notes lock")
                .remove(&id)
                .map_or(0, |n| n.len())),
            Self::Redis(conn) => {
                let (len, _): (usize, i64) = redis::pipe()
                    .atomic()
                    .cmd("LLEN")
                    .arg(Self::key(id))
                    .cmd("DEL")
                    .arg(Self::key(id))
                    .query_async(&mut conn.clone())
                    .await
                    .map_err(|e| format!("the notes store failed: {e}"))?;
                Ok(len)
            }
        }
    }
}

impl Studies {
    fn new() -> Self {
        let seed = [
            (1, "Sleep and memory consolidation", Phase::Two, 120),
            (
                2,
                "Aerobic exercise in early Parkinson's",
                Phase::Three,
                480,
            ),
            (3, "Low-dose aspirin and migraine", Phase::One, 36),
            (4, "Memory training for older adults", Phase::Two, 210),
        ];
        let db = seed
            .into_iter()
            .map(|(id, title, phase, enrolled)| {
                (
                    id,
                    Study {
                        id,
                        title: title.into(),
                        phase,
                        enrolled,
                        notes: Vec::new(),
                    },
                )
            })
            .collect();
        Self {
            db: Arc::new(RwLock::new(db)),
            notes: Notes::Memory(Arc::default()),
        }
    }

    /// The catalogue with its notes in Redis (`--redis`).
    fn with_notes_in(mut self, conn: redis::aio::ConnectionManager) -> Self {
        self.notes = Notes::Redis(conn);
        self
    }

    /// Every study, copied out of the lock (for handlers that report as they go), notes and all.
    async fn snapshot(&self) -> Result<Vec<Study>, String> {
        let studies: Vec<Study> = self
            .db
            .read()
            .expect("catalogue lock")
            .values()
            .cloned()
            .collect();
        let mut full = Vec::with_capacity(studies.len());
        for mut study in studies {
            study.notes = self.notes.of(study.id).await?;
            full.push(study);
        }
        Ok(full)
    }

    /// One study, notes and all.
    async fn get(&self, id: u64) -> Result<Option<Study>, String> {
        let study = self.db.read().expect("catalogue lock").get(&id).cloned();
        let Some(mut study) = study else {
            return Ok(None);
        };
        study.notes = self.notes.of(id).await?;
        Ok(Some(study))
    }
}

/// Tells the clients subscribed to `studies:///studies/<id>` that it changed. A failure to announce
/// does not undo the change: it is logged.
async fn study_updated(notifier: &Notifier, id: u64) {
    if let Err(e) = notifier
        .notify_resource_updated(format!("studies:///studies/{id}"))
        .await
    {
        tracing::warn!(error = %e, id, "could not announce the study's update");
    }
}

#[mcp_router(
    name = "studies",
    version = "1.0.0",
    title = "Study catalogue",
    instructions = "Search studies with `search`, then read `studies:///studies/{id}`."
)]
impl Studies {
    /// Search studies whose title contains the query (case-insensitive).
    #[tool(read_only)]
    async fn search(
        &self,
        ctx: Ctx,
        #[arg(description = "words to look for in the title")] query: String,
        #[arg(description = "only this phase")] phase: Option<Phase>,
        #[arg(description = "maximum number of hits (1-50)")] limit: Option<Limit>,
    ) -> Result<Json<Hits>, String> {
        let query = query.to_lowercase();
        // A snapshot, so that no lock is held while progress is reported.
        let studies = self.snapshot().await?;
        let scanned = studies.len() as f64;
        let mut matching = Vec::new();
        for (i, study) in studies.into_iter().enumerate() {
            ctx.progress(i as f64 + 1.0, Some(scanned), None).await;
            if study.title.to_lowercase().contains(&query) && phase.is_none_or(|p| study.phase == p)
            {
                matching.push(study);
            }
        }
        let total = matching.len();
        let limit = limit.map_or(10, |l| l.0 as usize);
        Ok(Json(Hits {
            total,
            studies: matching.into_iter().take(limit).collect(),
        }))
    }

    /// Add a note to a study. Clients subscribed to the study hear that it was updated.
    #[tool(idempotent = false, destructive = false)]
    async fn annotate(&self, notifier: Notifier, id: u64, note: String) -> Result<String, String> {
        if note.trim().is_empty() {
            return Err("`note` must not be empty".into());
        }
        if !self.db.read().expect("catalogue lock").contains_key(&id) {
            return Err(format!("no study with id {id}"));
        }
        let count = self.notes.add(id, note).await?;
        study_updated(&notifier, id).await;
        Ok(format!("study {id} now has {count} note(s)"))
    }

    /// Remove every note of a study, after the user confirms.
    #[tool(destructive)]
    async fn clear_notes(&self, ctx: Ctx, notifier: Notifier, id: u64) -> Result<String, String> {
        let count = self
            .get(id)
            .await?
            .map(|s| s.notes.len())
            .ok_or_else(|| format!("no study with id {id}"))?;
        if count == 0 {
            return Ok(format!("study {id} has no notes"));
        }
        if !ctx.supports(InputKind::Form) {
            return Err(
                "clearing notes needs the user's confirmation, and this client cannot ask (it does not declare form elicitation)"
                    .into(),
            );
        }
        // Nothing is changed before the question: on 2026-07-28 the handler runs again, from the
        // top, once the answer comes back.
        let form = Form::new().required(
            "confirm",
            Field::boolean().title("Delete the notes").default(false),
        );
        let message = format!("Delete the {count} note(s) of study {id}?");
        let answer: Elicitation<Confirm> = ctx.elicit("confirm_clear", &message, form).await;
        match answer {
            Elicitation::Accept(Confirm { confirm: true }) => {
                let removed = self.notes.clear(id).await?;
                study_updated(&notifier, id).await;
                Ok(format!("removed {removed} note(s) from study {id}"))
            }
            _ => Ok(format!("kept the notes of study {id}")),
        }
    }

    /// Export the catalogue as CSV (id, title, phase, enrolled, notes). Runs as a task for
    /// clients that declare the tasks extension (poll it with `tasks/get`, or follow it on
    /// `subscriptions/listen`), inline for the others.
    #[task_handler(read_only, ttl = "10m", poll_interval = "200ms")]
    async fn export(&self, ctx: Ctx) -> Result<String, String> {
        let studies = self.snapshot().await?;
        let mut csv = String::from("id,title,phase,enrolled,notes\n");
        let total = studies.len();
        for (i, study) in studies.into_iter().enumerate() {
            ctx.status(format!("exported {i} of {total} studies")).await;
            let phase = serde_json::to_value(study.phase).unwrap_or_default();
            csv.push_str(&format!(
                "{},\"{}\",{},{},{}\n",
                study.id,
                study.title.replace('"', "\"\""),
                phase.as_str().unwrap_or_default(),
                study.enrolled,
                study.notes.len()
            ));
            // A real export writes somewhere slow; this one gives pollers time to see it work.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        Ok(csv)
    }

    /// Show a study as a card (an MCP Apps view whose button adds a note through `annotate`);
    /// clients that do not render apps get the study in words.
    #[tool(read_only, ui = "ui://studies/card")]
    async fn show_study(&self, session: &Session, id: u64) -> Result<ToolResult, String> {
        let study = self
            .get(id)
            .await?
            .ok_or_else(|| format!("no study with id {id}"))?;
        let value = serde_json::to_value(&study).map_err(|e| e.to_string())?;
        let words = format!(
            "Study {}: {} (phase {}, {} enrolled, {} note(s))",
            study.id,
            study.title,
            value["phase"].as_str().unwrap_or_default(),
            study.enrolled,
            study.notes.len()
        );
        let mut result = ToolResult::structured(value);
        result.content = vec![Content::text(if session.supports_apps() {
            format!("Showing the card of study {id}.")
        } else {
            words
        })];
        Ok(result)
    }

    /// The study card's view: compiled in, with a CSP that allows nothing outside it.
    #[resource("ui://studies/card", title = "Study card", prefers_border)]
    async fn study_card(&self) -> &'static str {
        include_str!("views/study-card.html")
    }

    /// Count the participants enrolled across all studies.
    #[tool(read_only, name = "enrollment.total")]
    fn total_enrollment(&self) -> String {
        let total: u64 = self
            .db
            .read()
            .expect("catalogue lock")
            .values()
            .map(|s| u64::from(s.enrolled))
            .sum();
        total.to_string()
    }

    /// One study, as JSON.
    #[resource("studies:///studies/<id>", mime_type = "application/json")]
    async fn study(&self, id: u64) -> Result<Option<Json<Study>>, Error> {
        let study = self.get(id).await.map_err(Error::internal)?;
        Ok(study.map(Json))
    }

    /// How to review a study of the catalogue (a skill directory compiled into the binary), for
    /// every study that exists.
    #[skill("skill://studies/<id>/study-review")]
    async fn study_review(&self, id: u64) -> Option<phantom::skills::Skill> {
        let exists = self.db.read().expect("catalogue lock").contains_key(&id);
        exists.then(|| phantom::embed_skill!("skills/study-review"))
    }

    /// A one-line summary of the catalogue.
    #[resource("studies:///summary", title = "Catalogue summary")]
    async fn summary(&self) -> String {
        let db = self.db.read().expect("catalogue lock");
        format!(
            "{} studies, {} participants",
            db.len(),
            db.values().map(|s| u64::from(s.enrolled)).sum::<u64>()
        )
    }

    /// Draft a peer review of a study.
    #[prompt(title = "Review a study")]
    async fn review(
        &self,
        #[arg(description = "the study to review")]
        #[complete(with = "Self::study_ids")]
        study_id: String,
        #[arg(description = "what to focus on")] focus: Option<String>,
    ) -> Result<PromptReply, Error> {
        let id: u64 = study_id
            .parse()
            .map_err(|_| Error::invalid_params("`study_id` must be a number"))?;
        let db = self.db.read().expect("catalogue lock");
        let study = db
            .get(&id)
            .ok_or_else(|| Error::invalid_params(format!("no study with id {id}")))?;
        let focus = focus.unwrap_or_else(|| "methodology".into());
        Ok(PromptReply::default()
            .description(format!("Review of study {id}"))
            .user(format!(
                "Review the study \"{}\" (phase {:?}, {} enrolled), focusing on {focus}.",
                study.title, study.phase, study.enrolled
            )))
    }

    async fn study_ids(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        let db = self.db.read().expect("catalogue lock");
        db.keys()
            .map(ToString::to_string)
            .filter(|id| id.starts_with(value))
            .collect()
    }

    /// Guests (`x-studies-role: guest`) may only search and read.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        if request.header("x-studies-role") == Some("guest") {
            session.allowed_tools = Session::allow(["search"]);
            session.allowed_prompts = Session::allow(Vec::<String>::new());
        }
        Connect::Ok
    }

    /// `skills/list`: the review skill of every study (the catalogue is small: one page).
    async fn list_skills(
        &self,
        _cursor: Option<Cursor>,
        _session: &Session,
    ) -> Result<Page<String>, Error> {
        let db = self.db.read().expect("catalogue lock");
        let uris = db
            .keys()
            .map(|id| format!("skill://studies/{id}/study-review/SKILL.md"))
            .collect();
        Ok(Page::last(uris))
    }
}

/// A search limit between 1 and 50.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
struct Limit(#[schemars(range(min = 1, max = 50))] u8);

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // INFO unless RUST_LOG says otherwise, so `serve` says where it listens; stderr, because over
    // stdio stdout carries the protocol.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .init();
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:4000");
    let (mut stateless, mut preview, mut redis) = (false, false, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stdio" => return phantom::stdio::run(Studies::new()).await,
            "--addr" => addr = args.next().ok_or_else(|| usage("--addr needs a value"))?,
            "--stateless" => stateless = true,
            "--preview" => preview = true,
            "--redis" => {
                redis = Some(args.next().ok_or_else(|| usage("--redis needs a URL"))?);
            }
            other => return Err(usage(&format!("unknown argument `{other}`"))),
        }
    }
    if !stateless && !preview && redis.is_none() {
        return phantom::serve(Studies::new(), addr).await;
    }
    // Legacy stateless mode: no Mcp-Session-Id, every 2025-11-25 request stands alone. The
    // preview host: the MCP Apps views rendered in a browser at `/mcp/preview`.
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    if preview {
        tracing::info!("MCP Apps preview at http://{local}/mcp/preview");
    }
    let http = HttpConfig::for_addr(local)
        .with_stateless(stateless)
        .with_preview(preview);
    let mut config = phantom::Config::default();
    let mut studies = Studies::new();
    // `--redis`: one of several nodes behind a load balancer (examples/cluster/). The framework's
    // seams go to Redis, and so do the notes, the app's own data.
    if let Some(url) = redis {
        let failed =
            |e: &dyn std::fmt::Display| std::io::Error::other(format!("--redis {url}: {e}"));
        let backend = phantom_redis::backend(&url).await.map_err(|e| failed(&e))?;
        let client = redis::Client::open(url.as_str()).map_err(|e| failed(&e))?;
        let conn = redis::aio::ConnectionManager::new(client)
            .await
            .map_err(|e| failed(&e))?;
        // A 2026-07-28 `requestState` sealed by one node must open on the next: one key for all
        // (PHANTOM_STATE_KEY, 32 bytes in base64).
        let key = std::env::var("PHANTOM_STATE_KEY")
            .map_err(|_| usage("--redis needs PHANTOM_STATE_KEY, the key every node seals with"))?;
        let key = phantom::input::StateKey::from_base64(&key).map_err(|e| failed(&e))?;
        config = config.with_state_key(key).with_backend(backend);
        studies = studies.with_notes_in(conn);
    }
    // SIGTERM or SIGINT: readiness turns 503, then the server drains and returns.
    let shutdown = phantom::shutdown_signal();
    let dispatcher = phantom::dispatch::Dispatcher::with_config(studies, config);
    phantom::http::serve_dispatcher(listener, dispatcher, http, shutdown).await
}

fn usage(problem: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "{problem}\nusage: studies [--addr HOST:PORT [--stateless] [--preview] [--redis redis://HOST:PORT/] | --stdio]"
        ),
    )
}
