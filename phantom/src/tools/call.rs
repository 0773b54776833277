//! `tools/call`: look the tool up, check the client's capabilities and the arguments, run the
//! handler, shape its result.

use std::future::Future;

use serde_json::Value;
use serde_json::json;
use serde_json::value::RawValue;

use super::{Found, Table, TaskSupport};
use crate::auth::check_scopes;
use crate::extract::{Args, CallParts, Context};
use crate::input::{limited, missing_capabilities};
use crate::kernel::Status;
use crate::kernel::{Body, Failure, guarded, invalid, members_of, named_arguments};
use crate::protocol::{ErrorObject, Params, codes};
use crate::session::Session;
use crate::tools::{ToolEntry, ToolOutput, ToolResult};

/// What `tools/call` may use: the server, its tools table, the router's time limit, and the
/// room that runs a `#[task_handler]` tool as a task.
pub(crate) trait Env {
    type Server: Send + Sync + 'static;
    fn server(&self) -> &Self::Server;
    fn tools(&self) -> &Table<Self::Server>;
    /// `#[mcp_router(tool_timeout)]`, in milliseconds.
    fn tool_timeout_ms(&self) -> Option<u64>;
    /// Whether a call of declared `#[task_handler]` tool `name` runs as a task (the tasks room
    /// decides), or its refusal to a client without the extension.
    fn runs_as_task(
        &self,
        name: &str,
        task: TaskSupport,
        session: &Session,
    ) -> Result<bool, Failure>;
    /// Starts declared tool `name` as a task (the tasks room): its `CreateTaskResult`.
    fn start_task<'a>(
        &'a self,
        name: &'a str,
        arguments: Option<&'a RawValue>,
        cx: Context<'a>,
    ) -> impl Future<Output = Result<Body, Failure>> + Send + 'a;
}

/// `tools/call`: the tool found in the table (declared or added), its scopes checked, then run
/// inline or handed to the tasks room. `arguments`: as read with the params, or `None` to read
/// them again from `params` (a middleware rewrote them).
pub(crate) async fn call<E: Env>(
    env: &E,
    params: Option<Params<'_>>,
    cx: Context<'_>,
    arguments: Option<Option<&RawValue>>,
) -> Result<Body, Failure> {
    let session = cx.session;
    let p = named_arguments(cx.target, params, arguments)?;
    let found = env.tools().find(p.name, session)?;
    let entry = match found {
        Found::Added(tool) => {
            check_scopes(session, &tool.scopes, || format!("tool `{}`", tool.name))?;
            let name = tool.name.clone();
            return guarded("tool handler", &name, (tool.handler)(p.arguments, cx)).await?;
        }
        Found::Declared(entry) => entry,
    };
    check_scopes(session, entry.def.scopes, || {
        format!("tool `{}`", entry.def.name)
    })?;
    if let Some(task) = entry.def.task
        && env.runs_as_task(entry.def.name, task, session)?
    {
        return env.start_task(p.name, p.arguments, cx).await;
    }
    run_tool(env.server(), entry, env.tool_timeout_ms(), p.arguments, cx).await
}

/// Runs a declared tool of `server` (the one served, or a router merged into it): client
/// capability checks, argument checks, the handler under its time limit, the result's shape.
/// The caller checked its scopes.
pub(crate) async fn run_tool<T>(
    server: &T,
    entry: &ToolEntry<T>,
    router_timeout_ms: Option<u64>,
    arguments: Option<&RawValue>,
    cx: Context<'_>,
) -> Result<Body, Failure> {
    let session = cx.session;
    if session.is_stateless() && !entry.def.requires.is_empty() {
        return Err(Failure::from(
            ErrorObject::new(
                codes::MISSING_CLIENT_CAPABILITY,
                format!(
                    "Missing required client capability: tool `{}` needs client capabilities, which this server cannot know in stateless mode (no Mcp-Session-Id)",
                    entry.def.name
                ),
            )
            .with_data(json!({ "requiredCapabilities": entry.def.requires, "mode": "stateless" })),
        ));
    }
    if let Some(missing) = missing_capabilities(entry.def.requires, &session.client_capabilities) {
        return Err(Failure::from(
            ErrorObject::new(
                codes::MISSING_CLIENT_CAPABILITY,
                format!(
                    "Missing required client capability: tool `{}` needs it",
                    entry.def.name
                ),
            )
            .with_data(json!({ "requiredCapabilities": missing })),
        )
        .with_status(if session.is_modern() {
            Status::BadRequest
        } else {
            Status::Ok
        }));
    }
    let args = Args::parse(arguments).map_err(|e| invalid(format!("Invalid params: {e}")))?;
    let output = match check_arguments(entry, &args) {
        Err(message) => ToolOutput::Result(ToolResult::error(message)),
        Ok(()) => {
            let exchange = cx.exchange;
            let parts = CallParts { cx, args };
            let fut = (entry.def.call)(server, parts);
            let limit = entry.def.timeout_ms.or(router_timeout_ms);
            match limit {
                None => guarded("tool handler", entry.def.name, fut).await?,
                Some(ms) => {
                    let limit = std::time::Duration::from_millis(ms);
                    let guarded = guarded("tool handler", entry.def.name, fut);
                    match limited(exchange, limit, guarded).await {
                        Some(result) => result?,
                        None => {
                            exchange.cancel();
                            ToolOutput::Result(ToolResult::error(format!(
                                "Tool `{}` timed out after {}",
                                entry.def.name,
                                human(limit)
                            )))
                        }
                    }
                }
            }
        }
    };
    let mut result = match output {
        // `ToolResult::text(text)`: its reply is written around the text.
        ToolOutput::Text(text) => {
            return Ok(Body::Text {
                text,
                is_error: false,
            });
        }
        ToolOutput::Result(result) => result,
    };
    if entry.wrap_output
        && let Some(v) = result.structured_content.take()
    {
        result.structured_content = Some(json!({ "result": v }));
    }
    if result.meta.is_some() {
        return match serde_json::to_value(result) {
            Ok(Value::Object(map)) => Ok(Body::Map(map)),
            _ => Err(Failure::internal()),
        };
    }
    one_text(result).or_else(|result| members_of(&result))
}

/// A tool result of one text block and nothing else (most tools'), for the reply to write around
/// its text ([`Body::Text`]) instead of through the derived serialization of `ToolResult` and its
/// tagged `Content` (0.5 k instructions a call), and without a copy of the result of its own. The
/// same text as [`members_of`] (`one_text_is_written_as_serde_writes_it`). Any other result is
/// handed back.
fn one_text(mut result: ToolResult) -> Result<Body, ToolResult> {
    use crate::content::Content;
    let one = matches!(result.content.as_slice(), [Content::Text { .. }])
        && result.structured_content.is_none()
        && result.meta.is_none();
    if !one {
        return Err(result);
    }
    match result.content.pop() {
        Some(Content::Text { text }) => Ok(Body::Text {
            text,
            is_error: result.is_error,
        }),
        // Not reached: `one` says the list is this one text block.
        _ => Err(result),
    }
}

/// Checks a call's arguments against the tool's declared arguments and compiled validators.
fn check_arguments<S>(entry: &ToolEntry<S>, args: &Args<'_>) -> Result<(), String> {
    let unknown = args
        .names()
        .find(|n| !entry.specs.iter().any(|s| s.name == *n));
    if let Some(unknown) = unknown.filter(|_| !entry.takes_all) {
        return Err(format!(
            "unknown argument `{unknown}` for tool `{}`",
            entry.def.name
        ));
    }
    for (name, validator) in &entry.validators {
        let raw = if name.is_empty() {
            args.raw()
        } else {
            args.get(name)
        };
        let Some(raw) = raw.filter(|r| r.get() != "null") else {
            continue;
        };
        let value: Value = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
        if let Some((path, err)) = validator.first_error(&value) {
            let field = std::iter::once(*name)
                .filter(|n| !n.is_empty())
                .chain(path.split('/').filter(|s| !s.is_empty()))
                .collect::<Vec<_>>()
                .join(".");
            if field.is_empty() {
                return Err(format!("invalid arguments: {err}"));
            }
            return Err(format!("invalid argument `{field}`: {err}"));
        }
    }
    Ok(())
}

/// `30s`, `500ms`, `2m`: a time limit as `#[tool(timeout)]` spells it.
pub(crate) fn human(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(60_000) {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::one_text;
    use crate::content::Content;
    use crate::kernel::{Body, text_members_len, text_object};
    use crate::tools::ToolResult;

    proptest! {
        #[test]
        fn one_text_is_written_as_serde_writes_it(text in "\\PC{0,12}|[\"\\\\\u{0}-\u{1f}\u{7f}é/]{0,6}", is_error in any::<bool>()) {
            let result = ToolResult { is_error, ..ToolResult::text(text) };
            let expected = serde_json::to_string(&result).expect("serializes");
            let Ok(Body::Text { text, is_error }) = one_text(result) else {
                panic!("one text block");
            };
            let written = text_object(&text, is_error);
            prop_assert_eq!(text_members_len(&text, is_error) + 2, written.len());
            prop_assert_eq!(written, expected);
        }
    }

    #[test]
    fn other_results_are_left_to_serde() {
        let handed_back = |result: ToolResult| {
            let expected = serde_json::to_string(&result).expect("serializes");
            let back = one_text(result).err().expect("handed back");
            assert_eq!(serde_json::to_string(&back).expect("serializes"), expected);
        };
        handed_back(ToolResult::new(vec![]));
        handed_back(ToolResult::new(vec![
            Content::text("a"),
            Content::text("b"),
        ]));
        handed_back(ToolResult::structured(serde_json::json!({"a": 1})));
    }
}
