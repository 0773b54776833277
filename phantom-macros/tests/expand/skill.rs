//! A skill per study, read with a URI parameter and the session.

use phantom::skills::Skill;
use phantom::prelude::*;

#[derive(Clone)]
struct Skills;

#[mcp_router(name = "skills", version = "1.0.0")]
impl Skills {
    /// Reviews one study.
    #[skill("skill://studies/<id>/study-review")]
    async fn review(&self, id: u32, session: &Session) -> Result<Option<Skill>, Error> {
        let _ = session;
        Ok((id > 0).then(|| Skill::new("study-review", "Reviews")))
    }
}

fn main() {}
