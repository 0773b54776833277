use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    // A tail parameter arrives as one decoded string (`a/b/c`), not as a list of segments.
    #[resource("files:///tree/<path..>")]
    async fn file(&self, path: Vec<String>) -> String {
        path.join("/")
    }
}

fn main() {}
