use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[skill("skill://studies/Study_Review")]
    async fn review(&self) -> Skill {
        Skill::new("Study_Review", "Reviews")
    }
}

fn main() {}
