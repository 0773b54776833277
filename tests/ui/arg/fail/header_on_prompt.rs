use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[prompt]
    async fn review(&self, #[arg(header = "Region")] region: String) -> String {
        region
    }
}

fn main() {}
