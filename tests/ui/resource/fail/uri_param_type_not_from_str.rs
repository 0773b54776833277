use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("myapp:///blobs/<id>")]
    async fn blob(&self, id: Vec<u8>) -> String {
        format!("{id:?}")
    }
}

fn main() {}
