use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("myapp:///studies/<id>")]
    async fn study(&self, id: u64) -> String {
        id.to_string()
    }

    #[resource("myapp:///archive/<id>", name = "study")]
    async fn archived_study(&self, id: u64) -> String {
        id.to_string()
    }
}

fn main() {}
