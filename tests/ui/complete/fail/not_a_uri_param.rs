use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[resource("myapp:///studies/<id>")]
    async fn study(&self, id: u64, #[complete(with = "Self::ids")] session: &Session) -> String {
        let _ = session;
        id.to_string()
    }

    async fn ids(&self, value: &str, _cx: &CompleteContext<'_>) -> Vec<String> {
        vec![value.to_owned()]
    }
}

fn main() {}
