//! A prompt whose argument completes through `#[complete(with = ...)]`.

use phantom::prelude::*;

#[derive(Clone)]
struct Reviews;

#[mcp_router(name = "reviews", version = "1.0.0")]
impl Reviews {
    /// Reviews a study.
    #[prompt]
    async fn review(
        &self,
        #[complete(with = "Self::ids")] study: String,
        focus: Option<String>,
    ) -> String {
        format!("{study} {}", focus.unwrap_or_default())
    }

    async fn ids(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        vec![format!("{value}0")]
    }
}

fn main() {}
