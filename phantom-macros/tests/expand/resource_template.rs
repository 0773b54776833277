//! A resource template with a typed URI parameter, and a plain `fn` concrete resource.

use phantom::prelude::*;

#[derive(Clone)]
struct Studies;

#[mcp_router(name = "studies", version = "1.0.0")]
impl Studies {
    /// One study.
    #[resource("myapp:///studies/<id>", mime_type = "application/json")]
    async fn study(&self, id: u32) -> Result<String, Error> {
        Ok(format!("{{\"id\":{id}}}"))
    }

    /// Every study.
    #[resource("myapp:///studies")]
    fn studies(&self) -> String {
        "[]".to_owned()
    }
}

fn main() {}
