//! What the client receives when a handler returns `Err(e)`: one bound (`E: Display`) for every
//! handler kind; a tool answers with an `isError: true` result, a resource, a prompt and a
//! completion with a JSON-RPC error that keeps a `phantom::Error`'s code and data.

use phantom::prelude::*;
use phantom::testing::Client;
use serde_json::json;

#[derive(Clone)]
struct Failing;

/// A `phantom::Error` with a code of its own and data.
fn busy() -> Error {
    Error::new(-32050, "busy").with_data(json!({"retryAfter": 5}))
}

#[mcp_router(name = "failing", version = "1.0.0")]
impl Failing {
    /// Fails with a `String`.
    #[tool]
    async fn plain(&self) -> Result<String, String> {
        Err("plain failure".into())
    }

    /// Fails with a `phantom::Error`.
    #[tool]
    async fn coded(&self) -> Result<String, Error> {
        Err(busy())
    }

    /// Fails with a `String`.
    #[resource("failing:///plain")]
    async fn plain_resource(&self) -> Result<String, String> {
        Err("plain failure".into())
    }

    /// Fails with a `phantom::Error`.
    #[resource("failing:///coded")]
    async fn coded_resource(&self) -> Result<String, Error> {
        Err(busy())
    }

    /// Fails with a `std` error.
    #[resource("failing:///io")]
    async fn io_resource(&self) -> Result<String, std::io::Error> {
        Err(std::io::Error::other("disk gone"))
    }

    /// Says "not found" through a `phantom::Error`.
    #[resource("failing:///gone")]
    async fn gone(&self) -> Result<String, Error> {
        Err(Error::resource_not_found("failing:///gone"))
    }

    /// Fails with a `String`; its argument completes with a `String` error.
    #[prompt]
    async fn plain_prompt(
        &self,
        #[complete(with = "Self::refuse")] topic: String,
    ) -> Result<String, String> {
        Err(format!("plain failure about {topic}"))
    }

    /// Fails with a `phantom::Error`; its argument completes with one.
    #[prompt]
    async fn coded_prompt(
        &self,
        #[complete(with = "Self::refuse_coded")] topic: String,
    ) -> Result<String, Error> {
        let _ = topic;
        Err(busy())
    }

    async fn refuse(&self, value: &str, _cx: &CompleteContext<'_>) -> Result<Vec<String>, String> {
        Err(format!("cannot complete `{value}`"))
    }

    async fn refuse_coded(
        &self,
        _value: &str,
        _cx: &CompleteContext<'_>,
    ) -> Result<Completion, Error> {
        Err(busy())
    }
}

async fn clients() -> [Client<Failing>; 2] {
    [Client::legacy(Failing).await, Client::modern(Failing)]
}

#[tokio::test]
async fn a_tool_error_is_an_is_error_result_with_the_message_alone() {
    for mut client in clients().await {
        let plain = client.call_tool("plain", json!({})).await;
        assert_eq!(
            plain.result()["content"],
            json!([{"type": "text", "text": "plain failure"}])
        );
        assert_eq!(plain.result()["isError"], true);

        let coded = client.call_tool("coded", json!({})).await;
        assert_eq!(
            coded.result()["content"],
            json!([{"type": "text", "text": "busy"}]),
            "a phantom::Error's code and data stay on the server"
        );
        assert_eq!(coded.result()["isError"], true);
        assert!(coded.json.get("error").is_none(), "{}", coded.json);
    }
}

#[tokio::test]
async fn a_resource_error_is_a_json_rpc_error() {
    for mut client in clients().await {
        let era = client.era();
        for (uri, message) in [
            ("failing:///plain", "plain failure"),
            ("failing:///io", "disk gone"),
        ] {
            let read = client.read_resource(uri).await;
            read.assert_error(-32603);
            assert_eq!(read.error()["message"], message, "{era:?}");
            assert!(read.error().get("data").is_none(), "{}", read.json);
        }

        let coded = client.read_resource("failing:///coded").await;
        coded.assert_error(-32050);
        assert_eq!(coded.error()["message"], "busy");
        assert_eq!(coded.error()["data"], json!({"retryAfter": 5}));

        let gone = client.read_resource("failing:///gone").await;
        gone.assert_error(if era == phantom::protocol::Era::Legacy {
            -32002
        } else {
            -32602
        });
        assert_eq!(gone.error()["data"], json!({"uri": "failing:///gone"}));
    }
}

#[tokio::test]
async fn a_prompt_error_is_a_json_rpc_error() {
    for mut client in clients().await {
        let plain = client
            .get_prompt("plain_prompt", json!({"topic": "owls"}))
            .await;
        plain.assert_error(-32603);
        assert_eq!(plain.error()["message"], "plain failure about owls");

        let coded = client
            .get_prompt("coded_prompt", json!({"topic": "owls"}))
            .await;
        coded.assert_error(-32050);
        assert_eq!(coded.error()["data"], json!({"retryAfter": 5}));
    }
}

#[tokio::test]
async fn a_completion_error_is_a_json_rpc_error() {
    for mut client in clients().await {
        let plain = client.complete_prompt("plain_prompt", "topic", "ow").await;
        plain.assert_error(-32603);
        assert_eq!(plain.error()["message"], "cannot complete `ow`");

        let coded = client.complete_prompt("coded_prompt", "topic", "ow").await;
        coded.assert_error(-32050);
        assert_eq!(coded.error()["message"], "busy");
    }
}
