//! The phantom side of the benchmark: one tool `echo {text}` → text and one resource template,
//! the same behaviour as the rmcp peer, at `http://$ADDR/mcp` (default `127.0.0.1:8940`), with
//! phantom's defaults (no tuning).

use phantom::prelude::*;

#[derive(Clone)]
struct Echo;

#[mcp_router(name = "phantom-echo", version = "0.1.0")]
impl Echo {
    /// Returns its input.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }

    /// A user's profile.
    #[resource("users://<id>/profile", mime_type = "text/plain")]
    async fn profile(&self, id: String) -> String {
        format!("profile of {id}")
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:8940".into());
    eprintln!("phantom-echo listening on http://{addr}/mcp");
    phantom::serve(Echo, addr).await
}
