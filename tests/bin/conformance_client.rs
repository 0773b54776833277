//! The client the official MCP conformance suite drives (`npx conformance client --command …`;
//! tests/harness/conformance/client.sh). The suite starts it once per scenario, with the mock
//! server's URL as the last argument and the scenario in `MCP_CONFORMANCE_SCENARIO` (plus
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` and `MCP_CONFORMANCE_CONTEXT` where the suite sets them).
//!
//! It chooses per scenario which calls to make and how to set up the client; everything the
//! protocol asks of a client — headers, retries, defaults, verification — is `phantom::client`'s.
//! It prints one line on stdout, which the harness reads: `…: ok`, `…: rejected: <why>` (the
//! client refused what the server sent, as a scenario may want) or `…: error: <why>`.

use std::process::ExitCode;
use std::time::Duration;

use phantom::client::{Client, ClientError, Era, FetchRedirect, OAuth};
use phantom::input::Sampled;
use phantom::protocol::{ElicitResult, ErrorObject, Implementation, ProtocolVersion, SkillFiles};
use serde_json::{Map, Value, json};

const NAME: &str = "phantom-conformance-client";

/// Scenarios only a 2026-07-28 client takes part in: 0.1.16 sets no version, so the era comes
/// from here when the suite does not say.
const MODERN_ONLY: &[&str] = &[
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
];

/// The redirect URI the suite's authorization servers send the code to (nothing listens there:
/// the redirect is read from the authorization server's answer).
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// The Client ID Metadata Document URL the suite expects as `client_id`.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let (Some(url), Ok(scenario)) = (
        std::env::args().skip(1).last(),
        std::env::var("MCP_CONFORMANCE_SCENARIO"),
    ) else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> {NAME} <server-url>");
        return ExitCode::from(2);
    };
    let version = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
        Ok(v) => match ProtocolVersion::parse(&v) {
            Some(v) => v,
            None => {
                println!(
                    "{NAME}: error: MCP_CONFORMANCE_PROTOCOL_VERSION={v} is not a version phantom speaks"
                );
                return ExitCode::from(2);
            }
        },
        Err(_) if MODERN_ONLY.contains(&scenario.as_str()) => ProtocolVersion::V2026_07_28,
        Err(_) => ProtocolVersion::V2025_11_25,
    };
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    match run(&scenario, &url, version, &context).await {
        Ok(()) => {
            println!("{NAME}: ok");
            ExitCode::SUCCESS
        }
        Err(Failed::Rejected(why)) => {
            println!("{NAME}: rejected: {why}");
            ExitCode::from(1)
        }
        Err(Failed::Error(why)) => {
            println!("{NAME}: error: {why}");
            ExitCode::from(1)
        }
    }
}

enum Failed {
    Error(String),
    /// The client refused to go on, as a scenario may want: a skill file that does not match
    /// its listing, an authorization it would not complete, or a token the server still refuses
    /// after the one retry.
    Rejected(String),
}

impl From<ClientError> for Failed {
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::Verification { .. }
            | ClientError::Auth { .. }
            | ClientError::Http {
                status: 401 | 403, ..
            } => Self::Rejected(e.to_string()),
            e => Self::Error(e.to_string()),
        }
    }
}

async fn run(
    scenario: &str,
    url: &str,
    version: ProtocolVersion,
    context: &Value,
) -> Result<(), Failed> {
    let mut builder = Client::http(url)
        .client_info(Implementation {
            name: NAME.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            ..Implementation::default()
        })
        .timeout(Duration::from_secs(20));
    builder = if version.is_modern() {
        builder.era(Era::Modern)
    } else {
        builder.era(Era::Legacy).legacy_version(version)
    };
    if matches!(
        scenario,
        "elicitation-sep1034-client-defaults" | "sep-2322-client-request-state"
    ) {
        // Accepts with no content of its own: the client fills in the form's defaults.
        builder = builder.on_elicit(|_request| async { ElicitResult::accept(Map::new()) });
    }
    if scenario == "request-metadata" {
        // Declares every capability a client can, so the suite checks each declaration's shape.
        builder = builder
            .on_elicit(|_request| async { ElicitResult::decline() })
            .on_sample(|_request| async {
                Ok::<_, ErrorObject>(Sampled {
                    role: "assistant".into(),
                    content: json!({"type": "text", "text": "no"}),
                    model: "none".into(),
                    stop_reason: None,
                })
            })
            .on_roots(|| async { Vec::new() });
    }
    if scenario.starts_with("auth/") {
        builder = builder.oauth(oauth(scenario, context));
    }
    let client = builder.connect().await?;
    let outcome = calls(&client, scenario, context).await;
    client.close().await;
    outcome
}

/// The OAuth set-up of an `auth/` scenario: a grant without a user with the context's
/// credentials where the scenario is one, else the authorization code flow.
fn oauth(scenario: &str, context: &Value) -> OAuth {
    let text = |name: &str| context[name].as_str().unwrap_or_default().to_owned();
    match scenario {
        "auth/client-credentials-basic" => {
            OAuth::client_credentials(&text("client_id"), &text("client_secret"))
        }
        "auth/client-credentials-jwt" => OAuth::private_key_jwt(
            &text("client_id"),
            &text("private_key_pem"),
            context["signing_algorithm"].as_str().unwrap_or("ES256"),
        ),
        "auth/wif-jwt-bearer" => {
            // The workload's token, as a platform would hand it over at each request.
            let jwt = text("valid_jwt");
            OAuth::jwt_bearer(&text("client_id"), move || {
                let jwt = jwt.clone();
                async move { Ok(jwt) }
            })
        }
        // 0.1.16 names it cross-app access.
        "auth/enterprise-managed-authorization" | "auth/cross-app-access-complete-flow" => {
            // The user's ID token, as the application's sign-in at the identity provider gave it.
            let id_token = text("idp_id_token");
            OAuth::enterprise_managed(
                &text("client_id"),
                context["client_secret"].as_str(),
                &text("idp_token_endpoint"),
                &text("idp_client_id"),
                move || {
                    let id_token = id_token.clone();
                    async move { Ok(id_token) }
                },
            )
        }
        _ => {
            let mut oauth = OAuth::new(REDIRECT_URI)
                .client_name(NAME)
                .client_metadata_url(CLIENT_METADATA_URL)
                .authorize(FetchRedirect);
            if let Some(id) = context["client_id"].as_str() {
                oauth = oauth.credentials(id, context["client_secret"].as_str());
            }
            if scenario.starts_with("auth/dpop") {
                oauth = oauth.dpop();
            }
            oauth
        }
    }
}

async fn calls(client: &Client, scenario: &str, context: &Value) -> Result<(), Failed> {
    match scenario {
        "initialize" | "request-metadata" | "json-schema-ref-no-deref" => {
            client.list_tools(None).await?;
        }
        "tools_call" => {
            client.list_tools(None).await?;
            client
                .call_tool("add_numbers", json!({"a": 2, "b": 3}))
                .await?;
        }
        "elicitation-sep1034-client-defaults" => {
            client.list_tools(None).await?;
            client
                .call_tool("test_client_elicitation_defaults", json!({}))
                .await?;
        }
        "sse-retry" => {
            client.list_tools(None).await?;
            client.call_tool("test_reconnection", json!({})).await?;
        }
        "sep-2322-client-request-state" => {
            for tool in client.list_tools(None).await?.items {
                client.call_tool(&tool.name, json!({})).await?;
            }
        }
        "http-standard-headers" => {
            for tool in client.list_tools(None).await?.items {
                client.call_tool(&tool.name, json!({})).await?;
            }
            for resource in client.list_resources(None).await?.items {
                client.read_resource(&resource.uri).await?;
            }
            for prompt in client.list_prompts(None).await?.items {
                client.get_prompt(&prompt.name, json!({})).await?;
            }
        }
        "http-custom-headers" => {
            client.list_tools(None).await?;
            let calls = context["toolCalls"].as_array().cloned().unwrap_or_default();
            for call in calls {
                let name = call["name"].as_str().unwrap_or_default();
                client.call_tool(name, call["arguments"].clone()).await?;
            }
        }
        "http-invalid-tool-headers" => {
            // Every tool the client lists is called: the ones whose `x-mcp-header` is invalid
            // must not be listed at all.
            for tool in client.list_tools(None).await?.items {
                client
                    .call_tool(&tool.name, strings_for(&tool.input_schema))
                    .await?;
            }
        }
        "json-schema-2020-12-preservation" => {
            let tools = client.list_tools(None).await?.items;
            let schema = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .map(|t| t.input_schema.clone())
                .ok_or_else(|| Failed::Error("no json_schema_2020_12_tool listed".into()))?;
            client
                .call_tool("json_schema_echo", json!({"schema": schema}))
                .await?;
        }
        "sep-2640-client-no-prefetch" => {
            client.list_skills(None).await?;
        }
        s if s.starts_with("sep-2640-client-verify-") => {
            // Loads every skill: its SKILL.md checked against the listing, then its other files;
            // the first that does not match stops it (the client says `rejected`).
            for entry in client.list_skills(None).await?.items {
                let loaded = client.load_skill(&entry).await?;
                if let SkillFiles::Files(files) = &loaded.entry.resources {
                    for file in files.iter().filter(|f| f.uri != entry.uri) {
                        client.read_skill_file(&entry, &file.uri).await?;
                    }
                }
            }
        }
        s if s.starts_with("auth/") => {
            client.list_tools(None).await?;
            client.call_tool("test-tool", json!({})).await?;
        }
        other => return Err(Failed::Error(format!("unknown scenario `{other}`"))),
    }
    Ok(())
}

/// Arguments for a tool: every required string property given a value.
fn strings_for(schema: &Value) -> Value {
    let mut arguments = Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let Some(name) = name.as_str() else { continue };
        if schema["properties"][name]["type"] == "string" {
            arguments.insert(name.to_owned(), json!("us-west1"));
        }
    }
    Value::Object(arguments)
}
