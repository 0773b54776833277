//! A tool: a described argument, an optional renamed one, a context parameter, and a doc comment
//! whose wrapped lines are listed as one line per paragraph. A plain `fn` tool, whose result is
//! handed over ready (not boxed).

use phantom::prelude::*;

#[derive(Clone)]
struct Notes;

#[mcp_router(name = "notes", version = "1.0.0")]
impl Notes {
    /// Finds notes that mention every word of the query,
    /// newest first.
    ///
    /// Read-only.
    #[tool(read_only)]
    async fn search(
        &self,
        #[arg(description = "words to look for")] query: String,
        #[arg(rename = "maxResults")] max_results: Option<u32>,
        session: &Session,
    ) -> String {
        let _ = session;
        format!("{query} {}", max_results.unwrap_or(10))
    }

    /// Counts the notes.
    #[tool(read_only)]
    fn count(&self) -> String {
        "0".into()
    }
}

fn main() {}
