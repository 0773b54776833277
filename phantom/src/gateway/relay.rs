//! [`Relay`]: what the upstream asks and tells while it serves one forwarded request, passed on
//! to the front's client through the request's [`Ctx`].

use futures_util::FutureExt as _;
use serde_json::{Value, json};

use super::remote::Remote;
use crate::Ctx;
use crate::client::Responder;
use crate::extract::Context;
use crate::input::Forward;
use crate::kernel::BoxFuture;
use crate::kernel::{Body, Failure, Locked as _};
use crate::protocol::LogLevel;
use crate::session::Session;
use crate::tools::TaskRelay;

pub(super) struct Relay {
    pub(super) ctx: Ctx,
}

impl Responder for Relay {
    fn answer<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Value, Value>> {
        Box::pin(async move {
            match Forward::new(key, method, params) {
                // In 2026-07-28 a first round ends the front request here (`input_required`);
                // the retry runs the forwarded call again and this returns the answer.
                Some(asked) => Ok(self.ctx.input(asked).await),
                None => Err(not_passed_on(method)),
            }
        })
    }

    fn answer_all<'a>(
        &'a self,
        asked: &'a [(String, String, Value)],
    ) -> BoxFuture<'a, Vec<Result<Value, Value>>> {
        Box::pin(async move {
            let mut forwards = Vec::with_capacity(asked.len());
            for (key, method, params) in asked {
                match Forward::new(key.as_str(), method, params.clone()) {
                    Some(f) => forwards.push(f),
                    None => {
                        return asked
                            .iter()
                            .map(|(_, m, _)| Err(not_passed_on(m)))
                            .collect();
                    }
                }
            }
            self.ctx.input(forwards).await.into_iter().map(Ok).collect()
        })
    }

    fn stream_closed(&self) {
        self.ctx.close_stream();
    }

    fn notified(&self, method: &str, params: &Value) {
        match method {
            "notifications/progress" => {
                let progress = params["progress"].as_f64().unwrap_or_default();
                let total = params["total"].as_f64();
                let message = params["message"].as_str();
                // Sending is immediate: the future completes on its first poll.
                let _ = self.ctx.progress(progress, total, message).now_or_never();
            }
            "notifications/message" => {
                let level = serde_json::from_value::<LogLevel>(params["level"].clone());
                let level = level.unwrap_or(LogLevel::Info);
                let _ = self.ctx.log(level, params["data"].clone()).now_or_never();
            }
            other => tracing::debug!(method = other, "an upstream notification not passed on"),
        }
    }
}

fn not_passed_on(method: &str) -> Value {
    json!({
        "code": -32601,
        "message": format!("Method not found: the gateway does not pass on `{method}`"),
    })
}

// The relays of the rooms: a task or a skill of the upstream's, its request forwarded.
impl TaskRelay for Remote {
    fn owns(&self, task_id: &str, session: &Session) -> bool {
        self.tasks
            .locked()
            .get(task_id)
            .is_some_and(|owner| *owner == session.task_owner())
    }

    fn forward<'a>(
        &'a self,
        method: &'a str,
        params: Option<crate::protocol::Params<'a>>,
        cx: Context<'a>,
    ) -> crate::BoxFuture<'a, Result<Body, Failure>> {
        Box::pin(async move {
            let params = params
                .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                .unwrap_or_else(|| json!({}));
            Remote::forward(self, method, params, &cx).await
        })
    }
}

impl crate::skills::SkillRelay for Remote {
    fn forward<'a>(
        &'a self,
        method: &'a str,
        params: Option<crate::protocol::Params<'a>>,
        cx: Context<'a>,
    ) -> crate::BoxFuture<'a, Result<Body, Failure>> {
        TaskRelay::forward(self, method, params, cx)
    }
}
