use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[task_handler(ttl = "ten minutes")]
    async fn export(&self) -> String {
        "done".into()
    }
}

fn main() {}
