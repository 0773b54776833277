use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    /// A concrete skill, a plain `fn`.
    #[skill("skill://team/git-workflow")]
    fn git(&self) -> Skill {
        Skill::new("git-workflow", "Git habits")
    }

    /// A skill per study, with context.
    #[skill("skill://studies/<id>/study-review")]
    async fn review(&self, id: u32, session: &Session) -> Result<Option<Skill>, Error> {
        let _ = session;
        Ok((id > 0).then(|| Skill::new("study-review", "Reviews")))
    }
}

fn main() {}
