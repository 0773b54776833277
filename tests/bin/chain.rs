//! A router and a middleware chain whose work shows in the answers, shared by
//! `tests/client/middleware.rs` (over HTTP) and `stdio-server --chain` (over stdio): three
//! middlewares that each add their letter to the arguments on the way in and to the result on
//! the way out (the order, recorded), one that retries a tool's error result, and one that
//! applies to the `shout` tool only.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use phantom::BoxFuture;
use phantom::middleware::{Answer, Call, Middleware, Next};
use phantom::prelude::*;
use serde_json::{Value, json};

/// Echo, shout, and a tool that fails every other call.
#[derive(Clone, Default)]
pub(crate) struct Chained {
    flaky_calls: Arc<AtomicUsize>,
}

#[mcp_router(name = "chained", version = "1.0.0")]
impl Chained {
    /// Says the text back.
    #[tool]
    async fn say(&self, text: String) -> String {
        text
    }

    /// Says the text back (a middleware of its own makes it loud).
    #[tool]
    async fn shout(&self, text: String) -> String {
        text
    }

    /// Fails its first call, and every other one after.
    #[tool]
    async fn flaky(&self) -> Result<String, String> {
        let n = self.flaky_calls.fetch_add(1, Ordering::SeqCst);
        if n.is_multiple_of(2) {
            Err(format!("call {n} failed"))
        } else {
            Ok(format!("call {n} worked"))
        }
    }
}

/// Adds its letter to `arguments.text` going in and to the result's text coming out.
pub(crate) struct Letter(pub &'static str);

fn first_text(answer: &Answer) -> Option<String> {
    answer.to_json()?["content"][0]["text"]
        .as_str()
        .map(str::to_owned)
}

impl Middleware for Letter {
    fn on_call_tool<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let call = match call.arguments() {
                Some(mut arguments) if arguments.get("text").is_some() => {
                    let text = format!("{}>{}", arguments["text"].as_str().unwrap_or(""), self.0);
                    arguments["text"] = Value::from(text);
                    call.with_arguments(arguments)
                }
                _ => call,
            };
            let answer = next.run(call).await;
            let Some(text) = first_text(&answer) else {
                return answer;
            };
            let mut result = answer.to_json().unwrap_or_default();
            result["content"][0]["text"] = Value::from(format!("{text}<{}", self.0));
            Answer::result(result)
        })
    }
}

/// Runs a tool again (up to three times) while it answers an error result.
pub(crate) struct Retry;

impl Middleware for Retry {
    fn on_call_tool<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let mut answer = next.run(call.clone()).await;
            for _ in 0..2 {
                if !answer.is_tool_error() {
                    break;
                }
                answer = next.run(call.clone()).await;
            }
            answer
        })
    }
}

/// Upper-cases the result (set for `shout` only).
pub(crate) struct Loud;

impl Middleware for Loud {
    fn on_call_tool<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let answer = next.run(call).await;
            match first_text(&answer) {
                Some(text) => Answer::result(
                    json!({"content": [{"type": "text", "text": text.to_uppercase()}]}),
                ),
                None => answer,
            }
        })
    }
}

/// The chain: A outermost, then B, then C, then the retry; `Loud` around `shout` only.
pub(crate) fn config() -> phantom::Config {
    phantom::Config::default()
        .with_middleware(Letter("A"))
        .with_middleware(Letter("B"))
        .with_middleware(Letter("C"))
        .with_middleware(Retry)
        .with_tool_middleware("shout", Loud)
}
