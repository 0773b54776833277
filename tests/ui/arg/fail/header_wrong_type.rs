use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn forecast(&self, #[arg(header = "Regions")] regions: Vec<String>) -> String {
        regions.join(",")
    }
}

fn main() {}
