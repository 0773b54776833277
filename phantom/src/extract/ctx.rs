//! [`Ctx`]: a handler's line to the client while it works.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Context, FromContext};
use crate::dispatch::Outbound;
use crate::protocol::{LogLevel, Method};

/// The client side of the request a handler serves: progress and log messages sent before the
/// result (over HTTP the response becomes an SSE stream; on stdio they are lines). Take it as a
/// parameter of a tool, prompt or resource handler: `ctx: Ctx`.
///
/// ```
/// use phantom::prelude::*;
///
/// #[derive(Clone)]
/// struct Jobs;
///
/// #[mcp_router(name = "jobs", version = "1.0.0")]
/// impl Jobs {
///     /// Counts to `n`, reporting progress.
///     #[tool]
///     async fn count(&self, ctx: Ctx, n: u32) -> String {
///         for i in 1..=n {
///             ctx.progress(f64::from(i), Some(f64::from(n)), None).await;
///         }
///         ctx.log(LogLevel::Info, "counted").await;
///         format!("counted to {n}")
///     }
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Ctx {
    outbound: Outbound,
    progress_token: Option<Box<RawValue>>,
    log_level: Option<LogLevel>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProgressParams<'a> {
    progress_token: &'a RawValue,
    progress: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

impl Ctx {
    /// Reports progress (`notifications/progress`), when the request carried a
    /// `_meta.progressToken`; otherwise does nothing. `progress` should grow with every call.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(token) = &self.progress_token {
            let params = ProgressParams {
                progress_token: token,
                progress,
                total,
                message,
            };
            self.outbound.notify(Method::Progress, &params);
        }
    }

    /// Sends a log message (`notifications/message`) when the client asked for this level or a
    /// lower one: with `logging/setLevel` (2025-11-25 and earlier) or the request's
    /// `_meta["io.modelcontextprotocol/logLevel"]` (2026-07-28). A client that asked for nothing
    /// gets nothing.
    pub async fn log(&self, level: LogLevel, data: impl Serialize) {
        if self.log_level.is_none_or(|min| level < min) {
            return;
        }
        let mut params = Map::new();
        params.insert(
            "level".into(),
            serde_json::to_value(level).unwrap_or_default(),
        );
        params.insert(
            "data".into(),
            serde_json::to_value(data).unwrap_or(Value::Null),
        );
        self.outbound.notify(Method::LogMessage, &params);
    }

    /// Whether the client asked for log messages of this level.
    pub fn logs(&self, level: LogLevel) -> bool {
        self.log_level.is_some_and(|min| level >= min)
    }
}

impl<'a> FromContext<'a> for Ctx {
    fn from_context(cx: &Context<'a>) -> Result<Self, String> {
        Ok(Self {
            outbound: cx.outbound.clone(),
            progress_token: cx.progress_token.map(ToOwned::to_owned),
            log_level: cx.session.log_level,
        })
    }
}
