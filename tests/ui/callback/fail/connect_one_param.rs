use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    async fn connect(&self, session: &mut Session) -> Connect {
        let _ = session;
        Connect::Ok
    }
}

fn main() {}
