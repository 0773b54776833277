//! A router in a crate that depends on `phantom-mcp` under another name: `crate = "…"` points
//! the generated code at it, and markers written `#[phantom_renamed::tool]` are recognised.

/// A server with one tool and one resource.
#[derive(Clone, Debug, Default)]
pub struct Echo;

#[phantom_renamed::mcp_router(crate = "phantom_renamed", name = "renamed", version = "1.0.0")]
impl Echo {
    /// Says it back, louder.
    #[phantom_renamed::tool]
    async fn shout(&self, text: String) -> String {
        text.to_uppercase()
    }

    /// One item, by id.
    #[phantom_renamed::resource("renamed:///items/<id>")]
    async fn item(&self, id: u32) -> String {
        format!("item {id}")
    }
}

#[cfg(test)]
mod tests {
    use phantom_renamed::testing::Client;
    use serde_json::json;

    use super::Echo;

    #[test]
    fn tool_call_through_renamed_crate() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let mut client = Client::legacy(Echo).await;
            client
                .call_tool("shout", json!({"text": "hi"}))
                .await
                .assert_tool_text("HI");
            client
                .read_resource("renamed:///items/4")
                .await
                .assert_resource_text("item 4");
        });
    }
}
