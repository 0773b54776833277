use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("a:///x/<id>")]
    async fn by_id(&self, id: u64) -> String {
        id.to_string()
    }

    #[resource("a:///x/<name>")]
    async fn by_name(&self, name: String) -> String {
        name
    }
}

fn main() {}
