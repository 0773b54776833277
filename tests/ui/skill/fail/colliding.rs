use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[skill("skill://studies/<id>/review")]
    async fn one(&self, id: u32) -> Option<Skill> {
        None
    }

    #[skill("skill://studies/<key>/review")]
    async fn two(&self, key: String) -> Option<Skill> {
        None
    }
}

fn main() {}
