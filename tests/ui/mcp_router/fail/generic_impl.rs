use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[derive(Clone)]
struct G<T>(T);

#[mcp_router]
impl<T: Clone + Send + Sync + 'static> G<T> {
    #[tool]
    async fn echo(&self, text: String) -> String {
        text
    }
}

fn main() {}
