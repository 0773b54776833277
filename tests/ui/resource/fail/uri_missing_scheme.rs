use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("/studies/<id>")]
    async fn study(&self, id: u64) -> String {
        id.to_string()
    }
}

fn main() {}
