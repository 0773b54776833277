use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("skill://studies/review/SKILL.md")]
    async fn review(&self) -> String {
        "review".to_owned()
    }
}

fn main() {}
