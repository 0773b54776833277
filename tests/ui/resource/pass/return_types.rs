//! Every supported resource return type.

use phantom::prelude::*;
use phantom::testing::Client;
use serde::Serialize;

#[derive(Clone)]
struct S;

#[derive(Serialize)]
struct Point {
    x: i32,
}

#[mcp_router(name = "s", version = "1.0.0")]
impl S {
    #[resource("r:///owned")]
    async fn owned(&self) -> String {
        "owned".to_owned()
    }

    #[resource("r:///borrowed")]
    async fn borrowed(&self) -> &'static str {
        "borrowed"
    }

    #[resource("r:///json")]
    async fn json(&self) -> Json<Point> {
        Json(Point { x: 1 })
    }

    #[resource("r:///blob")]
    async fn blob(&self) -> Blob {
        Blob(vec![0, 1, 2])
    }

    #[resource("r:///one")]
    async fn one(&self) -> ResourceContents {
        ResourceContents::text("r:///one", "one")
    }

    #[resource("r:///many")]
    async fn many(&self) -> Contents {
        Contents(vec![
            ResourceContents::text("r:///many#a", "a"),
            ResourceContents::text("r:///many#b", "b"),
        ])
    }

    #[resource("r:///maybe/<id>")]
    async fn maybe(&self, id: u32) -> Option<String> {
        (id == 1).then(|| "found".to_owned())
    }

    #[resource("r:///fallible/<id>")]
    async fn fallible(&self, id: u32) -> Result<Option<String>, Error> {
        match id {
            0 => Err(Error::invalid_params("zero")),
            1 => Ok(Some("fine".to_owned())),
            _ => Ok(None),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut c = Client::legacy(S).await;
    c.read_resource("r:///owned")
        .await
        .assert_resource_text("owned");
    c.read_resource("r:///borrowed")
        .await
        .assert_resource_text("borrowed");
    c.read_resource("r:///json")
        .await
        .assert_resource_text(r#"{"x":1}"#);
    c.read_resource("r:///blob")
        .await
        .assert_resource_blob(&[0, 1, 2]);
    c.read_resource("r:///one")
        .await
        .assert_resource_text("one");
    let many = c.read_resource("r:///many").await;
    assert_eq!(many.result()["contents"].as_array().unwrap().len(), 2);
    c.read_resource("r:///maybe/1")
        .await
        .assert_resource_text("found");
    let missing = c.read_resource("r:///maybe/2").await;
    missing.error();
    c.read_resource("r:///fallible/0")
        .await
        .assert_error(-32602);
    c.read_resource("r:///fallible/1")
        .await
        .assert_resource_text("fine");
    c.read_resource("r:///fallible/2").await.error();
}
