use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("myapp:///files/<path..>/raw")]
    async fn file(&self, path: String) -> String {
        path
    }
}

fn main() {}
