use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("myapp:///summary", size = "1 KiB")]
    async fn search(&self) -> String {
        String::new()
    }
}

fn main() {}
