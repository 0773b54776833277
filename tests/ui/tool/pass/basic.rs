use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    /// Echo.
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }
}

fn main() {
    let _ = phantom::dispatch::Dispatcher::new(S);
}
