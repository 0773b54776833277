//! An overridden `list_resources` or `list_skills` that extends the default page
//! (`phantom::default_resources`, `phantom::default_skills`) instead of restating it: the declared
//! entries come with the allow-list and scopes applied, and the override adds its own.

use std::sync::Arc;

use phantom::auth::AuthInfo;
use phantom::prelude::*;
use phantom::resources::Resource;
use phantom::skills::Skill;
use phantom::testing::Client;
use serde_json::Value;

/// Three declared resources (one scoped, one outside every allow-list), two skills (one scoped),
/// and one incident per list override.
#[derive(Clone, Default)]
struct Desk;

#[mcp_router(name = "desk", version = "1.0.0")]
impl Desk {
    /// `x-token: keeper` grants `desk:read`; every session may see all but `archive`.
    async fn connect(&self, session: &mut Session, request: &Request) -> Connect {
        if request.header("x-token") == Some("keeper") {
            session.auth = Some(Arc::new(AuthInfo::new("ada").scopes(["desk:read"])));
        }
        session.allowed_resource_templates = Session::allow(["runbook", "ledger", "incident"]);
        session.allowed_skills = Session::allow(["triage", "audit", "oncall"]);
        Connect::Ok
    }

    /// The runbook.
    #[resource("desk:///runbook")]
    async fn runbook(&self) -> String {
        "Page the on-call.".into()
    }

    /// The ledger.
    #[resource("desk:///ledger", scopes = ["desk:read"])]
    async fn ledger(&self) -> String {
        "1 + 1".into()
    }

    /// Old things, outside the allow-list.
    #[resource("desk:///archive")]
    async fn archive(&self) -> String {
        "dust".into()
    }

    /// An incident.
    #[resource("desk:///incidents/<id>")]
    async fn incident(&self, id: u32) -> String {
        format!("incident {id}")
    }

    /// How to triage.
    #[skill("skill://desk/triage")]
    async fn triage(&self) -> Skill {
        Skill::new("triage", "How to triage")
    }

    /// How to audit.
    #[skill("skill://desk/audit", scopes = ["desk:read"])]
    async fn audit(&self) -> Skill {
        Skill::new("audit", "How to audit")
    }

    /// Who is on call, per team.
    #[skill("skill://desk/<team>/oncall")]
    async fn oncall(&self, team: String) -> Skill {
        Skill::new("oncall", format!("Who is on call for {team}"))
    }

    async fn list_resources(
        &self,
        cursor: Option<Cursor>,
        session: &Session,
    ) -> Result<Page<Resource>, Error> {
        let mut page = phantom::default_resources::<Self>(cursor.as_ref(), session)?;
        page.items
            .push(Resource::new("desk:///incidents/42", "incident"));
        Ok(page)
    }

    async fn list_skills(
        &self,
        cursor: Option<Cursor>,
        session: &Session,
    ) -> Result<Page<String>, Error> {
        let mut page = phantom::default_skills::<Self>(cursor.as_ref(), session)?;
        page.items.push("skill://desk/ops/oncall/SKILL.md".into());
        Ok(page)
    }
}

fn uris(list: &Value, key: &str) -> Vec<String> {
    list[key]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|i| i["uri"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn an_override_extends_the_default_page_with_the_allow_list_and_scopes_applied() {
    for keeper in [false, true] {
        let token = if keeper { "keeper" } else { "-" };
        let legacy = Client::builder(Desk)
            .header("x-token", token)
            .legacy()
            .await;
        let modern = Client::builder(Desk).header("x-token", token).modern();
        for mut client in [legacy, modern] {
            let listed = client.list_resources(None).await;
            let mut expected = vec!["desk:///runbook"];
            if keeper {
                expected.push("desk:///ledger");
            }
            expected.push("desk:///incidents/42");
            assert_eq!(
                uris(listed.result(), "resources"),
                expected,
                "keeper: {keeper}"
            );

            let listed = client.request("skills/list", serde_json::json!({})).await;
            let mut expected = vec!["skill://desk/triage/SKILL.md"];
            if keeper {
                expected.push("skill://desk/audit/SKILL.md");
            }
            expected.push("skill://desk/ops/oncall/SKILL.md");
            assert_eq!(
                uris(listed.result(), "skills"),
                expected,
                "keeper: {keeper}"
            );
        }
    }
}
