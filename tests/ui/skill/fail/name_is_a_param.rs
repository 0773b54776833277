use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[skill("skill://studies/<name>")]
    async fn review(&self, name: String) -> Skill {
        Skill::new(name, "Reviews")
    }
}

fn main() {}
