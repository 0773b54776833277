//! A resource may fail with any `Display` error: `String`, `&'static str`, a `std` error, a boxed
//! error; a `phantom::Error` keeps its code.

use phantom::prelude::*;
use phantom::testing::Client;

#[derive(Clone)]
struct S;

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[resource("r:///string/<id>")]
    async fn string(&self, id: u32) -> Result<String, String> {
        if id == 0 {
            Err(format!("no item {id}"))
        } else {
            Ok(id.to_string())
        }
    }

    #[resource("r:///str")]
    async fn str(&self) -> Result<Option<String>, &'static str> {
        Err("offline")
    }

    #[resource("r:///io")]
    async fn io(&self) -> Result<String, std::io::Error> {
        Err(std::io::Error::other("disk gone"))
    }

    #[resource("r:///boxed")]
    async fn boxed(&self) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
        Err("boxed".into())
    }

    #[resource("r:///coded")]
    fn coded(&self) -> Result<String, Error> {
        Err(Error::new(-32001, "busy"))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    c.read_resource("r:///string/1")
        .await
        .assert_resource_text("1");
    for (uri, code, message) in [
        ("r:///string/0", -32603, "no item 0"),
        ("r:///str", -32603, "offline"),
        ("r:///io", -32603, "disk gone"),
        ("r:///boxed", -32603, "boxed"),
        ("r:///coded", -32001, "busy"),
    ] {
        let read = c.read_resource(uri).await;
        read.assert_error(code);
        assert_eq!(read.error()["message"], message);
    }
}
