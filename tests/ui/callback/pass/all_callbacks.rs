//! Every router callback overridden with its documented signature; `connect` and `server_info`
//! are observed through the client.

use phantom::prelude::*;
use phantom::protocol::ErrorObject;
use phantom::testing::Client;
use phantom::{resources::{Authorized, ResolvedResource}, protocol::Implementation, tasks::{Task, TaskError}};
use serde_json::{Map, Value, json};

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[tool]
    async fn role(&self, session: &Session) -> String {
        format!("{:?}", session.allowed_tools.is_some())
    }

    /// Lets only `x-role: admin` use tools other than `role`.
    pub async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        if request.header("x-role") != Some("admin") {
            session.allowed_tools = Session::allow(["role"]);
        }
        Connect::Ok
    }

    async fn disconnect(&self, session: &Session) {
        let _ = session;
    }

    async fn terminate(&self, session: &Session) -> Result<(), Error> {
        let _ = session;
        Ok(())
    }

    async fn instructions(&self, session: &Session) -> Option<String> {
        let _ = session;
        Some("be nice".to_owned())
    }

    async fn server_info(&self, session: &Session) -> Implementation {
        let _ = session;
        serde_json::from_value(json!({"name": "custom", "version": "9.9.9"})).unwrap()
    }

    async fn list_resources(
        &self,
        cursor: Option<Cursor>,
        session: &Session,
    ) -> Result<Page<Resource>, Error> {
        let _ = (cursor, session);
        Ok(Page::last(vec![Resource::new("r:///listed", "listed")]))
    }

    async fn list_skills(
        &self,
        cursor: Option<Cursor>,
        session: &Session,
    ) -> Result<Page<String>, Error> {
        let _ = (cursor, session);
        Ok(Page::last(Vec::new()))
    }

    async fn authorize_resource_subscriptions(
        &self,
        resources: Vec<ResolvedResource>,
        session: &Session,
    ) -> Authorized {
        let _ = session;
        Authorized::Resources(resources)
    }

    async fn authorize_task_subscriptions(
        &self,
        task_ids: Vec<String>,
        session: &Session,
    ) -> Vec<String> {
        let _ = session;
        task_ids
    }

    async fn get_task(&self, task_id: &str, session: &Session) -> Result<Task, TaskError> {
        let _ = (task_id, session);
        Err(TaskError::NotFound)
    }

    async fn update_task(
        &self,
        task: Task,
        input_responses: Map<String, Value>,
        session: &Session,
    ) -> Result<(), ErrorObject> {
        let _ = (task, input_responses, session);
        Ok(())
    }

    async fn cancel_task(&self, task: Task, session: &Session) -> Result<(), ErrorObject> {
        let _ = (task, session);
        Ok(())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::uninitialized(S, phantom::Config::default());
    let init = c.initialize("2025-11-25").await;
    assert_eq!(init.result()["serverInfo"]["name"], "custom");
    assert_eq!(init.result()["instructions"], "be nice");
    c.call_tool("role", json!({}))
        .await
        .assert_tool_text("true");
    let list = c.list_resources(None).await;
    assert_eq!(list.result()["resources"][0]["uri"], "r:///listed");

    let mut admin = Client::uninitialized(S, phantom::Config::default()).header("x-role", "admin");
    admin.initialize("2025-11-25").await.result();
    admin
        .call_tool("role", json!({}))
        .await
        .assert_tool_text("false");
}
