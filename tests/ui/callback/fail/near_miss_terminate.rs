use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    async fn terminated(&self, session: &Session) -> Result<(), Error> {
        let _ = session;
        Ok(())
    }
}

fn main() {}
