use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("myapp:///files/file-<id>.txt")]
    async fn file(&self, id: u64) -> String {
        id.to_string()
    }
}

fn main() {}
