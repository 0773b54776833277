use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    async fn instructions(&self, session: &Session) -> String {
        let _ = session;
        String::new()
    }
}

fn main() {}
