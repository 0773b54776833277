use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[skill("skill://studies/review")]
    async fn review(&self) -> String {
        "review".to_owned()
    }
}

fn main() {}
