//! What a public signature takes or answers is named beside it: `Response::status()` answers a
//! `phantom::testing::Status`, `RateLimit::method` takes a `phantom::middleware::Method`, and a
//! session's `principal` is shared as its `id` is.

use phantom::middleware::{Method, RateLimit};
use phantom::prelude::*;
use phantom::testing::{Client, Status};

#[derive(Clone, Default)]
struct Bench;

#[mcp_router(name = "bench", version = "1.0.0")]
impl Bench {
    /// Who asks.
    #[tool]
    async fn whoami(&self, session: &Session) -> String {
        session.principal.as_deref().unwrap_or("nobody").to_owned()
    }

    async fn connect(&self, session: &mut Session, _request: &Request) -> Connect {
        // The principal and the id are the same shared string type.
        session.principal = session.id.clone().or_else(|| Some("ada".into()));
        Connect::Ok
    }
}

#[tokio::test]
async fn the_types_of_public_signatures_are_named_beside_them() {
    let limit = RateLimit::per_second(10.0, 5).method(Method::ToolsCall);
    let config = phantom::Config::default().with_middleware(limit);
    let mut client = Client::builder(Bench).config(config).modern();
    let response = client.call_tool("whoami", serde_json::json!({})).await;
    assert!(matches!(response.status(), Status::Ok), "{response:?}");
    response.assert_tool_text("ada");
}
