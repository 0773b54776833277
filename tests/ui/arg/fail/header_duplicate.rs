use phantom::prelude::*;

#[derive(Clone)]
struct S;

#[mcp_router]
impl S {
    #[tool]
    async fn forecast(
        &self,
        #[arg(header = "Region")] region: String,
        #[arg(header = "region")] zone: String,
    ) -> String {
        format!("{region} {zone}")
    }
}

fn main() {}
