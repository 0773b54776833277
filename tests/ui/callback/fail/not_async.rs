use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    fn disconnect(&self, session: &Session) {
        let _ = session;
    }
}

fn main() {}
