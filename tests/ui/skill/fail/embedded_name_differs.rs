use phantom::prelude::*;
use phantom::skills::Skill;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    // The embedded skill is `triage-failures`; the URI's last segment names it `triage`.
    #[skill("skill://ci/triage")]
    fn triage(&self) -> Skill {
        phantom::embed_skill!("../../../../tests/ui/skill/fixtures/triage-failures")
    }
}

fn main() {}
