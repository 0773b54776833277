//! `name`, `title`, `description`, `mime_type`, `size` and `icons` reach `resources/list` and
//! `resources/templates/list`.

use phantom::prelude::*;
use phantom::testing::Client;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    /// The summary.
    #[resource(
        "r:///summary",
        name = "catalogue-summary",
        title = "Summary",
        mime_type = "text/markdown",
        size = 12,
        icons = ["https://example.com/summary.png"]
    )]
    async fn summary(&self) -> String {
        "# Summary\n\n".to_owned()
    }

    #[resource("r:///items/<id>", description = "One item", title = "Item")]
    async fn item(&self, id: u32) -> String {
        id.to_string()
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    let list = c.list_resources(None).await;
    let summary = &list.result()["resources"][0];
    assert_eq!(summary["uri"], "r:///summary");
    assert_eq!(summary["name"], "catalogue-summary");
    assert_eq!(summary["title"], "Summary");
    assert_eq!(summary["description"], "The summary.");
    assert_eq!(summary["mimeType"], "text/markdown");
    assert_eq!(summary["size"], 12);
    assert_eq!(
        summary["icons"][0]["src"],
        "https://example.com/summary.png"
    );
    let read = c.read_resource("r:///summary").await;
    assert_eq!(read.result()["contents"][0]["mimeType"], "text/markdown");

    let templates = c.list_resource_templates(None).await;
    let item = &templates.result()["resourceTemplates"][0];
    assert_eq!(item["uriTemplate"], "r:///items/{id}");
    assert_eq!(item["name"], "item");
    assert_eq!(item["description"], "One item");
}
