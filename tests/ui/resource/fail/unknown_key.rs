use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("myapp:///summary", mime = "text/plain")]
    async fn summary(&self) -> String {
        String::new()
    }
}

fn main() {}
