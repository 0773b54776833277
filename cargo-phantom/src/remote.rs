//! `list`, `call`, `read` and `prompt`: one connection to the server named on the command line
//! (a URL, or `-- COMMAND ARGS…` for stdio), one request, its answer shown.

use std::process::ExitCode;
use std::time::Duration;

use phantom::client::{Client, Era};
use serde_json::{Map, Value, json};

use crate::cli::{CallArgs, Connection, EraArg, ListArgs, ReadArgs};
use crate::{Failure, Outcome, elicit, login, show};

/// Where the server is.
pub(crate) enum Target<'a> {
    Url(&'a str),
    Command(&'a str, &'a [String]),
}

impl std::fmt::Display for Target<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Url(url) => f.write_str(url),
            Self::Command(program, args) => write!(f, "`{program}` {}", args.join(" ")),
        }
    }
}

/// The target of a command: the URL given, else the command after `--`.
pub(crate) fn target<'a>(
    url: Option<&'a str>,
    conn: &'a Connection,
) -> Result<Target<'a>, Failure> {
    match (url, conn.command.split_first()) {
        (Some(url), None) => {
            if url.starts_with("http://") || url.starts_with("https://") {
                Ok(Target::Url(url))
            } else {
                Err(Failure::new(format!("`{url}` is not an http:// or https:// URL"))
                    .help("give the server's URL (`http://127.0.0.1:4000/mcp`), or `-- COMMAND ARGS…` to start a stdio server"))
            }
        }
        (None, Some((program, args))) => Ok(Target::Command(program, args)),
        (Some(url), Some(_)) => Err(Failure::new(format!(
            "both a URL (`{url}`) and a command after `--` were given"
        ))
        .help("give one: the URL of an HTTP server, or `-- COMMAND ARGS…` for a stdio server")),
        (None, None) => Err(Failure::new("no server given").help(
            "add the server's URL (`http://127.0.0.1:4000/mcp`), or `-- COMMAND ARGS…` to start a stdio server",
        )),
    }
}

/// The client's era for `--era`.
pub(crate) fn era(era: EraArg) -> Era {
    match era {
        EraArg::Auto => Era::Auto,
        EraArg::Legacy => Era::Legacy,
        EraArg::Modern => Era::Modern,
    }
}

/// Connects to `target` as `conn` says: era, headers, the tokens `login` kept, the terminal's
/// answers to elicitation, and progress and log messages printed to stderr as they arrive.
pub(crate) async fn connect(target: &Target<'_>, conn: &Connection) -> Result<Client, Failure> {
    let mut builder = match target {
        Target::Url(url) => {
            let builder = Client::http(url);
            match login::kept(url, conn).await? {
                Some(oauth) => builder.oauth(oauth),
                None => builder,
            }
        }
        Target::Command(program, args) => Client::stdio(program, args.iter().cloned()),
    };
    builder = builder
        .era(era(conn.era))
        .timeout(Duration::from_secs(conn.timeout))
        .on_notification(show::notification);
    for header in &conn.headers {
        let Some((name, value)) = header.split_once(':') else {
            return Err(Failure::new(format!("the header `{header}` has no `:`"))
                .help("write it as `--header NAME:VALUE`"));
        };
        builder = builder.header(name.trim(), value.trim());
    }
    if let Some(token) = &conn.bearer {
        builder = builder.bearer(token);
    }
    let no_input = conn.no_input;
    builder = builder.on_elicit(move |request| elicit::answer(request, no_input));
    builder.connect().await.map_err(|e| {
        if let Some(status @ (401 | 403)) = e.status() {
            let challenge = e
                .www_authenticate()
                .map(|c| format!(" (WWW-Authenticate: {c})"))
                .unwrap_or_default();
            let (what, help) = if status == 401 {
                (
                    "wants a token",
                    "sign in with `cargo phantom login URL`, or give a token with `--bearer TOKEN` (or `--header Authorization:…`)",
                )
            } else {
                (
                    "refused the token",
                    "give a token with the scopes it asks for (`--bearer TOKEN`)",
                )
            };
            return Failure::new(format!(
                "cannot connect to {target}: the server {what} (HTTP {status}){challenge}"
            ))
            .help(help);
        }
        if let phantom::client::ClientError::Auth { .. } = e {
            return Failure::new(format!("cannot connect to {target}: {e}")).help(
                "`cargo phantom login URL` signs in again; `cargo phantom logout URL` forgets the tokens kept",
            );
        }
        Failure::new(format!("cannot connect to {target}: {e}")).help(match target {
            Target::Url(_) => "check the URL (phantom serves at `/mcp`) and that the server runs; `--era legacy` or `--era modern` pins the era",
            Target::Command(..) => "check that the command starts an MCP server on stdin/stdout (phantom's examples take `--stdio`)",
        })
    })
}

/// The log level asked for, as the era carries it: `logging/setLevel` on a legacy session, the
/// request's `_meta` in 2026-07-28.
async fn ask_for_logs(client: &Client, conn: &Connection, meta: &mut Map<String, Value>) {
    if client.era() == Era::Modern {
        meta.insert(
            "io.modelcontextprotocol/logLevel".into(),
            json!(conn.log_level),
        );
    } else if client.server_capabilities().get("logging").is_some() {
        let asked = client
            .request("logging/setLevel", json!({"level": conn.log_level}))
            .await;
        if let Err(e) = asked {
            eprintln!("warning: the server refused `logging/setLevel`: {e}");
        }
    }
}

/// Every page of a list method's `key`, or `None` when the server does not offer the method.
pub(crate) async fn all_pages(
    client: &Client,
    method: &str,
    key: &str,
) -> Result<Option<Vec<Value>>, Failure> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = cursor.map_or_else(|| json!({}), |c| json!({"cursor": c}));
        let mut page = match client.request(method, params).await {
            Ok(page) => page,
            // -32601: method not found; a server without the capability.
            Err(e) if e.code() == Some(-32601) => return Ok(None),
            Err(e) => return Err(Failure::new(format!("`{method}` failed: {e}"))),
        };
        if let Value::Array(mut found) = page[key].take() {
            items.append(&mut found);
        }
        match page["nextCursor"].as_str() {
            Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
            _ => return Ok(Some(items)),
        }
    }
}

/// Whether the server's capabilities declare `name` (a server that declares none is asked
/// anyway).
pub(crate) fn offers(client: &Client, name: &str) -> bool {
    let caps = client.server_capabilities();
    !caps.is_object() || caps.get(name).is_some()
}

/// Tools, resources, resource templates and prompts, each `None` when not offered.
pub(crate) async fn listing(client: &Client) -> Result<Map<String, Value>, Failure> {
    let mut out = Map::new();
    for (capability, method, key) in [
        ("tools", "tools/list", "tools"),
        ("resources", "resources/list", "resources"),
        ("resources", "resources/templates/list", "resourceTemplates"),
        ("prompts", "prompts/list", "prompts"),
    ] {
        let items = if offers(client, capability) {
            all_pages(client, method, key).await?
        } else {
            None
        };
        out.insert(key.into(), items.map_or(Value::Null, Value::Array));
    }
    Ok(out)
}

/// `cargo phantom list`.
pub(crate) async fn list(args: &ListArgs) -> Outcome {
    let target = target(args.url.as_deref(), &args.connection)?;
    let client = connect(&target, &args.connection).await?;
    let listing = listing(&client).await;
    client.close().await;
    let listing = listing?;
    if args.connection.json {
        show::json(&Value::Object(listing));
    } else {
        show::listing(&listing);
    }
    Ok(ExitCode::SUCCESS)
}

/// The JSON and URL of `call TOOL [JSON] URL` in either order.
fn split_rest(args: &CallArgs) -> Result<(Option<&str>, Value), Failure> {
    let mut url = None;
    let mut arguments = None;
    for item in &args.rest {
        if item.starts_with("http://") || item.starts_with("https://") {
            url = Some(item.as_str());
        } else if arguments.is_none() {
            let parsed: Value = serde_json::from_str(item).map_err(|e| {
                Failure::new(format!("the arguments `{item}` are not JSON: {e}")).help(
                    r#"give them as one JSON object, quoted for the shell: '{"query": "memory"}'"#,
                )
            })?;
            if !parsed.is_object() {
                return Err(
                    Failure::new(format!("the arguments `{item}` are not a JSON object"))
                        .help(r#"name each argument: '{"query": "memory"}'"#),
                );
            }
            arguments = Some(parsed);
        } else {
            return Err(Failure::new(format!("unexpected `{item}`"))
                .help("give the name, then the JSON arguments and the URL"));
        }
    }
    Ok((url, arguments.unwrap_or_else(|| json!({}))))
}

/// `cargo phantom call`.
pub(crate) async fn call(args: &CallArgs) -> Outcome {
    let (url, arguments) = split_rest(args)?;
    let target = target(url, &args.connection)?;
    let client = connect(&target, &args.connection).await?;
    let mut meta = Map::new();
    meta.insert("progressToken".into(), json!("cargo-phantom"));
    ask_for_logs(&client, &args.connection, &mut meta).await;
    let params = json!({"name": args.name, "arguments": arguments, "_meta": meta});
    let result = client.request("tools/call", params).await;
    client.close().await;
    let result = result.map_err(|e| called_failure(&args.name, "tool", &e))?;
    if args.connection.json {
        show::json(&result);
    } else {
        show::tool_result(&result);
    }
    if result["isError"] == true {
        eprintln!("error: the tool `{}` reported an error", args.name);
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn called_failure(name: &str, kind: &str, e: &phantom::client::ClientError) -> Failure {
    let failure = Failure::new(format!("the {kind} `{name}` failed: {e}"));
    match e.code() {
        Some(-32602) => failure.help(format!(
            "`cargo phantom list` shows the {kind}s with their arguments"
        )),
        _ => failure,
    }
}

/// `cargo phantom read`.
pub(crate) async fn read(args: &ReadArgs) -> Outcome {
    let target = target(args.url.as_deref(), &args.connection)?;
    let client = connect(&target, &args.connection).await?;
    let mut meta = Map::new();
    ask_for_logs(&client, &args.connection, &mut meta).await;
    let result = client
        .request("resources/read", json!({"uri": args.uri, "_meta": meta}))
        .await;
    client.close().await;
    let result = result.map_err(|e| {
        Failure::new(format!("cannot read `{}`: {e}", args.uri))
            .help("`cargo phantom list` shows the resources and templates")
    })?;
    if args.connection.json {
        show::json(&result);
    } else {
        show::contents(&result["contents"]);
    }
    Ok(ExitCode::SUCCESS)
}

/// `cargo phantom prompt`.
pub(crate) async fn prompt(args: &CallArgs) -> Outcome {
    let (url, mut arguments) = split_rest(args)?;
    // A prompt's arguments are strings: `{"study_id": 1}` is sent as `"1"`.
    for value in arguments
        .as_object_mut()
        .into_iter()
        .flat_map(|a| a.values_mut())
    {
        if !value.is_string() {
            *value = Value::String(value.to_string());
        }
    }
    let target = target(url, &args.connection)?;
    let client = connect(&target, &args.connection).await?;
    let mut meta = Map::new();
    ask_for_logs(&client, &args.connection, &mut meta).await;
    let params = json!({"name": args.name, "arguments": arguments, "_meta": meta});
    let result = client.request("prompts/get", params).await;
    client.close().await;
    let result = result.map_err(|e| called_failure(&args.name, "prompt", &e))?;
    if args.connection.json {
        show::json(&result);
    } else {
        show::prompt(&result);
    }
    Ok(ExitCode::SUCCESS)
}
