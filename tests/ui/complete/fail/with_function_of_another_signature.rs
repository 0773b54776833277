use phantom::prelude::*;

#[derive(Clone)]
struct S;

// Outside the impl block: the signature is checked by the compiler, through a trait whose
// message says what a completion function is.
async fn study_ids(_server: &S, value: &str) -> Vec<String> {
    vec![value.to_owned()]
}

#[mcp_router]
impl S {
    #[resource("myapp:///studies/<id>")]
    async fn study(&self, #[complete(with = "study_ids")] id: u64) -> String {
        id.to_string()
    }
}

fn main() {}
