//! `testing::Remote`'s helpers beyond tools: lists of prompts, resources and templates,
//! completion of a prompt argument and a template parameter, and tasks (get, cancel), against a
//! phantom server over HTTP in both eras.

use phantom::client::Era;
use phantom::http::HttpConfig;
use phantom::prelude::*;
use phantom::testing::Remote;
use serde_json::{Value, json};

use crate::support::TestServer;

/// A prompt and a template, each with a completion; a task that runs until cancelled.
#[derive(Clone)]
struct Library;

#[mcp_router(name = "library", version = "1.0.0")]
impl Library {
    /// Recommends a book by an author.
    #[prompt]
    async fn recommend(&self, #[complete(with = "Self::authors")] author: String) -> String {
        format!("Recommend a book by {author}.")
    }

    /// A shelf.
    #[resource("library:///shelves/<shelf>", mime_type = "text/plain")]
    async fn shelf(&self, #[complete(with = "Self::shelves")] shelf: String) -> Option<String> {
        Some(format!("shelf {shelf}"))
    }

    /// The front desk.
    #[resource("library:///desk", mime_type = "text/plain")]
    async fn desk(&self) -> String {
        "open".into()
    }

    /// How the library shelves books.
    #[skill("skill://library/shelving")]
    async fn shelving(&self) -> Skill {
        Skill::new("shelving", "How books are shelved")
            .body("# Shelving\n\nSee `docs/order.md`.\n")
            .file("docs/order.md", "By author.\n")
    }

    /// Shelves books until cancelled.
    #[task_handler(ttl = "5m", poll_interval = "20ms")]
    async fn shelve(&self) -> String {
        std::future::pending::<()>().await;
        unreachable!()
    }

    async fn authors(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        ["austen", "asimov", "borges"]
            .into_iter()
            .filter(|a| a.starts_with(value))
            .map(str::to_owned)
            .collect()
    }

    async fn shelves(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        ["fiction", "fables", "history"]
            .into_iter()
            .filter(|s| s.starts_with(value))
            .map(str::to_owned)
            .collect()
    }
}

fn values(response: &phantom::testing::Response) -> Value {
    response.result()["completion"]["values"].clone()
}

#[tokio::test]
async fn the_remote_kit_lists_completes_and_follows_tasks() {
    let server = TestServer::start_with(Library, HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let remote = Remote::http(&format!("http://{}/mcp", server.addr))
            .era(era)
            .tasks()
            .connect()
            .await;
        let prompts = remote.list_prompts(None).await;
        assert_eq!(
            prompts.result()["prompts"][0]["name"],
            "recommend",
            "{era:?}"
        );
        let resources = remote.list_resources(None).await;
        assert_eq!(
            resources.result()["resources"][0]["uri"],
            "library:///desk",
            "{era:?}"
        );
        let templates = remote.list_resource_templates(None).await;
        assert_eq!(
            templates.result()["resourceTemplates"][0]["uriTemplate"],
            "library:///shelves/{shelf}",
            "{era:?}"
        );
        let authors = remote.complete_prompt("recommend", "author", "a").await;
        assert_eq!(values(&authors), json!(["austen", "asimov"]), "{era:?}");
        let shelves = remote
            .complete_resource("library:///shelves/{shelf}", "shelf", "f")
            .await;
        assert_eq!(values(&shelves), json!(["fiction", "fables"]), "{era:?}");
        if era == Era::Modern {
            let started = remote.call_tool("shelve", json!({})).await;
            let task_id = started.result()["taskId"]
                .as_str()
                .unwrap_or_else(|| panic!("a task: {started:?}"))
                .to_owned();
            let running = remote.get_task(&task_id).await;
            assert_eq!(running.result()["status"], "working", "{running:?}");
            remote.cancel_task(&task_id).await;
            let cancelled = remote.get_task(&task_id).await;
            assert_eq!(cancelled.result()["status"], "cancelled", "{cancelled:?}");
        }
        remote.close().await;
    }
}

#[tokio::test]
async fn the_clients_typed_calls_list_and_get_skills_and_complete_a_template() {
    let server = TestServer::start_with(Library, HttpConfig::default()).await;
    for era in [Era::Legacy, Era::Modern] {
        let client = phantom::client::Client::http(&format!("http://{}/mcp", server.addr))
            .era(era)
            .connect()
            .await
            .expect("connects");
        let skills = client.list_skills(None).await.expect("skills/list");
        assert_eq!(skills.items.len(), 1, "{era:?}: {:?}", skills.items);
        assert_eq!(
            skills.items[0].uri, "skill://library/shelving/SKILL.md",
            "{era:?}"
        );
        let skill = client
            .get_skill("skill://library/shelving/SKILL.md")
            .await
            .expect("skills/get");
        assert_eq!(skill.frontmatter["name"], "shelving", "{era:?}: {skill:?}");
        let entries = client
            .read_directory("skill://library/shelving")
            .await
            .expect("resources/directory/read");
        let uris: Vec<&str> = entries.iter().map(|e| e.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://library/shelving/SKILL.md",
                "skill://library/shelving/docs"
            ],
            "{era:?}"
        );
        let shelves = client
            .complete_resource("library:///shelves/{shelf}", "shelf", "h")
            .await
            .expect("completion/complete");
        assert_eq!(shelves, ["history"], "{era:?}");
        client.close().await;
    }
}
