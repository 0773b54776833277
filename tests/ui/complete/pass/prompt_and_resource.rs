//! `#[complete(with = "Self::f")]` on a prompt argument and on a resource URI parameter.

use phantom::prelude::*;
use phantom::testing::Client;

#[derive(Clone)]
struct S;

const IDS: [&str; 3] = ["10", "11", "20"];

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[prompt]
    async fn review(
        &self,
        #[complete(with = "Self::ids")] study: String,
        focus: Option<String>,
    ) -> String {
        format!("{study} {}", focus.unwrap_or_default())
    }

    #[resource("myapp:///studies/<id>")]
    async fn study(&self, #[complete(with = "Self::completion")] id: u32) -> String {
        id.to_string()
    }

    async fn ids(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        IDS.iter()
            .filter(|id| id.starts_with(value))
            .map(|id| (*id).to_owned())
            .collect()
    }

    async fn completion(&self, value: &str, cx: &CompleteContext<'_>) -> Result<Completion, Error> {
        assert_eq!(cx.argument, "id");
        Ok(Completion::new(vec![format!("{value}0")]))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    let r = c.complete_prompt("review", "study", "1").await;
    assert_eq!(
        r.result()["completion"]["values"],
        serde_json::json!(["10", "11"])
    );
    let r = c
        .complete_resource("myapp:///studies/{id}", "id", "4")
        .await;
    assert_eq!(
        r.result()["completion"]["values"],
        serde_json::json!(["40"])
    );
}
