//! URI parameters: integers, `String`, `Uuid`, a `FromStr` newtype and a trailing `<rest..>`.

use std::str::FromStr;

use phantom::prelude::*;
use phantom::testing::Client;
use uuid::Uuid;

#[derive(Clone)]
struct S;

/// An id written `s-<n>`.
struct StudyId(u32);

impl FromStr for StudyId {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.strip_prefix("s-")
            .and_then(|n| n.parse().ok())
            .map(StudyId)
            .ok_or_else(|| format!("`{s}` is not a study id"))
    }
}

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[resource("myapp:///items/<id>")]
    async fn item(&self, id: u64) -> String {
        format!("item {id}")
    }

    #[resource("myapp:///users/<id>")]
    async fn user(&self, id: Uuid) -> String {
        format!("user {id}")
    }

    #[resource("myapp:///studies/<id>/title")]
    async fn study(&self, id: StudyId) -> String {
        format!("study {}", id.0)
    }

    #[resource("myapp:///files/<owner>/<path..>")]
    async fn file(&self, owner: String, path: String) -> String {
        format!("{owner}: {path}")
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    c.read_resource("myapp:///items/7")
        .await
        .assert_resource_text("item 7");
    c.read_resource("myapp:///items/seven")
        .await
        .assert_error(-32602);
    let id = "67e55044-10b1-426f-9247-bb680e5fe0c8";
    c.read_resource(&format!("myapp:///users/{id}"))
        .await
        .assert_resource_text(&format!("user {id}"));
    c.read_resource("myapp:///studies/s-12/title")
        .await
        .assert_resource_text("study 12");
    c.read_resource("myapp:///studies/12/title")
        .await
        .assert_error(-32602);
    c.read_resource("myapp:///files/ada/notes/2024/plan.md")
        .await
        .assert_resource_text("ada: notes/2024/plan.md");

    let templates = c.list_resource_templates(None).await;
    let templates = templates.result()["resourceTemplates"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        templates
            .iter()
            .any(|t| t["uriTemplate"] == "myapp:///files/{owner}/{+path}")
    );
}
