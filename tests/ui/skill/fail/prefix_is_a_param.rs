use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[skill("skill://<team>/review")]
    async fn review(&self, team: String) -> Skill {
        Skill::new("review", team)
    }
}

fn main() {}
