use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// The secret.
    #[resource("vault:///secret", scopes = ["vault:read"])]
    async fn secret(&self) -> String {
        "s3cret".into()
    }

    /// Reveals a secret.
    #[prompt(scopes = ["vault:read"])]
    async fn reveal(&self, id: String) -> String {
        id
    }

    #[skill("skill://vault/unseal", scopes = ["vault:read", "vault:admin"])]
    async fn unseal(&self) -> Skill {
        Skill::new("unseal", "How to unseal the vault")
    }
}

fn main() {}
