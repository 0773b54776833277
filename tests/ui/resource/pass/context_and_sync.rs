//! A sync resource handler, and `&Session` / `&Request` next to URI parameters.

use phantom::prelude::*;
use phantom::testing::Client;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[resource("r:///version")]
    fn version(&self) -> &'static str {
        "1.0"
    }

    #[resource("r:///greeting/<name>")]
    async fn greeting(&self, session: &Session, name: String, request: &Request) -> String {
        let lang = request.header("accept-language").unwrap_or("en");
        format!("{lang}: hello {name} (modern: {})", session.is_modern())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await.header("accept-language", "fr");
    c.read_resource("r:///version")
        .await
        .assert_resource_text("1.0");
    c.read_resource("r:///greeting/ada")
        .await
        .assert_resource_text("fr: hello ada (modern: false)");
}
