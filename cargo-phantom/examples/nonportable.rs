//! A stdio MCP server whose tool schemas keep schemars' own spelling
//! (`Config::with_portable_schemas(false)`): `"format": "uint32"` and a `type` array, which
//! `cargo phantom inspect --strict` reports. The `inspect` tests run it.

use phantom::prelude::*;

#[derive(Clone)]
struct Nonportable;

#[mcp_router(name = "nonportable", version = "0.1.0")]
impl Nonportable {
    /// Repeats `text` `times` times.
    #[tool]
    async fn repeat(&self, text: String, times: u32, separator: Option<String>) -> String {
        vec![text; times as usize].join(separator.as_deref().unwrap_or(""))
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let config = phantom::Config::default().with_portable_schemas(false);
    phantom::stdio::run_with_config(Nonportable, config).await
}
