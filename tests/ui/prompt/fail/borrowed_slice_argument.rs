use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[prompt]
    async fn review(&self, session: &Session, files: Option<&[String]>) -> String {
        let _ = session;
        files.unwrap_or_default().join(", ")
    }
}

fn main() {}
