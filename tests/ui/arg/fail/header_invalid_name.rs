use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn forecast(&self, #[arg(header = "Region Name")] region: String) -> String {
        region
    }
}

fn main() {}
