//! `everything`: the fixture server of the official MCP conformance suite, for both protocol eras.
//!
//! ```text
//! cargo run -p phantom-examples --bin everything -- --addr 127.0.0.1:4100
//! ```
//!
//! Every tool, resource and prompt name is the exact one the suite looks for
//! (`tests/harness/conformance/run.sh` lists the runs). The interactive fixtures (elicitation,
//! sampling, roots) are one handler each for both eras: server-to-client requests on a
//! 2025-11-25 session, `input_required` rounds in 2026-07-28. `test://watched-resource` is
//! updated every three seconds, and two tools announce list changes, for subscriptions (legacy
//! `resources/subscribe`, 2026-07-28 `subscriptions/listen`). The tasks fixtures are
//! `#[task_handler]` tools and the skills fixture a `#[skill]`; the expected-failures files are
//! empty.
//!
//! ```text
//! everything [--addr HOST:PORT] [--preview] [--redis redis://HOST:PORT/]
//!            [--drain-delay MS] [--grace MS] [--executions FILE] [--admin IP:PORT]
//! ```
//!
//! `--redis` shares sessions, events, changes and tasks with the other nodes on that Redis
//! (`examples/cluster/`). `--drain-delay` and `--grace` set `HttpConfig::with_drain_delay` and
//! `HttpConfig::with_grace` (a node behind a balancer on loopback gets no drain delay
//! otherwise); `--executions FILE` appends a line per `tools/call` executed (the rolling
//! restart test counts them).
//!
//! Its metrics are served in the Prometheus text format at `http://ADDR/metrics` (phantom's
//! `prometheus` feature, the recorder installed at start), or only at `http://ADMIN/metrics`
//! with `--admin ADMIN`, which serves `/healthz` and `/readyz` there too.

use std::borrow::Cow;

use phantom::extract::Arguments;
use phantom::prelude::*;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::{Value, json};

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x05, 0x02, 0x00, 0x5f, 0xc8, 0xf1, 0xd2, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file: 8 kHz, mono, 8-bit PCM, 8 samples of silence.
fn wav() -> Vec<u8> {
    let data = [128u8; 8];
    let mut out = Vec::with_capacity(44 + data.len());
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&8000u32.to_le_bytes());
    out.extend_from_slice(&8000u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&8u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(&data);
    out
}

/// The arguments of `json_schema_2020_12_tool`, described by a hand-written 2020-12 schema that
/// phantom passes through verbatim.
#[derive(Debug, Deserialize)]
struct ContactArgs(#[allow(dead_code)] serde_json::Map<String, Value>);

impl JsonSchema for ContactArgs {
    fn schema_name() -> Cow<'static, str> {
        "ContactArgs".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addr",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        })
    }
}

#[derive(Clone)]
pub(crate) struct Everything;

#[mcp_router(
    name = "phantom-everything",
    version = "0.1.0",
    title = "phantom conformance fixtures"
)]
impl Everything {
    /// MCP Apps: echoes `word`; its view is the reference view, built on the official `App`
    /// class, that the browser test renders in the preview host.
    #[tool(ui = "ui://everything/reference", visibility = ["model", "app"])]
    async fn test_app_reference(&self, word: String) -> String {
        format!("echo: {word}")
    }

    /// The reference view: its script comes from `https://ext-apps.test`, the one origin its CSP
    /// allows (the browser test serves the `App` bundle there).
    #[resource(
        "ui://everything/reference",
        csp(resources = ["https://ext-apps.test"]),
        permissions = ["clipboard_write"],
        domain = "https://reference.everything.test",
        prefers_border = false
    )]
    async fn reference_view(&self) -> &'static str {
        include_str!("views/reference.html")
    }

    /// Returns a simple text block.
    #[tool]
    async fn test_simple_text(&self) -> &'static str {
        "This is a simple text response for testing."
    }

    /// Returns a PNG image block.
    #[tool]
    async fn test_image_content(&self) -> Content {
        Content::image(PNG, "image/png")
    }

    /// Returns a WAV audio block.
    #[tool]
    async fn test_audio_content(&self) -> Content {
        Content::audio(wav(), "audio/wav")
    }

    /// Returns an embedded text resource.
    #[tool]
    async fn test_embedded_resource(&self) -> Content {
        Content::embedded(
            ResourceContents::text(
                "test://embedded-resource",
                "This is an embedded resource content.",
            )
            .mime_type("text/plain"),
        )
    }

    /// Returns text, image and resource blocks.
    #[tool]
    async fn test_multiple_content_types(&self) -> Vec<Content> {
        vec![
            Content::text("Multiple content types test:"),
            Content::image(PNG, "image/png"),
            Content::embedded(
                ResourceContents::text(
                    "test://mixed-content-resource",
                    r#"{"test":"data","value":123}"#,
                )
                .mime_type("application/json"),
            ),
        ]
    }

    /// Always fails with a tool error (`isError: true`).
    #[tool]
    async fn test_error_handling(&self) -> Result<String, String> {
        Err("This tool intentionally returns an error for testing".into())
    }

    /// Answers with a plain result (never asks the client anything on its response stream).
    #[tool]
    async fn test_streaming_elicitation(&self) -> &'static str {
        "Streaming elicitation test completed without a server-to-client request."
    }

    /// Ends its POST stream before answering (SEP-1699 polling): the client resumes with `GET` and
    /// `Last-Event-ID`, and the result arrives there.
    #[tool]
    async fn test_reconnection(&self, ctx: Ctx) -> &'static str {
        ctx.close_stream();
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        "Reconnection test completed"
    }

    /// Reports progress 0, 50 and 100 of 100 (when the request carried a progress token), ~50 ms
    /// apart.
    #[tool]
    async fn test_tool_with_progress(&self, ctx: Ctx) -> &'static str {
        for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            ctx.progress(step, Some(100.0), None).await;
        }
        "Progress tool finished"
    }

    /// Sends three log messages (at the level the client chose or above), ~50 ms apart.
    #[tool]
    async fn test_tool_with_logging(&self, ctx: Ctx) -> &'static str {
        let steps = [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ];
        for (i, step) in steps.into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            ctx.log(LogLevel::Info, step).await;
        }
        "Logging tool finished"
    }

    /// Logs through the request's logger: a request without `_meta` `logLevel` gets no
    /// `notifications/message` (what the suite checks).
    #[tool]
    async fn test_logging_tool(&self, ctx: Ctx) -> &'static str {
        ctx.log(LogLevel::Info, "Logging tool ran").await;
        "Logging tool finished"
    }

    /// Echoes a region and a level; `region` travels in the `Mcp-Param-Region` header too.
    #[tool]
    async fn test_x_mcp_header(
        &self,
        #[arg(header = "Region", description = "deployment region")] region: String,
        #[arg(description = "detail level")] level: Option<u8>,
    ) -> String {
        format!(
            "region={region} level={}",
            level.map_or_else(|| "default".into(), |l| l.to_string())
        )
    }

    /// Needs the client's sampling capability; without it the call is refused with `-32021`.
    #[tool(requires = ["sampling"])]
    async fn test_missing_capability(&self) -> &'static str {
        "the client declared sampling"
    }

    /// Asks the client's LLM to answer `prompt` (sampling) and returns its reply.
    #[tool]
    async fn test_sampling(&self, ctx: Ctx, prompt: String) -> String {
        let reply = ctx.sample(Sample::new("reply", 100).user(prompt)).await;
        format!("LLM response: {}", reply.text().unwrap_or("(not text)"))
    }

    /// Asks the user for a username and an email (form elicitation) and returns what they did.
    #[tool]
    async fn test_elicitation(&self, ctx: Ctx, message: String) -> String {
        let form = Form::new()
            .required("username", Field::string().description("Your username"))
            .required("email", Field::email().description("Your email address"));
        let answer: Elicitation<Value> = ctx.elicit("user_details", &message, form).await;
        elicitation_text(&answer)
    }

    /// Elicits a form whose every primitive carries a default (SEP-1034).
    #[tool]
    async fn test_elicitation_sep1034_defaults(&self, ctx: Ctx) -> String {
        let form = Form::new()
            .field("name", Field::string().default("John Doe"))
            .field("age", Field::integer().default(30))
            .field("score", Field::number().default(95.5))
            .field(
                "status",
                Field::choice(["active", "inactive", "pending"]).default("active"),
            )
            .field("verified", Field::boolean().default(true));
        let answer: Elicitation<Value> = ctx
            .elicit("defaults", "Please review the defaults", form)
            .await;
        elicitation_text(&answer)
    }

    /// Elicits a form with all five enum forms (SEP-1330).
    #[tool]
    async fn test_elicitation_sep1330_enums(&self, ctx: Ctx) -> String {
        let form = Form::new()
            .field(
                "untitledSingle",
                Field::choice(["option1", "option2", "option3"]),
            )
            .field(
                "titledSingle",
                Field::titled_choice([
                    ("value1", "First Option"),
                    ("value2", "Second Option"),
                    ("value3", "Third Option"),
                ]),
            )
            .field(
                "legacyEnum",
                Field::legacy_choice(
                    ["opt1", "opt2", "opt3"],
                    ["Option One", "Option Two", "Option Three"],
                ),
            )
            .field(
                "untitledMulti",
                Field::multi_choice(["option1", "option2", "option3"]),
            )
            .field(
                "titledMulti",
                Field::titled_multi_choice([
                    ("value1", "First Choice"),
                    ("value2", "Second Choice"),
                    ("value3", "Third Choice"),
                ]),
            );
        let answer: Elicitation<Value> = ctx.elicit("enums", "Pick some options", form).await;
        elicitation_text(&answer)
    }

    /// Asks the user's name (key `user_name`) and greets them.
    #[tool]
    async fn test_input_required_result_elicitation(&self, ctx: Ctx) -> String {
        let name = ask_name(&ctx, "user_name", "What is your name?").await;
        format!("Hello, {name}!")
    }

    /// Asks the client's LLM the capital of France (key `capital_question`).
    #[tool]
    async fn test_input_required_result_sampling(&self, ctx: Ctx) -> String {
        let reply = ctx
            .sample(Sample::new("capital_question", 100).user("What is the capital of France?"))
            .await;
        format!("The model said: {}", reply.text().unwrap_or("(not text)"))
    }

    /// Lists the client's roots (key `client_roots`).
    #[tool]
    async fn test_input_required_result_list_roots(&self, ctx: Ctx) -> String {
        let roots = ctx.roots("client_roots").await;
        let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
        format!("Client roots: {}", uris.join(", "))
    }

    /// Asks for a confirmation (key `confirm`); the answer comes back with the sealed state.
    #[tool]
    async fn test_input_required_result_request_state(&self, ctx: Ctx) -> String {
        let form = Form::new().required("ok", Field::boolean());
        let answer: Elicitation<Value> = ctx.elicit("confirm", "Please confirm", form).await;
        format!("state-ok: confirmation {}", answer.action())
    }

    /// Asks three inputs at once: a name, a greeting from the LLM and the roots.
    #[tool]
    async fn test_input_required_result_multiple_inputs(&self, ctx: Ctx) -> String {
        let name = Elicit::<Value>::new(
            "user_name",
            "What is your name?",
            Form::new().required("name", Field::string()),
        );
        let greeting = Sample::new("greeting", 50).user("Generate a greeting");
        let (name, greeting, roots) = ctx
            .input((name, greeting, Roots::new("client_roots")))
            .await;
        let name = name
            .accepted()
            .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| "stranger".into());
        format!(
            "{} {name}! ({} roots)",
            greeting.text().unwrap_or("Hello"),
            roots.len()
        )
    }

    /// Asks two questions in two rounds (`step1`, then `step2`).
    #[tool]
    async fn test_input_required_result_multi_round(&self, ctx: Ctx) -> String {
        let name = ask_name(&ctx, "step1", "Step 1: What is your name?").await;
        let form = Form::new().required("color", Field::string());
        let color = ctx
            .elicit::<Value>("step2", "Step 2: What is your favorite color?", form)
            .await
            .accepted()
            .and_then(|v| v.get("color").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        format!("{name} likes {color}")
    }

    /// Asks for a confirmation; a changed `requestState` on the retry is refused.
    #[tool]
    async fn test_input_required_result_tampered_state(&self, ctx: Ctx) -> String {
        let form = Form::new().required("ok", Field::boolean());
        let answer: Elicitation<Value> = ctx.elicit("confirm", "Please confirm", form).await;
        format!("confirmation {}", answer.action())
    }

    /// Asks only for the kinds of input the client declared (sampling and/or elicitation).
    #[tool]
    async fn test_input_required_result_capabilities(&self, ctx: Ctx) -> String {
        if ctx.supports(InputKind::Sampling) {
            let reply = ctx
                .sample(Sample::new("capability_sample", 50).user("Say hello"))
                .await;
            return format!("sampled: {}", reply.text().unwrap_or("(not text)"));
        }
        if ctx.supports(InputKind::Form) {
            let name = ask_name(&ctx, "capability_elicit", "What is your name?").await;
            return format!("elicited: {name}");
        }
        "the client declared no input capability".into()
    }

    /// Announces that the tool list changed (to every stream that listens for it).
    #[tool]
    async fn test_trigger_tool_change(&self, notifier: Notifier) -> Result<&'static str, Error> {
        notifier
            .notify_tools_changed()
            .await
            .map_err(|e| Error::new(-32603, e.to_string()))?;
        Ok("tools/list_changed sent")
    }

    /// Announces that the resource at `uri` was updated (to the sessions subscribed to it and
    /// the listens that name it): a change whose every event can be told apart, for the rolling
    /// restart test.
    #[tool]
    async fn test_trigger_resource_update(
        &self,
        notifier: Notifier,
        uri: String,
    ) -> Result<String, Error> {
        notifier
            .notify_resource_updated(uri.clone())
            .await
            .map_err(|e| Error::new(-32603, e.to_string()))?;
        Ok(format!("notifications/resources/updated sent for {uri}"))
    }

    /// Announces that the prompt list changed.
    #[tool]
    async fn test_trigger_prompt_change(&self, notifier: Notifier) -> Result<&'static str, Error> {
        notifier
            .notify_prompts_changed()
            .await
            .map_err(|e| Error::new(-32603, e.to_string()))?;
        Ok("prompts/list_changed sent")
    }

    /// A tool whose input schema uses JSON Schema 2020-12 keywords.
    #[tool]
    async fn json_schema_2020_12_tool(&self, args: Arguments<ContactArgs>) -> String {
        format!("called with {}", Value::Object(args.0.0))
    }

    /// Static text.
    #[resource("test://static-text", name = "static-text", mime_type = "text/plain")]
    async fn static_text(&self) -> &'static str {
        "This is the content of the static text resource."
    }

    /// A static PNG.
    #[resource(
        "test://static-binary",
        name = "static-binary",
        mime_type = "image/png"
    )]
    async fn static_binary(&self) -> Blob {
        Blob(PNG.to_vec())
    }

    /// A resource clients may watch: updated every three seconds (see `main`).
    #[resource(
        "test://watched-resource",
        name = "watched-resource",
        mime_type = "text/plain"
    )]
    async fn watched(&self) -> &'static str {
        "Watched resource content"
    }

    /// Data for one id.
    #[resource(
        "test://template/<id>/data",
        name = "template",
        mime_type = "application/json"
    )]
    async fn template(&self, id: String) -> Json<Value> {
        Json(json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}))
    }

    /// Greets someone (a plain tool, for the tasks scenarios).
    #[tool]
    async fn greet(&self, name: String) -> String {
        format!("Hello, {name}!")
    }

    /// Sleeps `seconds`, then reports: a task when the client declares the tasks extension.
    #[task_handler(ttl = "10m", poll_interval = "200ms")]
    async fn slow_compute(&self, seconds: u64, label: Option<String>) -> String {
        tokio::time::sleep(std::time::Duration::from_secs(seconds)).await;
        let label = label.unwrap_or_default();
        format!("computed `{label}` in {seconds}s")
    }

    /// Fails as a tool after about a second; runs only as a task.
    #[task_handler(mode = "required", ttl = "10m", poll_interval = "200ms")]
    async fn failing_job(&self) -> Result<String, String> {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        Err("the job failed".into())
    }

    /// Panics: a protocol error, so its task ends `failed`.
    #[task_handler(ttl = "10m", poll_interval = "200ms")]
    async fn protocol_error_job(&self) -> String {
        panic!("the job crashed")
    }

    /// Asks to confirm deleting `filename` (key `confirm_delete`) while running as a task.
    #[task_handler(ttl = "10m", poll_interval = "200ms")]
    async fn confirm_delete(&self, filename: String, ctx: Ctx) -> String {
        let form = Form::new().required("confirm", Field::boolean());
        let message = format!("Delete {filename}?");
        let answer = ctx.elicit::<Value>("confirm_delete", &message, form).await;
        let confirmed = answer
            .accepted()
            .and_then(|v| v.get("confirm").and_then(Value::as_bool));
        if confirmed == Some(true) {
            format!("Deleted {filename}")
        } else {
            format!("Kept {filename}")
        }
    }

    /// Asks two questions at once (keys `first_name` and `last_name`) while running as a task.
    #[task_handler(ttl = "10m", poll_interval = "200ms")]
    async fn multi_input(&self, ctx: Ctx) -> String {
        let ask = |key: &str, message: &str| {
            Elicit::<Value>::new(key, message, Form::new().required("name", Field::string()))
        };
        let (first, last) = ctx
            .input((
                ask("first_name", "First name?"),
                ask("last_name", "Last name?"),
            ))
            .await;
        let name = |answer: Elicitation<Value>| {
            answer
                .accepted()
                .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default()
        };
        format!("Hello, {} {}!", name(first), name(last))
    }

    /// Asks the user's name in the client's request (key `user_name`, an MRTR round), then goes
    /// on as a task that greets them.
    #[task_handler(mode = "required", prepare, ttl = "10m", poll_interval = "200ms")]
    async fn test_tool_with_task(&self, ctx: Ctx) -> String {
        let name = ask_name(&ctx, "user_name", "What is your name?").await;
        ctx.task().await;
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        format!("Hello, {name}! (from the task)")
    }

    /// A skill for the Skills extension scenarios: `SKILL.md`, a script and a reference file in
    /// a subdirectory.
    #[skill("skill://conformance/test-skill")]
    async fn test_skill(&self) -> phantom::skills::Skill {
        phantom::skills::Skill::new("test-skill", "A skill for testing the Skills extension")
            .body("# Test skill\n\nRun `scripts/check.sh`, then read `references/notes.md`.\n")
            .file("scripts/check.sh", "#!/bin/sh\necho ok\n")
            .file("references/notes.md", "Notes for the test skill.\n")
    }

    /// A prompt without arguments.
    #[prompt]
    async fn test_simple_prompt(&self) -> PromptReply {
        PromptReply::default().user("This is a simple prompt for testing.")
    }

    /// A prompt with two required arguments.
    #[prompt]
    async fn test_prompt_with_arguments(
        &self,
        #[arg(description = "First test argument")]
        #[complete(with = "Self::complete_arg1")]
        arg1: String,
        #[arg(description = "Second test argument")] arg2: String,
    ) -> PromptReply {
        PromptReply::default().user(format!(
            "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
        ))
    }

    /// A prompt embedding a resource.
    #[prompt]
    async fn test_prompt_with_embedded_resource(
        &self,
        #[arg(rename = "resourceUri", description = "URI of the resource to embed")]
        resource_uri: String,
    ) -> Vec<PromptMessage> {
        vec![
            PromptMessage {
                role: phantom::prompts::Role::User,
                content: Content::embedded(
                    ResourceContents::text(resource_uri, "Embedded resource content for testing.")
                        .mime_type("text/plain"),
                ),
            },
            PromptMessage::user("Please process the embedded resource above."),
        ]
    }

    /// A prompt with an image.
    #[prompt]
    async fn test_prompt_with_image(&self) -> Vec<PromptMessage> {
        vec![
            PromptMessage {
                role: phantom::prompts::Role::User,
                content: Content::image(PNG, "image/png"),
            },
            PromptMessage::user("Please analyze the image above."),
        ]
    }

    /// A prompt that asks the user for context first (key `user_context`).
    #[prompt]
    async fn test_input_required_result_prompt(&self, ctx: Ctx) -> PromptReply {
        let form = Form::new().required("context", Field::string());
        let context = ctx
            .elicit::<Value>("user_context", "What context should the prompt use?", form)
            .await
            .accepted()
            .and_then(|v| v.get("context").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        PromptReply::default().user(format!("Use this context: {context}"))
    }

    async fn complete_arg1(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        ["paris", "park", "party", "test", "testing"]
            .into_iter()
            .filter(|v| v.starts_with(value))
            .map(str::to_owned)
            .collect()
    }
}

/// `Elicitation completed: action=…, content=…`, as the suite's fixtures answer.
fn elicitation_text(answer: &Elicitation<Value>) -> String {
    let content = match answer {
        Elicitation::Accept(v) => v.to_string(),
        Elicitation::Decline | Elicitation::Cancel => "{}".into(),
    };
    format!(
        "Elicitation completed: action={}, content={content}",
        answer.action()
    )
}

/// Asks for a name under `key`; `stranger` when the user declines.
async fn ask_name(ctx: &Ctx, key: &str, message: &str) -> String {
    let form = Form::new().required("name", Field::string());
    ctx.elicit::<Value>(key, message, form)
        .await
        .accepted()
        .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_else(|| "stranger".into())
}

/// The usage line, for a wrong argument.
const USAGE: &str = "usage: everything [--addr HOST:PORT] [--preview] [--redis redis://HOST:PORT/] \
[--drain-delay MS] [--grace MS] [--executions FILE] [--admin IP:PORT]";

/// `--executions FILE`: one line per `tools/call` this node executes, appended to `FILE` (one
/// `write` each, unbuffered, so a line is on disk before the tool runs, and nodes sharing the
/// file do not split each other's lines) — `{"node": "<addr> <pid>", "session": …, "tool": …,
/// "arguments": …}`, the session id `null` in 2026-07-28. The rolling restart test
/// (`tests/harness/rolling/`) gives each call an argument naming it, and counts the lines of
/// every node generation: each call must have run exactly once.
struct Executions {
    file: std::sync::Mutex<std::fs::File>,
    /// This node (its address and process id), on every line.
    node: String,
}

impl phantom::middleware::Middleware for Executions {
    fn on_call_tool<'a>(
        &'a self,
        call: phantom::middleware::Call<'a>,
        next: phantom::middleware::Next<'a>,
    ) -> phantom::BoxFuture<'a, phantom::middleware::Answer> {
        let line = json!({
            "node": self.node,
            "session": call.session.id.as_deref(),
            "tool": call.name,
            "arguments": call.arguments(),
        });
        let line = format!("{line}\n");
        let written = {
            use std::io::Write as _;
            let mut file = self
                .file
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            file.write_all(line.as_bytes())
        };
        if let Err(e) = written {
            tracing::error!(error = %e, "--executions: could not record a call");
        }
        next.run(call)
    }
}

/// The value after a flag.
fn value(
    args: &mut impl Iterator<Item = String>,
    flag: &str,
    what: &str,
) -> std::io::Result<String> {
    args.next().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{flag} needs {what}; {USAGE}"),
        )
    })
}

/// A flag's value in milliseconds.
fn millis(
    args: &mut impl Iterator<Item = String>,
    flag: &str,
) -> std::io::Result<std::time::Duration> {
    let text = value(args, flag, "a number of milliseconds")?;
    text.parse()
        .map(std::time::Duration::from_millis)
        .map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{flag} needs a number of milliseconds, not `{text}`; {USAGE}"),
            )
        })
}

/// Announces a change of `test://watched-resource` every three seconds, as the reference
/// server's does, for as long as the process runs.
pub(crate) fn watch_resource(notifier: phantom::Notifier) {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(3));
        loop {
            tick.tick().await;
            if let Err(e) = notifier
                .notify_resource_updated("test://watched-resource")
                .await
            {
                tracing::warn!(error = %e, "could not announce the watched resource's update");
            }
        }
    });
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let mut args = std::env::args().skip(1);
    let mut addr = String::from("127.0.0.1:4100");
    let mut preview = false;
    let mut redis = None;
    let (mut drain_delay, mut grace, mut executions, mut admin) = (None, None, None, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--preview" => preview = true,
            "--redis" => redis = Some(value(&mut args, "--redis", "a URL (redis://HOST:PORT/)")?),
            "--addr" => addr = value(&mut args, "--addr", "HOST:PORT")?,
            "--drain-delay" => drain_delay = Some(millis(&mut args, "--drain-delay")?),
            "--grace" => grace = Some(millis(&mut args, "--grace")?),
            "--executions" => executions = Some(value(&mut args, "--executions", "a file")?),
            "--admin" => {
                let text = value(&mut args, "--admin", "IP:PORT")?;
                admin = Some(text.parse::<std::net::SocketAddr>().map_err(|e| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!("--admin needs IP:PORT, not `{text}` ({e}); {USAGE}"),
                    )
                })?);
            }
            other => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("unknown argument `{other}`; {USAGE}"),
                ));
            }
        }
    }
    // Every request, session and stream recorded, read at `/metrics` by Prometheus.
    phantom::http::install_prometheus()?;
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let mut config = phantom::Config::default();
    // Nodes behind one balancer seal 2026-07-28 `requestState` with one key: a state sealed by
    // one node must open on the next (PHANTOM_STATE_KEY: 32 bytes in base64).
    if let Ok(key) = std::env::var("PHANTOM_STATE_KEY") {
        let key = phantom::input::StateKey::from_base64(&key).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("PHANTOM_STATE_KEY: {e}"),
            )
        })?;
        config = config.with_state_key(key);
    }
    if let Some(path) = executions {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| std::io::Error::other(format!("--executions {path}: {e}")))?;
        config = config.with_middleware(Executions {
            file: std::sync::Mutex::new(file),
            node: format!("{} {}", listener.local_addr()?, std::process::id()),
        });
    }
    let mut http =
        phantom::http::HttpConfig::for_addr(listener.local_addr()?).with_preview(preview);
    // Behind a balancer on loopback (examples/cluster), the drain delay must outlast the
    // balancer's checks of `/readyz`: `for_addr` gives loopback none.
    if let Some(delay) = drain_delay {
        http = http.with_drain_delay(delay);
    }
    if let Some(grace) = grace {
        http = http.with_grace(grace);
    }
    if let Some(admin) = admin {
        http = http.with_admin_addr(admin);
    }
    // With `--redis`, sessions, events, answers, changes and tasks are shared by every node on
    // that Redis (examples/cluster/ runs two behind HAProxy).
    if let Some(url) = redis {
        let backend = phantom_redis::backend(&url)
            .await
            .map_err(|e| std::io::Error::other(format!("--redis {url}: {e}")))?;
        config = config.with_backend(backend);
    }
    watch_resource(config.notifier().clone());
    // SIGTERM or SIGINT: readiness turns 503, then the server drains and returns.
    let shutdown = phantom::shutdown_signal();
    let dispatcher = phantom::dispatch::Dispatcher::with_config(Everything, config);
    phantom::http::serve_dispatcher(listener, dispatcher, http, shutdown).await
}
