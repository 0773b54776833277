//! Hygiene: a router compiles warning-free next to local items that shadow the prelude (`Box`,
//! `Option`, `Some`, `Vec`, `Ok`, `Err`, a one-parameter `Result` alias) and modules named like the
//! crates generated code refers to, and it still answers through the in-process client.

#![deny(warnings)]

use ::phantom::prelude::{mcp_router, prompt, resource, tool};
use ::phantom::testing::Client;
use ::serde_json::json;

/// A local `Result` with one parameter, as many crates define.
type Result<T> = ::std::result::Result<T, String>;

#[allow(dead_code)]
struct Box;
#[allow(dead_code)]
struct Option;
#[allow(dead_code)]
struct Some;
#[allow(dead_code)]
struct Vec;
#[allow(dead_code)]
struct Ok;
#[allow(dead_code)]
struct Err;
#[allow(dead_code)]
struct None;

#[allow(dead_code)]
mod phantom {}
#[allow(dead_code)]
mod core {}
#[allow(dead_code)]
mod std {}

/// Named like the generated code's `Router` on purpose.
#[derive(Clone)]
struct Router;

#[mcp_router(name = "hygiene", version = "1.0.0", instructions = "divide numbers")]
impl Router {
    /// Divides `a` by `b`.
    #[tool(read_only, meta(kind = "math"))]
    async fn divide(
        &self,
        a: i64,
        b: i64,
        #[arg(rename = "roundUp")] round_up: ::std::option::Option<bool>,
    ) -> Result<String> {
        if b == 0 {
            return ::std::result::Result::Err("division by zero".to_owned());
        }
        let q = if round_up.unwrap_or(false) {
            (a + b - 1) / b
        } else {
            a / b
        };
        ::std::result::Result::Ok(q.to_string())
    }

    /// A sync tool.
    #[tool]
    fn ping(&self) -> &'static str {
        "pong"
    }

    /// A prompt with completion.
    #[prompt]
    async fn explain(&self, #[complete(with = "Self::numbers")] n: String) -> String {
        ::std::format!("explain {n}")
    }

    /// A resource with a URI parameter.
    #[resource("hygiene:///numbers/<n>", size = 1)]
    async fn number(&self, n: u32) -> ::std::option::Option<String> {
        (n < 10).then(|| n.to_string())
    }

    async fn numbers(
        &self,
        value: &str,
        _cx: &::phantom::completion::CompleteContext<'_>,
    ) -> ::std::vec::Vec<String> {
        ::std::vec![::std::format!("{value}0")]
    }
}

#[test]
fn router_with_shadowed_prelude_answers() {
    let rt = ::tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut client = Client::legacy(Router).await;
        client
            .call_tool("divide", json!({"a": 7, "b": 2}))
            .await
            .assert_tool_text("3");
        client
            .call_tool("divide", json!({"a": 7, "b": 2, "roundUp": true}))
            .await
            .assert_tool_text("4");
        client
            .call_tool("divide", json!({"a": 1, "b": 0}))
            .await
            .assert_tool_error("division by zero");
        client
            .call_tool("ping", json!({}))
            .await
            .assert_tool_text("pong");
        client
            .get_prompt("explain", json!({"n": "4"}))
            .await
            .assert_prompt_message(0, "user", "explain 4");
        client
            .read_resource("hygiene:///numbers/3")
            .await
            .assert_resource_text("3");
        let completion = client.complete_prompt("explain", "n", "4").await;
        assert_eq!(completion.result()["completion"]["values"], json!(["40"]));
    });
}
