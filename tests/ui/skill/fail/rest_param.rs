use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[skill("skill://studies/<path..>/review")]
    async fn review(&self, path: String) -> Skill {
        Skill::new("review", path)
    }
}

fn main() {}
