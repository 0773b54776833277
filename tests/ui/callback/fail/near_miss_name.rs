use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    async fn list_resource(
        &self,
        cursor: Option<Cursor>,
        session: &Session,
    ) -> Result<Page<Resource>, Error> {
        let _ = (cursor, session);
        Ok(Page::last(Vec::new()))
    }
}

fn main() {}
