use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[skill("skill://review")]
    async fn review(&self) -> Skill {
        Skill::new("review", "Reviews")
    }
}

fn main() {}
