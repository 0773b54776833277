use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[skill("skill://vault/unseal", scope = ["vault:read"])]
    async fn unseal(&self) -> Skill {
        Skill::new("unseal", "How to unseal the vault")
    }
}

fn main() {}
