use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("myapp:///studies/<id>")]
    async fn study(&self) -> String {
        String::new()
    }
}

fn main() {}
