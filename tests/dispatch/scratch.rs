use phantom::testing::Client;
use serde_json::json;
use crate::fixture::Lab;

#[tokio::test]
async fn probe() {
    let mut c = Client::legacy(Lab).await;
    println!("{}", c.call_tool("enrol", json!({"team": {"lead": {"name": "a", "code": "abc"}}})).await.json);
    println!("{}", c.call_tool("enrol", json!({"team": {"lead": {"name": "ada", "code": "ABC"}}})).await.json);
}
