use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("myapp:///studies/<study_id>")]
    async fn study(&self, studyid: u64) -> String {
        studyid.to_string()
    }
}

fn main() {}
