//! The `{{name}}` MCP server: a tool, a resource and a prompt.
//!
//! `cargo run` serves it over Streamable HTTP at http://127.0.0.1:4000/mcp (`-- --addr HOST:PORT`
//! elsewhere, `-- --preview` with the MCP Apps preview host at `/mcp/preview`); `cargo run --
//! --stdio` serves stdin/stdout; `cargo test` tests it in-process.

use phantom::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
struct Note {
    id: u64,
    title: String,
}

#[derive(Clone)]
struct {{Type}};

#[mcp_router(name = "{{name}}", version = "0.1.0", instructions = "Look notes up by id.")]
impl {{Type}} {
    /// Search notes by title.
    #[tool(read_only)]
    async fn search(&self, query: String, #[arg(description = "max hits")] limit: Option<u32>) -> Json<Vec<Note>> {
        let hits = vec![Note { id: 1, title: format!("about {query}") }];
        Json(hits.into_iter().take(limit.unwrap_or(10) as usize).collect())
    }

    /// One note.
    #[resource("{{scheme}}:///notes/<id>", mime_type = "application/json")]
    async fn note(&self, id: u64) -> Option<Json<Note>> {
        (id == 1).then(|| Json(Note { id, title: "First note".into() }))
    }

    /// Review a note.
    #[prompt]
    async fn review(&self, note_id: String) -> PromptReply {
        PromptReply::default().user(format!("Review note {note_id}."))
    }
}

{{main}}

// `cargo test` runs the router in-process, in either era, without a socket.
#[cfg(test)]
mod tests {
    use super::*;
    use phantom::testing::Client;
    use serde_json::json;

    #[tokio::test]
    async fn reads_a_note_and_checks_arguments() {
        let mut client = Client::modern({{Type}});
        client.read_resource("{{scheme}}:///notes/1").await.assert_resource_text(r#"{"id":1,"title":"First note"}"#);
        client.call_tool("search", json!({"limit": 0})).await.assert_tool_error("missing required argument `query`");
        assert_eq!(client.list_tools(None).await.tool_names(), ["search"]);
    }
}
