use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    // `<page..>` matches `pages/1/2`, which no `u64` parses; one segment is `<page>`.
    #[resource("myapp:///pages/<page..>")]
    async fn page(&self, page: u64) -> String {
        page.to_string()
    }
}

fn main() {}
