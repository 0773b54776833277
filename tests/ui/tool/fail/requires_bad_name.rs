use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool(requires = ["elicitation..url"])]
    async fn ask(&self) -> String {
        "asked".to_owned()
    }
}

fn main() {}
